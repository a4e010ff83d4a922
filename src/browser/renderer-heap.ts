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
 * when the renderer's heaps have grown since its last collection (see {@link shouldCollect}).
 *
 * What grows is in the two heaps CDP `Runtime.getHeapUsage` reports: V8's (`totalSize`) and
 * Blink's (`embedderHeapUsedSize`, the DOM and its garbage). One tab over 24 TypeDoc pages, no
 * collections: V8 held 3–13 MB, Blink's heap grew 5 → 56 MB, ~3.5 MB a page, and the renderer's
 * private memory with it (19 → 104 MB); a collection took both back to ~5 MB. On Elements, V8
 * held 30 → 206 MB and Blink 3 → 53 MB over 22 pages.
 *
 * **A collection is dear.** `HeapProfiler.collectGarbage` is Chromium's low-memory collection,
 * which also empties V8's compilation cache: the next page of every tab of that renderer compiles
 * the site's scripts from scratch. On Elements (a 2 MB bundle) that made the bundle's evaluation
 * ~400 ms of the renderer's main thread instead of ~100 (CPU time, per page, traced), and the
 * pages' functions had to warm up again (V8's tier-up work: 13.7 s of a crawl instead of 0.5 s).
 * The tabs of a shared context render in one renderer, so they share one V8 heap: the watch is
 * kept per renderer (per V8 isolate, `Runtime.getIsolateId`), with one baseline and one
 * collection at a time, instead of one per tab. That alone did not make collections rarer: in a
 * traced Elements crawl at concurrency 4, 45 of the bundle's 56 evaluations were compilations from
 * scratch, against 47 with a watch per tab. The floor below decides. Elements at concurrency 4
 * (single bench runs, 2026-12-03; the floor's own runs 35-44 s and 887-1361 MB):
 * - a 16 MB floor (this rule): 53.6 s, 1.83 CPU s a page, peak 819 MB (TypeDoc 714 MB);
 * - a 64 MB floor: 43.4 s, 1.45 CPU s a page, peak 989 MB (TypeDoc 791 MB, its floor 723);
 * - a 128 MB floor: 43.2 s, 1143 MB; no collection at all: 42.3 s, 1.36 CPU s a page, 1457 MB.
 * The floor stays at 16 MB: a crawl's memory must stay under the floor's, and at concurrency 4 the
 * first tabs render in two or three renderers (see `pool.ts`), each with its own heaps. Fewer
 * renderers would let the collections be rarer.
 *
 * The collection runs after the visit's record is taken (the leave stage starts it and does not
 * wait), and the tab's next visit waits for it (`ContextPool.acquire`). Collecting garbage
 * changes nothing a page can observe.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/** Growth (bytes, of V8's and Blink's heaps together) since the last collection below which a renderer is never collected early. */
export const HEAP_GROWTH_FLOOR_BYTES = 16 * 1024 * 1024;

/** Visits (of all the renderer's tabs) after which a renderer is collected whatever its heaps say: memory that neither heap shows. */
export const COLLECT_EVERY_VISITS = 64;

/** What is remembered of one renderer's heaps between visits. */
export interface HeapWatch {
  /** Visits of the renderer's tabs that ended since spacrawl's last collection in it (the one ending now included). */
  visitsSinceCollect: number;
  /** Bytes the heaps held ({@link heapBytes}) after spacrawl's last collection in this renderer; 0 before the first. */
  heldAfterCollect: number;
  /** The collection under way in this renderer, or `null`: another tab ending meanwhile starts none. */
  collecting: Promise<void> | null;
}

/**
 * The heap watches of a browser's renderers, by V8 isolate id (CDP `Runtime.getIsolateId`; one
 * isolate per renderer's main thread, shared by every page it renders). Keeps the
 * {@link RendererHeaps.LIMIT} renderers last seen (renderers of closed contexts drop out).
 */
export class RendererHeaps {
  /** Most renderers remembered. */
  static readonly LIMIT = 64;
  private readonly watches = new Map<string, HeapWatch>();

  /** The watch of the renderer with this isolate id (a new one for a renderer not seen yet). */
  watch(isolateId: string): HeapWatch {
    let w = this.watches.get(isolateId);
    if (w) {
      // Most recently seen last: the first entry is the one to drop.
      this.watches.delete(isolateId);
    } else {
      w = { visitsSinceCollect: 0, heldAfterCollect: 0, collecting: null };
      if (this.watches.size >= RendererHeaps.LIMIT) this.watches.delete(this.watches.keys().next().value as string);
    }
    this.watches.set(isolateId, w);
    return w;
  }

  /** How many renderers are remembered. */
  get size(): number {
    return this.watches.size;
  }
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
 * `true` when the renderer is worth a full collection now: its heaps hold `heldBytes`, more than
 * what the last collection left (`heldAfterCollect`) by over {@link HEAP_GROWTH_FLOOR_BYTES} and
 * over that amount again (they more than doubled), so that a site whose live heap is large is
 * not collected after every visit; or its tabs had {@link COLLECT_EVERY_VISITS} visits since the
 * last one. (V8 frees garbage by itself, but without memory pressure it keeps the space; on
 * Elements, 100–120 MB held for 35 MB in use.)
 */
export function shouldCollect(heldBytes: number, watch: Pick<HeapWatch, 'heldAfterCollect' | 'visitsSinceCollect'>): boolean {
  return watch.visitsSinceCollect >= COLLECT_EVERY_VISITS || heldBytes - watch.heldAfterCollect > Math.max(HEAP_GROWTH_FLOOR_BYTES, watch.heldAfterCollect);
}

/**
 * Count the visit that ends now in its renderer's watch, read the renderer's heaps (CDP
 * `Runtime.getHeapUsage`) and, when {@link shouldCollect} says so and no other tab of the renderer
 * is collecting, run a full collection (`HeapProfiler.collectGarbage`: Chromium's low-memory
 * collection of the V8 and Blink heaps, which also gives the freed space back) and note what it
 * left in the watch.
 * @param heaps - the watches of the browser's renderers (one per pool)
 * @returns whether this call ran a collection
 * @throws CallTimeoutError when the renderer does not answer within `timeoutMs` (ms), or a
 * Playwright error when the tab is gone
 */
export async function collectIfGrown(cdp: CDPSession, heaps: RendererHeaps, timeoutMs = 10_000): Promise<boolean> {
  const held = async (): Promise<number> => heapBytes((await withTimeout(cdp.send('Runtime.getHeapUsage'), timeoutMs, 'reading the heap size')) as HeapUsage);
  const [{ id }, bytes] = await Promise.all([withTimeout(cdp.send('Runtime.getIsolateId'), timeoutMs, 'reading the isolate id'), held()]);
  const watch = heaps.watch(id);
  watch.visitsSinceCollect++;
  if (watch.collecting || !shouldCollect(bytes, watch)) return false;
  const collecting = withTimeout(cdp.send('HeapProfiler.collectGarbage'), timeoutMs, 'collecting garbage').then(async () => {
    watch.visitsSinceCollect = 0;
    watch.heldAfterCollect = await held();
  });
  watch.collecting = collecting.then(
    () => {},
    () => {},
  );
  try {
    await collecting;
  } finally {
    watch.collecting = null;
  }
  return true;
}
