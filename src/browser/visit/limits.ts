/**
 * Stage: the visit's limits. Arms the hard deadline and the cancellation signal, both of which
 * end the visit through the context's one abort (see `VisitContext.abort`), and on cleanup
 * disarms them and records the visit's total time.
 * @module
 */
import { SLOW_CLICK_WAITS } from '../explore.js';
import { A11Y_PAGE_TIMEOUT_MS } from '../a11y.js';
import type { GateClock } from '../measure-gate.js';
import { armTimer, type ArmedTimer } from '../timeout.js';
import { MAX_TIMER_MS } from '../../util/wait.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import type { VisitOptions } from './types.js';

/**
 * The hard deadline of one visit (ms): the navigation and settle caps, plus 15 s for the rest
 * (extraction, screenshot, pausing), plus each discovery budget and 5 s for it (for clicks, also
 * `repeat` steps of a chain that keeps revealing links, at most 3 click waits and 2 s each), plus the
 * accessibility check's cap twice (a check past its cap is waited for as long again, see
 * `A11yChecker`) and 5 s for it, plus 10 s for the vitals. Past it the visit ends with
 * a `timeout` error whatever it is doing, so a stuck page always frees its slot. Time spent
 * waiting at the measure gate (`--vitals-concurrency`) does not count.
 */
export function hardDeadlineMs(opts: VisitOptions): number {
  // Each part is at most a timer's limit (options refuse more); their sum may not be.
  return Math.min(
    MAX_TIMER_MS,
    opts.navigationTimeoutMs +
    opts.settleTimeoutMs +
    15_000 +
    // A chain of clicks that keeps revealing links goes on past the click budget (see `exploreClicks`).
    (opts.click ? opts.click.budgetMs + 5_000 + opts.click.repeat * ((1 + SLOW_CLICK_WAITS) * opts.click.clickWaitMs + 2_000) : 0) +
    (opts.scroll ? opts.scroll.budgetMs + 5_000 : 0) +
    (opts.a11y ? 2 * A11Y_PAGE_TIMEOUT_MS + 5_000 : 0) +
    (opts.vitals ? 10_000 : 0),
  );
}

/**
 * The limits stage (one per visit).
 * @param clock - time the visit waited at the measure gate, added to the deadline as it grows
 */
export function limits(clock: GateClock = { waitedMs: 0 }): Stage<VisitContext> {
  let timer: ArmedTimer | undefined;
  let onCancel: (() => void) | undefined;
  return {
    name: 'limits',
    action(ctx) {
      const deadline = hardDeadlineMs(ctx.opts);
      let credited = clock.waitedMs;
      const arm = (ms: number): void => {
        // Stall-tolerant (see armTimer): a stall of the crawler is not the page's time.
        timer = armTimer(() => {
          const waited = clock.waitedMs - credited;
          credited = clock.waitedMs;
          if (waited > 0) arm(waited);
          else ctx.abort({ code: 'timeout', message: `page did not finish within the ${deadline} ms page deadline` });
        }, ms);
      };
      arm(deadline);
      const cancel = (): void => ctx.abort({ code: 'interrupted', message: 'crawl interrupted' });
      onCancel = cancel;
      if (ctx.opts.signal?.aborted) cancel();
      ctx.opts.signal?.addEventListener('abort', cancel, { once: true });
    },
    cleanup(ctx) {
      timer?.clear();
      if (onCancel) ctx.opts.signal?.removeEventListener('abort', onCancel);
      ctx.result.timings.total = Date.now() - ctx.startedAt;
    },
  };
}
