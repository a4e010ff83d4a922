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
 * collections: V8 held 3–13 MB, Blink's heap grew 5 → 56 MB, ~3.5 MB a page; a collection took
 * both back to ~5 MB.
 *
 * **Which collection.** CDP's `HeapProfiler.collectGarbage` is Chromium's low-memory collection,
 * which also empties V8's compilation cache: the next page of every tab of that renderer compiles
 * the site's scripts from scratch. On Elements (a 2 MB bundle) the bundle's evaluation then took
 * ~400 ms of the renderer's main thread instead of ~100, and V8's tier-up work was 13.7 s of a
 * crawl instead of 0.5 (traced). So the collection is V8's own full collection of both heaps,
 * exposed to pages by the launch (`--expose-gc-as`, {@link GC_FUNCTION}) and called in the page:
 * it keeps the compilation cache. What it frees, V8 gives back because the launch also sizes the
 * heap for memory (`--optimize-for-size`, a 2 MB young generation; see `launch.ts`). One tab, 12
 * Elements pages, renderer CPU and memory (PSS) after the last: no collection 9.3 s, 219 MB;
 * CDP's collection 13.5 s, 140 MB; this one 10.6 s, 143 MB. CDP's collection stays the backstop
 * ({@link COLLECT_EVERY_VISITS}) and the fallback for a browser launched without the flag.
 *
 * The tabs of a shared context render in one renderer, so they share one V8 heap: the watch is
 * kept per renderer (per V8 isolate, `Runtime.getIsolateId`), with one baseline and one
 * collection at a time. The collection runs after the visit's record is taken (the leave stage
 * starts it and does not wait), and the tab's next visit waits for it (`ContextPool.acquire`).
 * Collecting garbage changes nothing a page can observe.
 * @module
 */
import type { CDPSession } from 'playwright';
import { withTimeout } from './timeout.js';

/** Growth (bytes, of V8's and Blink's heaps together) since the last collection below which a renderer is never collected early. */
export const HEAP_GROWTH_FLOOR_BYTES = 16 * 1024 * 1024;

/**
 * The name under which the launch exposes V8's garbage collection to pages (`--expose-gc-as`,
 * see `CHROMIUM_ARGS`). A page can see it, as it can see `window.__spacrawl`.
 */
export const GC_FUNCTION = '__spacrawlGc';

/** Visits (of all the renderer's tabs) after which a renderer gets CDP's low-memory collection whatever its heaps say: memory that neither heap shows. */
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

  /** Each tab's isolate id as last read, and the visits since (see {@link isolateOf}). */
  private readonly isolates = new WeakMap<CDPSession, { id: string; visits: number }>();

  /**
   * The V8 isolate id of the tab whose CDP session is `cdp` (CDP `Runtime.getIsolateId`), read
   * once and then every {@link ISOLATE_RECHECK_VISITS} visits: a tab keeps its renderer from page
   * to page of a site (a navigation to another site may move it to another one; then its visits
   * count in the old renderer's watch until the next read, which only delays a collection).
   * Each read is a protocol call (~0.8 ms of CPU over the crawler, the browser and the renderer).
   * @throws CallTimeoutError when the renderer does not answer within `timeoutMs` (ms), or a
   * Playwright error when the tab is gone
   */
  async isolateOf(cdp: CDPSession, timeoutMs: number): Promise<string> {
    const known = this.isolates.get(cdp);
    if (known && known.visits < ISOLATE_RECHECK_VISITS) {
      known.visits++;
      return known.id;
    }
    const { id } = (await withTimeout(cdp.send('Runtime.getIsolateId'), timeoutMs, 'reading the isolate id')) as { id: string };
    this.isolates.set(cdp, { id, visits: 1 });
    return id;
  }
}

/** Visits of a tab after which its isolate id is read again (see {@link RendererHeaps.isolateOf}). */
export const ISOLATE_RECHECK_VISITS = 16;

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
 * is collecting, run a full collection of the V8 and Blink heaps (V8's own, in the page; CDP's
 * low-memory one every {@link COLLECT_EVERY_VISITS} visits, see the module comment) and note what
 * it left in the watch.
 * @param heaps - the watches of the browser's renderers (one per pool)
 * @returns whether this call ran a collection
 * @throws CallTimeoutError when the renderer does not answer within `timeoutMs` (ms), or a
 * Playwright error when the tab is gone
 */
export async function collectIfGrown(cdp: CDPSession, heaps: RendererHeaps, timeoutMs = 10_000): Promise<boolean> {
  const held = async (): Promise<number> => heapBytes((await withTimeout(cdp.send('Runtime.getHeapUsage'), timeoutMs, 'reading the heap size')) as HeapUsage);
  const [id, bytes] = await Promise.all([heaps.isolateOf(cdp, timeoutMs), held()]);
  const watch = heaps.watch(id);
  watch.visitsSinceCollect++;
  if (watch.collecting || !shouldCollect(bytes, watch)) return false;
  const lowMemory = watch.visitsSinceCollect >= COLLECT_EVERY_VISITS;
  const collecting = withTimeout(collect(cdp, lowMemory), timeoutMs, 'collecting garbage').then(async () => {
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

/** The page's call of V8's full collection: `true` when it ran, `false` when the function is not there. */
const CALL_GC = `typeof ${GC_FUNCTION} === 'function' ? (${GC_FUNCTION}(), true) : false`;

/**
 * Collect the renderer's garbage: V8's full collection called in the page (keeps the compilation
 * cache), or, with `lowMemory` or when the page has no {@link GC_FUNCTION}, CDP's low-memory one.
 * @throws a Playwright error when the tab is gone
 */
async function collect(cdp: CDPSession, lowMemory: boolean): Promise<void> {
  if (!lowMemory) {
    const ran = (await cdp.send('Runtime.evaluate', { expression: CALL_GC, returnByValue: true })) as { result: { value?: unknown } };
    if (ran.result.value === true) return;
  }
  await cdp.send('HeapProfiler.collectGarbage');
}
