/**
 * Keeping a reused tab's renderer small. A tab renders page after page in one renderer process
 * (see `pool.ts`), and V8 sizes its heap by how fast the pages allocate, not by how much of it
 * is still reachable: with no memory pressure, the documents a tab left behind stay in the heap
 * as garbage, and the heap, once grown, is kept. Measured on the shared Elements site (a React
 * app of ~15 MB live heap per page): one tab's renderer grew from 52 MB to 300 MB of private
 * memory over 16 pages, its JS heap from 35 MB to 168 MB; with a full collection after each page
 * it stayed at ~60 MB. Crawlee opens a new tab per page and never meets this; spacrawl keeps the
 * tab (a fresh renderer compiles the site's scripts again: on the same site that cost ~1 s per
 * page) and collects instead, when the heap has grown: a full collection costs ~100–200 ms of
 * the renderer's time on such a page, nothing on a page that stays small.
 *
 * The collection runs after the visit's record is taken (the leave stage starts it and does not
 * wait), and the tab's next visit waits for it (`ContextPool.acquire`). Collecting garbage
 * changes nothing a page can observe.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/**
 * A heap (bytes V8 holds: CDP `Runtime.getHeapUsage` `totalSize`) below this is never collected
 * by spacrawl. V8's own collections free the garbage of light pages, and a heap this small is
 * not worth a collection's time.
 */
export const HEAP_COLLECT_FLOOR_BYTES = 64 * 1024 * 1024;

/** What a tab remembers of its heap between visits. */
export interface HeapWatch {
  /** Bytes V8 held (`totalSize`) after spacrawl's last collection in this tab; 0 before the first. */
  heldAfterCollect: number;
}

/**
 * `true` when a heap that holds `heldBytes` is worth a full collection: above
 * {@link HEAP_COLLECT_FLOOR_BYTES} and more than twice what the last collection left
 * (`heldAfterCollect`), so a page whose live heap is large is not collected after every visit.
 * (The heap V8 holds, not the part in use: V8 frees garbage by itself, but without memory
 * pressure it keeps the space; on Elements, 100–120 MB held for 35 MB in use.)
 */
export function shouldCollect(heldBytes: number, watch: HeapWatch): boolean {
  return heldBytes > Math.max(HEAP_COLLECT_FLOOR_BYTES, 2 * watch.heldAfterCollect);
}

/**
 * Read the tab's JS heap (CDP `Runtime.getHeapUsage`) and, when {@link shouldCollect} says so,
 * run a full collection (`HeapProfiler.collectGarbage`: Chromium's low-memory collection of the
 * V8 and Blink heaps, which also gives the freed space back) and note what it left in `watch`.
 * @returns whether a collection ran
 * @throws CallTimeoutError when the renderer does not answer within `timeoutMs` (ms), or a
 * Playwright error when the tab is gone
 */
export async function collectIfGrown(cdp: CDPSession, watch: HeapWatch, timeoutMs = 10_000): Promise<boolean> {
  const held = async (): Promise<number> =>
    ((await withTimeout(cdp.send('Runtime.getHeapUsage'), timeoutMs, 'reading the heap size')) as { totalSize: number }).totalSize;
  if (!shouldCollect(await held(), watch)) return false;
  await withTimeout(cdp.send('HeapProfiler.collectGarbage'), timeoutMs, 'collecting garbage');
  watch.heldAfterCollect = await held();
  return true;
}
