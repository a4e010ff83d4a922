/**
 * Keeping a reused tab's renderer small. A tab renders page after page in one renderer process
 * (see `pool.ts`), and without memory pressure neither V8 nor Blink gives back what the pages
 * left behind: V8 sizes its heap by how fast the pages allocate, not by what is still reachable,
 * and the renderer's other memory creeps up page after page too. Measured in crawls at
 * concurrency 4 (private memory of the four renderers at their peak):
 * - the shared TypeDoc site (light static pages, a V8 heap of 3–8 MB): 102–112 MB each without
 *   collections, 36–43 MB with a full collection after every page, at the same wall time;
 * - the shared Elements site (a React app of ~15–35 MB live heap per page; V8 held 100–120 MB):
 *   191–338 MB without, 107–168 MB with a collection whenever V8 held more than 64 MB.
 * Crawlee opens a new tab per page and never meets this; spacrawl keeps the tab (a fresh renderer
 * compiles the site's scripts again: on Elements that cost ~1 s per page) and collects instead,
 * when the tab's heaps have grown since its last collection (see {@link shouldCollect}).
 *
 * What grows is in the two heaps CDP `Runtime.getHeapUsage` reports: V8's (`totalSize`) and
 * Blink's (`embedderHeapUsedSize`, the DOM and its garbage). One tab over 24 TypeDoc pages, no
 * collections: V8 held 3–13 MB, Blink's heap grew 5 → 56 MB, ~3.5 MB a page, and the renderer's
 * private memory with it (19 → 104 MB); a collection took both back to ~5 MB. On Elements, V8
 * held 30 → 206 MB and Blink 3 → 53 MB over 22 pages. A collection is a few tens of ms of the
 * renderer's CPU, so a tab whose pages leave little behind (small static pages) is not collected
 * after a fixed number of visits: in the synthetic bench, that cost 3–10 % of throughput.
 *
 * The collection runs after the visit's record is taken (the leave stage starts it and does not
 * wait), and the tab's next visit waits for it (`ContextPool.acquire`). Collecting garbage
 * changes nothing a page can observe.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/** Growth (bytes, of V8's and Blink's heaps together) since the last collection below which a tab is never collected early. */
export const HEAP_GROWTH_FLOOR_BYTES = 16 * 1024 * 1024;

/** Visits after which a tab is collected whatever its heaps say: memory that neither heap shows. */
export const COLLECT_EVERY_VISITS = 32;

/** What a tab remembers of its heaps between visits. */
export interface HeapWatch {
  /** Visits that ended since spacrawl's last collection in this tab (the one ending now included). */
  visitsSinceCollect: number;
  /** Bytes the heaps held ({@link heapBytes}) after spacrawl's last collection in this tab; 0 before the first. */
  heldAfterCollect: number;
}

/** CDP `Runtime.getHeapUsage`'s answer; `embedderHeapUsedSize` is missing before Chromium ~120. */
export interface HeapUsage {
  totalSize: number;
  embedderHeapUsedSize?: number;
}

/** Bytes a tab's heaps hold: V8's heap (`totalSize`: held, not only in use) plus Blink's (`embedderHeapUsedSize`). */
export function heapBytes(u: HeapUsage): number {
  return u.totalSize + (u.embedderHeapUsedSize ?? 0);
}

/**
 * `true` when the tab is worth a full collection now: its heaps hold `heldBytes`, more than
 * what the last collection left (`heldAfterCollect`) by over {@link HEAP_GROWTH_FLOOR_BYTES} and
 * over that amount again (they more than doubled), so that a page whose live heap is large is
 * not collected after every visit; or it had {@link COLLECT_EVERY_VISITS} visits since the last
 * one. (V8 frees garbage by itself, but without memory pressure it keeps the space; on Elements,
 * 100–120 MB held for 35 MB in use.)
 */
export function shouldCollect(heldBytes: number, watch: HeapWatch): boolean {
  return watch.visitsSinceCollect >= COLLECT_EVERY_VISITS || heldBytes - watch.heldAfterCollect > Math.max(HEAP_GROWTH_FLOOR_BYTES, watch.heldAfterCollect);
}

/**
 * Count the visit that ends now, read the tab's heaps (CDP `Runtime.getHeapUsage`) and, when
 * {@link shouldCollect} says so, run a full collection (`HeapProfiler.collectGarbage`: Chromium's low-memory collection of the
 * V8 and Blink heaps, which also gives the freed space back) and note what it left in `watch`.
 * @returns whether a collection ran
 * @throws CallTimeoutError when the renderer does not answer within `timeoutMs` (ms), or a
 * Playwright error when the tab is gone
 */
export async function collectIfGrown(cdp: CDPSession, watch: HeapWatch, timeoutMs = 10_000): Promise<boolean> {
  const held = async (): Promise<number> => heapBytes((await withTimeout(cdp.send('Runtime.getHeapUsage'), timeoutMs, 'reading the heap size')) as HeapUsage);
  watch.visitsSinceCollect++;
  if (!shouldCollect(await held(), watch)) return false;
  await withTimeout(cdp.send('HeapProfiler.collectGarbage'), timeoutMs, 'collecting garbage');
  watch.visitsSinceCollect = 0;
  watch.heldAfterCollect = await held();
  return true;
}
