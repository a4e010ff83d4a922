/**
 * Stages: vitals (`--vitals`). `watch`, right before the navigation, takes the measure gate when
 * pages are measured alone (see `MeasureGate`), turns the tab's cache off (transfer sizes are a
 * first visit's, whatever the crawl loaded before), applies the throttling profile, and counts
 * the page's requests and the bytes they transferred. `read`, right after extraction, reads the
 * vitals in the page (see `readVitals`), lifts the throttling and gives the gate back, so that
 * screenshots, the accessibility check and discovery run at full speed and are not measured.
 * Pages with nothing rendered get no vitals.
 * @module
 */
import type { Request } from 'playwright';
import type { GateClock } from '../measure-gate.js';
import { applyThrottle } from '../throttle.js';
import { withTimeout } from '../timeout.js';
import { readVitals, type InPageVitals } from '../vitals-script.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';

export type { VitalsOptions } from './types.js';

/** Longest wait (ms) in the page for its first paint before its vitals are read (see `readVitals`). */
const PAINT_WAIT_MS = 1_000;

/** The two vitals stages of one visit, sharing the counters `watch` starts and `read` stops. */
export function vitalsStages(clock: GateClock): { watch: Stage<VisitContext>; read: Stage<VisitContext> } {
  let counting = false;
  let started = false;
  let requests = 0;
  let bytes = 0;
  const sizes: Promise<void>[] = [];
  let held: Promise<() => void> | null = null;
  let throttled = false;
  let networkOn = false;
  const off: (() => void)[] = [];
  /** Stop counting, lift the throttling, give the gate back (each once). */
  const finish = async (ctx: VisitContext): Promise<void> => {
    counting = false;
    if (throttled) {
      throttled = false;
      await applyThrottle(ctx.tab.cdp, 'none').catch(() => {});
    }
    void held?.then((release) => release());
  };
  return {
    watch: {
      name: 'vitals-watch',
      async action(ctx) {
        const { opts, tab, page } = ctx;
        if (!opts.vitals) return;
        if (opts.measureGate) {
          held = opts.measureGate.measure(clock);
          await ctx.step(held);
        }
        networkOn = true;
        await ctx.step(withTimeout(Promise.all([tab.cdp.send('Network.enable'), tab.cdp.send('Network.setCacheDisabled', { cacheDisabled: true })]), 5_000, 'turning the cache off'));
        if (opts.vitals.throttle !== 'none') {
          throttled = true;
          await ctx.step(applyThrottle(tab.cdp, opts.vitals.throttle));
        }
        counting = true;
        const onRequest = (r: Request): void => {
          // Counting starts with the page's own document request (the tab's previous page is paused).
          if (!started && r.isNavigationRequest() && r.frame() === page.mainFrame()) started = true;
          if (counting && started && !r.url().startsWith('data:')) requests++;
        };
        const onDone = (r: Request): void => {
          if (!counting || !started || r.url().startsWith('data:')) return;
          sizes.push(
            r.sizes().then(
              (s) => void (bytes += Math.max(0, s.responseHeadersSize) + Math.max(0, s.responseBodySize)),
              () => {},
            ),
          );
        };
        page.on('request', onRequest);
        page.on('requestfinished', onDone);
        off.push(() => page.off('request', onRequest), () => page.off('requestfinished', onDone));
      },
      async cleanup(ctx) {
        for (const d of off.splice(0)) d();
        await finish(ctx);
        if (networkOn) {
          networkOn = false;
          await withTimeout(Promise.all([ctx.tab.cdp.send('Network.setCacheDisabled', { cacheDisabled: false }), ctx.tab.cdp.send('Network.disable')]), 5_000, 'turning the cache back on').catch(() => {});
        }
      },
    },
    read: {
      name: 'vitals',
      async action(ctx) {
        const { opts, result, page } = ctx;
        if (!opts.vitals) return;
        try {
          if (result.noContent || result.title === null) return;
          const v = await ctx.step(withTimeout(page.evaluate(readVitals, PAINT_WAIT_MS), 5_000, 'reading the vitals').catch((): InPageVitals | null => null));
          counting = false;
          await ctx.step(withTimeout(Promise.all(sizes), 2_000, 'reading transfer sizes').catch(() => {}));
          result.vitals = {
            lcp: v?.lcp ?? null,
            cls: v?.cls ?? null,
            tbt: v?.tbt ?? null,
            fcp: v?.fcp ?? null,
            ttfb: v?.ttfb ?? null,
            transferBytes: bytes,
            requests,
            alone: Boolean(opts.measureGate),
            throttle: opts.vitals.throttle,
          };
        } finally {
          await finish(ctx);
        }
      },
    },
  };
}
