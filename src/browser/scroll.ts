import type { Page, Request, Response } from 'playwright';
import type { ExtractResult } from './page-scripts.js';
import { DOM_READ, evaluateLibraryJson } from './page-library.js';
import { afterTwoFrames, findScrollAreas, scrollAreaStep, scrollPageState, type ScrollAreaStep, type ScrollPageState } from './scroll-scripts.js';
import { sleep, withTimeout } from './timeout.js';
import type { FoundLink, QuietProbe } from './discovery.js';

/** Options of {@link scrollForLinks}. Times in ms. */
export interface ScrollOptions {
  /** Most scroll steps per scroll area (the window, each inner scroll container). @default 30 (`--scroll-limit`) */
  maxSteps: number;
  /** Least wait after each step, for the page's scroll handlers to start their loads. @default 250 */
  stepMs: number;
  /** Longest wait after one step for what it triggered (a batch) to arrive. @default the settle cap (`--settle-timeout`) */
  batchWaitMs: number;
  /** Time budget for all scrolling on the page. */
  budgetMs: number;
}

/** Inner scroll containers scrolled per page, besides the window (the largest first). */
export const MAX_SCROLL_AREAS = 4;
/** A list counts as still growing until its scroll area's height has been unchanged this long (ms). */
const GROW_QUIET_MS = 200;
/** DOM changes count as the step's rendering only this long after the step (ms): a ticking clock must not hold every step. */
const DOM_WAIT_MS = 1_000;
/** Longest wait (ms) after a step for the page to render the two frames that dispatch its scroll events (see `afterTwoFrames`). */
const FRAME_WAIT_MS = 2_000;
/** A request whose response headers are in still counts this long while its body is read (ms). */
const BODY_WAIT_MS = 1_000;
/** Request types that bring a list's next batch (images, fonts and beacons are not waited for). */
const BATCH_TYPES = new Set(['fetch', 'xhr', 'script']);

/**
 * The requests the page started while scrolling (data requests only), for "a batch is on its
 * way". A request counts while it has no response, for at most `maxAgeMs` from its start (a long
 * poll that never answers stops counting), and for {@link BODY_WAIT_MS} after its response while
 * its body is still being read.
 */
class BatchRequests {
  private readonly open = new Map<Request, { start: number; responded: number | null }>();
  private readonly off: (() => void)[] = [];

  constructor(page: Page) {
    const onRequest = (r: Request): void => {
      if (BATCH_TYPES.has(r.resourceType())) this.open.set(r, { start: Date.now(), responded: null });
    };
    const onResponse = (resp: Response): void => {
      const o = this.open.get(resp.request());
      if (o) o.responded = Date.now();
    };
    const onDone = (r: Request): void => {
      this.open.delete(r);
    };
    page.on('request', onRequest);
    page.on('response', onResponse);
    page.on('requestfinished', onDone);
    page.on('requestfailed', onDone);
    this.off.push(
      () => page.off('request', onRequest),
      () => page.off('response', onResponse),
      () => page.off('requestfinished', onDone),
      () => page.off('requestfailed', onDone),
    );
  }

  /** Requests still on their way (see the class comment). */
  pending(maxAgeMs: number): number {
    const now = Date.now();
    let n = 0;
    for (const o of this.open.values()) {
      if (o.responded === null ? now - o.start < maxAgeMs : now - o.responded < BODY_WAIT_MS) n++;
    }
    return n;
  }

  dispose(): void {
    for (const f of this.off) f();
  }
}

/**
 * Scroll discovery (`--scroll`): scroll the window, then each inner scroll container (see
 * `findScrollAreas`), one step (90 % of a view) at a time, and read the links after every step,
 * so rows that a virtualized list mounts only while they are on screen are all collected.
 *
 * It first waits (at most `batchWaitMs`) for the page to be quiet (see `QuietProbe`). After each
 * step it waits at least `stepMs`, then, for at most `batchWaitMs`, while the page is loading
 * what the step triggered:
 * - a data request (fetch, XHR, script) started since scrolling began is still on its way;
 * - an element says `aria-busy="true"` (not for longer than `batchWaitMs` in a row);
 * - the area grew in the last 200 ms (a list still growing);
 * - within a second of the step, the DOM changed in the last 200 ms (the step's rows rendering).
 *
 * An area is done when a step no longer moves it (its end is reached), revealed no new link and
 * left nothing pending, or after `maxSteps` steps; scrolling as a whole stops at `budgetMs`.
 * @param known - hrefs already found on the page (updated; not reported again)
 * @param quiet - the visit's quiet probe (no request of the page in flight, no DOM change)
 * @returns the new links, with source `scroll`
 */
export async function scrollForLinks(page: Page, known: Set<string>, opts: ScrollOptions, quiet: QuietProbe): Promise<FoundLink[]> {
  const out: FoundLink[] = [];
  const deadline = Date.now() + opts.budgetMs;
  // What the page started before scrolling (a batch the settle did not wait for) comes first.
  const quietEnd = Date.now() + opts.batchWaitMs;
  while (Date.now() < quietEnd && !(await quiet(GROW_QUIET_MS))) await sleep(50);
  const watch = new BatchRequests(page);
  let busySince: number | null = null;
  const read = async (): Promise<number> => {
    const now = await withTimeout(evaluateLibraryJson<ExtractResult>(page, DOM_READ), 10_000, 'reading the DOM').catch(() => null);
    if (!now) return 0;
    let fresh = 0;
    for (const l of [...now.links.map((x) => ({ href: x.href, text: x.text, rel: x.rel })), ...now.opened.map((href) => ({ href, text: '', rel: '' }))]) {
      if (known.has(l.href)) continue;
      known.add(l.href);
      out.push({ href: l.href, text: l.text, source: 'scroll', rel: l.rel });
      fresh++;
    }
    return fresh;
  };
  /** After a step: wait for what it triggered; `true` when something was still pending at the cap. */
  const waitForBatch = async (index: number, heightAtStep: number): Promise<boolean> => {
    const stepped = Date.now();
    // The step's scroll events (and the observers they wake) run with the page's next frames.
    await withTimeout(page.evaluate(afterTwoFrames, FRAME_WAIT_MS), FRAME_WAIT_MS + 2_000, 'waiting for a frame').catch(() => false);
    await sleep(Math.max(0, opts.stepMs - (Date.now() - stepped)));
    const end = Math.min(deadline, stepped + opts.batchWaitMs);
    let height = heightAtStep;
    let grewAt = 0;
    for (;;) {
      const st = await withTimeout(page.evaluate(scrollPageState, index), 2_000, 'reading the page state').catch((): ScrollPageState => ({ busy: false, quietForMs: Infinity, height }));
      const now = Date.now();
      if (st.height !== height) {
        height = st.height;
        grewAt = now;
      }
      if (st.busy) busySince ??= now;
      else busySince = null;
      const pending =
        watch.pending(opts.batchWaitMs) > 0 ||
        (st.busy && now - busySince! < opts.batchWaitMs) ||
        now - grewAt < GROW_QUIET_MS ||
        (st.quietForMs < GROW_QUIET_MS && now - stepped < DOM_WAIT_MS);
      if (!pending || now >= end) return pending;
      await sleep(50);
    }
  };
  const scrollArea = async (index: number): Promise<void> => {
    for (let step = 0; step < opts.maxSteps && Date.now() < deadline; step++) {
      const s = await withTimeout(page.evaluate(scrollAreaStep, index), 2_000, 'scrolling').catch((): ScrollAreaStep => ({ gone: true, moved: 0, height: 0, atEnd: true }));
      if (s.gone) return;
      const pending = await waitForBatch(index, s.height);
      const fresh = await read();
      if (s.moved <= 0 && fresh === 0 && !pending) return;
    }
  };
  try {
    await scrollArea(-1);
    const areas = await withTimeout(page.evaluate(findScrollAreas, MAX_SCROLL_AREAS), 5_000, 'finding scroll areas').catch(() => 0);
    for (let i = 0; i < areas && Date.now() < deadline; i++) await scrollArea(i);
  } finally {
    watch.dispose();
  }
  return out;
}

/** Least wait after a scroll step (ms), see {@link ScrollOptions.stepMs}. */
export const SCROLL_STEP_MS = 250;

/**
 * Scroll options from the crawl's: `scrollLimit` steps per area, each step waiting up to the
 * settle cap (`settleTimeoutMs`, ms) for its batch, and a page budget of `scrollLimit` steps that
 * all wait that long (the window and the inner containers share it).
 */
export function scrollOptionsOf(o: { scrollLimit: number; settleTimeoutMs: number }): ScrollOptions {
  return {
    maxSteps: o.scrollLimit,
    stepMs: SCROLL_STEP_MS,
    batchWaitMs: o.settleTimeoutMs,
    budgetMs: o.scrollLimit * (SCROLL_STEP_MS + o.settleTimeoutMs) + 10_000,
  };
}
