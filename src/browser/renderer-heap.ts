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
 * compiles the site's scripts again: on Elements that cost ~1 s per page) and collects instead:
 * every {@link COLLECT_EVERY_VISITS} visits, and sooner when the heap has grown.
 *
 * The collection runs after the visit's record is taken (the leave stage starts it and does not
 * wait), and the tab's next visit waits for it (`ContextPool.acquire`). Collecting garbage
 * changes nothing a page can observe.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/**
 * A heap (bytes V8 holds: CDP `Runtime.getHeapUsage` `totalSize`) below this waits for the
 * periodic collection ({@link COLLECT_EVERY_VISITS}); above it, it is collected at once (once it
 * is also twice what the last collection left).
 */
export const HEAP_COLLECT_FLOOR_BYTES = 64 * 1024 * 1024;

/** Visits after which a tab is collected whatever its heap (the renderer's slow creep; see the module comment). */
export const COLLECT_EVERY_VISITS = 4;

/** What a tab remembers of its heap between visits. */
export interface HeapWatch {
  /** Visits that ended since spacrawl's last collection in this tab (the one ending now included). */
  visitsSinceCollect: number;
  /** Bytes V8 held (`totalSize`) after spacrawl's last collection in this tab; 0 before the first. */
  heldAfterCollect: number;
}

/**
 * `true` when the tab is worth a full collection now: it had {@link COLLECT_EVERY_VISITS}
 * visits since the last one, or its heap holds `heldBytes`, above
 * {@link HEAP_COLLECT_FLOOR_BYTES} and more than twice what the last collection left
 * (`heldAfterCollect`), so that a page whose live heap is large is not collected after every
 * visit. (The heap V8 holds, not the part in use: V8 frees garbage by itself, but without memory
 * pressure it keeps the space; on Elements, 100–120 MB held for 35 MB in use.)
 */
export function shouldCollect(heldBytes: number, watch: HeapWatch): boolean {
  return watch.visitsSinceCollect >= COLLECT_EVERY_VISITS || heldBytes > Math.max(HEAP_COLLECT_FLOOR_BYTES, 2 * watch.heldAfterCollect);
}

/**
 * Count the visit that ends now, read the tab's JS heap (CDP `Runtime.getHeapUsage`) and, when
 * {@link shouldCollect} says so, run a full collection (`HeapProfiler.collectGarbage`: Chromium's low-memory collection of the
 * V8 and Blink heaps, which also gives the freed space back) and note what it left in `watch`.
 * @returns whether a collection ran
 * @throws CallTimeoutError when the renderer does not answer within `timeoutMs` (ms), or a
 * Playwright error when the tab is gone
 */
export async function collectIfGrown(cdp: CDPSession, watch: HeapWatch, timeoutMs = 10_000): Promise<boolean> {
  const held = async (): Promise<number> =>
    ((await withTimeout(cdp.send('Runtime.getHeapUsage'), timeoutMs, 'reading the heap size')) as { totalSize: number }).totalSize;
  watch.visitsSinceCollect++;
  if (!shouldCollect(await held(), watch)) return false;
  await withTimeout(cdp.send('HeapProfiler.collectGarbage'), timeoutMs, 'collecting garbage');
  watch.visitsSinceCollect = 0;
  watch.heldAfterCollect = await held();
  return true;
}
