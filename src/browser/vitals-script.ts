/**
 * Core Web Vitals in the page (`--vitals`): Google's `web-vitals` library (its IIFE build,
 * installed as an init script in every page of a context, before the page's own scripts) reports
 * LCP, CLS, FCP and TTFB with `reportAllChanges`, so the latest value is always at hand; a
 * `PerformanceObserver` keeps the page's long tasks for TBT. {@link readVitals} reads them when
 * the page is read.
 *
 * LCP and CLS are final only once the page is hidden (`web-vitals` reports them on
 * `visibilitychange`). A crawled page is never hidden while it is measured: the values are those
 * at read time, after the page settled (network and DOM quiet), which is when the page a person
 * sees has rendered. A paint or layout shift after that (click and scroll discovery move the
 * page; their synthetic events would not count as input) is deliberately not counted.
 * @module
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The values {@link readVitals} reads (ms, CLS unitless). */
export interface InPageVitals {
  lcp: number | null;
  cls: number | null;
  fcp: number | null;
  ttfb: number | null;
  tbt: number | null;
  /** `false` when the init script was not there (a context without `--vitals`). */
  installed: boolean;
}

let cached: string | null = null;

/**
 * The init script that installs `web-vitals` (read once from the installed package's IIFE
 * build) in the top frame of every page, inside a function so that it adds one global,
 * `__spacrawlVitals`, where the values are kept.
 * @throws Error when the `web-vitals` package cannot be found
 */
export function vitalsInitScript(): string {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('web-vitals'));
  const lib = fs.readFileSync(path.join(dir, 'web-vitals.iife.js'), 'utf8');
  cached = `(function () {
  if (window.top !== window || window.__spacrawlVitals) return;
  var v = (window.__spacrawlVitals = { lcp: null, cls: null, fcp: null, ttfb: null, longTasks: [] });
  ${lib}
  try {
    var all = { reportAllChanges: true };
    webVitals.onLCP(function (m) { v.lcp = m.value; }, all);
    webVitals.onCLS(function (m) { v.cls = m.value; }, all);
    webVitals.onFCP(function (m) { v.fcp = m.value; }, all);
    webVitals.onTTFB(function (m) { v.ttfb = m.value; }, all);
  } catch (e) {}
  try {
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (e) { if (v.longTasks.length < 5000) v.longTasks.push([e.startTime, e.duration]); });
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) {}
})();`;
  return cached;
}

/**
 * Read the vitals the init script kept. TBT is Lighthouse's Total Blocking Time up to now: for
 * each long task, the part after First Contentful Paint beyond 50 ms, summed (`null` before FCP).
 * CLS is 0 once the page painted without a layout shift. Times are rounded to ms, CLS to 4
 * decimals. A page with text or an image that has not painted yet is given its first frames
 * first, for at most `paintWaitMs` (ms).
 */
export async function readVitals(paintWaitMs: number): Promise<InPageVitals> {
  const v = (window as unknown as { __spacrawlVitals?: { lcp: number | null; cls: number | null; fcp: number | null; ttfb: number | null; longTasks: [number, number][] } }).__spacrawlVitals;
  const ms = (n: number | null | undefined): number | null => (typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : null);
  if (!v) return { lcp: null, cls: null, fcp: null, ttfb: null, tbt: null, installed: false };
  // A page read right after it settled may not have been painted yet: give a page with something
  // to paint its first frames (at most paintWaitMs) rather than report it as never painted. The
  // LCP entry comes in a task of its own after the paint: on a busy machine it was still missing
  // when FCP was there, so both are waited for.
  const deadline = performance.now() + paintWaitMs;
  const hasText = (document.body?.innerText ?? '').trim() !== '' || document.querySelector('img, svg, video, canvas') !== null;
  const painted = (): boolean => (v.fcp !== null || performance.getEntriesByName('first-contentful-paint').length > 0) && v.lcp !== null;
  while (hasText && !painted() && performance.now() < deadline) {
    await new Promise<void>((done) => {
      const t = setTimeout(done, 50);
      requestAnimationFrame(() => setTimeout(() => (clearTimeout(t), done()), 0));
    });
  }
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const fcp = v.fcp ?? paint?.startTime ?? null;
  let tbt: number | null = null;
  if (fcp !== null) {
    tbt = 0;
    for (const [start, duration] of v.longTasks) {
      const blocking = start + duration - Math.max(start, fcp) - 50;
      if (blocking > 0) tbt += blocking;
    }
  }
  const cls = v.cls ?? (fcp !== null ? 0 : null);
  return { lcp: ms(v.lcp), cls: cls === null ? null : Math.round(cls * 10_000) / 10_000, fcp: ms(fcp), ttfb: ms(v.ttfb), tbt: ms(tbt), installed: true };
}
