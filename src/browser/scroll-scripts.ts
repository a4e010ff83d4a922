/**
 * In-page code for scroll discovery (`--scroll`). Each function is serialized by Playwright and
 * must not close over anything outside its own body.
 * @module
 */

/** One scroll area as {@link scrollAreaStep} saw it. Lengths in CSS pixels. */
export interface ScrollAreaStep {
  /** The area is gone from the document (an inner container that was removed). */
  gone: boolean;
  /** How far this step moved the area (0 when it was at its end already). */
  moved: number;
  /** `scrollHeight` after the step. */
  height: number;
  /** `true` when the area shows its last pixel. */
  atEnd: boolean;
}

/**
 * Find the inner scroll containers of the page: visible elements with `overflow-y` `auto`,
 * `scroll` or `overlay` whose content is taller than they are (by more than 16 px) and that
 * are at least 32 px high — virtualized lists and feeds that scroll inside a box instead of the
 * window. The largest (by visible area) come first, at most `max`; they are kept on
 * `window.__spacrawlScrollAreas` for {@link scrollAreaStep}. Open shadow roots are searched too.
 * @returns how many were found
 */
export function findScrollAreas(max: number): number {
  const found: { el: Element; area: number }[] = [];
  const walk = (root: Document | ShadowRoot): void => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i] as HTMLElement;
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el === document.documentElement || el === document.body) continue;
      if (el.scrollHeight <= el.clientHeight + 16 || el.clientHeight < 32) continue;
      const oy = getComputedStyle(el).overflowY;
      if (oy !== 'auto' && oy !== 'scroll' && oy !== 'overlay') continue;
      const r = el.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) continue;
      found.push({ el, area: el.clientWidth * el.clientHeight });
    }
  };
  walk(document);
  found.sort((a, b) => b.area - a.area);
  const kept = found.slice(0, max).map((f) => f.el);
  (window as unknown as { __spacrawlScrollAreas?: Element[] }).__spacrawlScrollAreas = kept;
  return kept.length;
}

/**
 * Scroll one area down by 90 % of its height (so consecutive views overlap and no row of a
 * virtualized list is skipped), instantly (a page's `scroll-behavior: smooth` is overridden).
 * @param index - `-1` for the window, else an index into the last {@link findScrollAreas}
 */
export function scrollAreaStep(index: number): ScrollAreaStep {
  const el = index < 0 ? document.scrollingElement ?? document.documentElement : (window as unknown as { __spacrawlScrollAreas?: Element[] }).__spacrawlScrollAreas?.[index];
  if (!el || !el.isConnected) return { gone: true, moved: 0, height: 0, atEnd: true };
  const view = index < 0 ? window.innerHeight : el.clientHeight;
  const before = el.scrollTop;
  el.scrollTo({ top: before + Math.max(1, Math.floor(view * 0.9)), behavior: 'instant' as ScrollBehavior });
  const after = el.scrollTop;
  return { gone: false, moved: after - before, height: el.scrollHeight, atEnd: after + view >= el.scrollHeight - 2 };
}

/** What the page says about loading, for {@link scrollAreaStep}'s caller. Times in ms, lengths in CSS pixels. */
export interface ScrollPageState {
  /** Some element has `aria-busy="true"` (the page says it is loading). */
  busy: boolean;
  /** Time since the last DOM mutation (from the mutation clock; 0 when it is missing). */
  quietForMs: number;
  /** `scrollHeight` of the area (0 when it is gone). */
  height: number;
}

/**
 * Read {@link ScrollPageState}.
 * @param index - the scroll area, as for {@link scrollAreaStep}
 */
export function scrollPageState(index: number): ScrollPageState {
  const s = (window as unknown as { __spacrawl?: { last: number } }).__spacrawl;
  const el = index < 0 ? document.scrollingElement ?? document.documentElement : (window as unknown as { __spacrawlScrollAreas?: Element[] }).__spacrawlScrollAreas?.[index];
  return {
    busy: document.querySelector('[aria-busy="true"]') !== null,
    quietForMs: s ? performance.now() - s.last : 0,
    height: el && el.isConnected ? el.scrollHeight : 0,
  };
}

/**
 * Resolve once the page has rendered two frames, or after `maxMs` when it renders none (a page
 * the browser does not paint). A scroll's `scroll` events are dispatched in the next frame, not
 * when `scrollTop` changes, and the intersection observers it affects are notified after that
 * frame: a list that renders its rows from either has done so by the second frame. Frames come
 * late when the renderer is busy: the tabs of one context share a renderer process, and with
 * another tab loading, a scrolled box drew its rows up to ~500 ms after the step (every second
 * step's rows were never read).
 * @returns `true` when two frames ran, `false` at `maxMs`
 */
export function afterTwoFrames(maxMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), maxMs);
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve(true);
      }),
    );
  });
}
