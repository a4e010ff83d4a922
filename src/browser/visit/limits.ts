/**
 * Stage: the visit's limits. Arms the hard deadline and the cancellation signal, both of which
 * end the visit through the context's one abort (see `VisitContext.abort`), and on cleanup
 * disarms them and records the visit's total time.
 * @module
 */
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import type { VisitOptions } from './types.js';

/**
 * The hard deadline of one visit (ms): the navigation and settle caps, plus 15 s for the rest
 * (extraction, screenshot, pausing), plus each discovery budget and 5 s for it. Past it the
 * visit ends with a `timeout` error whatever it is doing, so a stuck page always frees its slot.
 */
export function hardDeadlineMs(opts: VisitOptions): number {
  return (
    opts.navigationTimeoutMs + opts.settleTimeoutMs + 15_000 + (opts.click ? opts.click.budgetMs + 5_000 : 0) + (opts.scroll ? opts.scroll.budgetMs + 5_000 : 0)
  );
}

/** The limits stage (one per visit). */
export function limits(): Stage<VisitContext> {
  let timer: NodeJS.Timeout | undefined;
  let onCancel: (() => void) | undefined;
  return {
    name: 'limits',
    action(ctx) {
      const deadline = hardDeadlineMs(ctx.opts);
      timer = setTimeout(() => ctx.abort({ code: 'timeout', message: `page did not finish within the ${deadline} ms page deadline` }), deadline);
      const cancel = (): void => ctx.abort({ code: 'interrupted', message: 'crawl interrupted' });
      onCancel = cancel;
      if (ctx.opts.signal?.aborted) cancel();
      ctx.opts.signal?.addEventListener('abort', cancel, { once: true });
    },
    cleanup(ctx) {
      clearTimeout(timer);
      if (onCancel) ctx.opts.signal?.removeEventListener('abort', onCancel);
      ctx.result.timings.total = Date.now() - ctx.startedAt;
    },
  };
}
