/**
 * In-page code of the screenshot stage. Each function is serialized by Playwright and must not
 * close over anything outside its own body.
 * @module
 */
import type { NativeConstructors } from '../native-scripts.js';

/** Width and height (CSS px) of the whole document, measured as Playwright measures a full-page shot. */
export interface DocumentSize {
  width: number;
  height: number;
}

/**
 * The document's size, by the formula of Playwright's full-page screenshot (the largest of the
 * scroll, offset and client sizes of `<html>` and `<body>`).
 * @param style - a style sheet the shot will apply (measured with it in place, then removed), or `null`
 */
export function documentSize(style: string | null): DocumentSize {
  const b = document.body;
  const d = document.documentElement;
  if (!b || !d) return { width: 0, height: 0 };
  const sheet = style ? document.createElement('style') : null;
  if (sheet) {
    sheet.textContent = style;
    d.append(sheet);
  }
  try {
    return {
      width: Math.max(b.scrollWidth, d.scrollWidth, b.offsetWidth, d.offsetWidth, b.clientWidth, d.clientWidth),
      height: Math.max(b.scrollHeight, d.scrollHeight, b.offsetHeight, d.offsetHeight, b.clientHeight, d.clientHeight),
    };
  } finally {
    sheet?.remove();
  }
}

/** Attribute marking the panel a page scrolls in (see {@link prepareFullPage}); its ancestors get {@link PANEL_ANCESTOR_ATTR}. */
export const PANEL_ATTR = 'data-spacrawl-shot-panel';
/** Attribute marking the ancestors of the {@link PANEL_ATTR} panel. */
export const PANEL_ANCESTOR_ATTR = 'data-spacrawl-shot-panel-ancestor';

/** What {@link prepareFullPage} did. */
export interface FullPagePrep {
  /** Scroll steps taken (0 for a page no taller than its view). */
  steps: number;
  /** `true` when the page scrolls inside a panel, which is marked for the shot's style (see `panelStyle`). */
  panel: boolean;
}

/**
 * Get a page ready for a full-page shot. The scroller is the window, or, for an app whose
 * document does not scroll (`html, body { height: 100%; overflow: hidden }`) but whose content
 * scrolls in a panel, that panel: the largest inner scroll area (`findScrollAreas` of
 * `scroll-scripts.ts`, called with 1 just before, keeps it on `window.__spacrawlScrollAreas`)
 * when it covers at least a quarter of the viewport. The panel and its ancestors are marked ({@link PANEL_ATTR},
 * {@link PANEL_ANCESTOR_ATTR}) so that the shot's style lets them grow to their content:
 * otherwise a full-page shot of such an app is its first screen.
 *
 * The scroller is then scrolled down to `maxY` (CSS px; or its end) one view at a time,
 * waiting after each step until the page has rendered two frames (at most `frameMs`): the
 * intersection observers a step affects are notified after its frame, so lazy loaders that
 * watch for an element to come into view (`data-src` images, "reveal on scroll" sections)
 * start their loads. Then back to the top, where the shot starts. A full-page shot paints the
 * whole page without scrolling, so without this walk those parts stayed empty.
 */
export async function prepareFullPage({ maxY, frameMs }: { maxY: number; frameMs: number }): Promise<FullPagePrep> {
  const panelAttr = 'data-spacrawl-shot-panel';
  const ancestorAttr = 'data-spacrawl-shot-panel-ancestor';
  const root = document.scrollingElement ?? document.documentElement;
  let el: Element = root;
  let view = Math.max(1, window.innerHeight);
  let panel = false;
  const largest = (window as unknown as { __spacrawlScrollAreas?: Element[] }).__spacrawlScrollAreas?.[0];
  const HTMLElementType = ((window as unknown as { __spacrawlNatives?: NativeConstructors }).__spacrawlNatives ?? window).HTMLElement;
  if (root.scrollHeight <= window.innerHeight + 1 && largest instanceof HTMLElementType && largest.isConnected) {
    const r = largest.getBoundingClientRect();
    const visible = Math.max(0, Math.min(r.right, window.innerWidth) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, window.innerHeight) - Math.max(r.top, 0));
    if (visible >= (window.innerWidth * window.innerHeight) / 4) {
      el = largest;
      view = Math.max(1, largest.clientHeight);
      panel = true;
      largest.setAttribute(panelAttr, '');
      for (let a = largest.parentElement; a; a = a.parentElement) a.setAttribute(ancestorAttr, '');
    }
  }
  const frames = (): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, frameMs);
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          clearTimeout(timer);
          resolve();
        }),
      );
    });
  let steps = 0;
  while (el.scrollTop + view < Math.min(el.scrollHeight, maxY) - 1) {
    const before = el.scrollTop;
    el.scrollTo({ top: before + view, behavior: 'instant' as ScrollBehavior });
    steps++;
    await frames();
    if (el.scrollTop <= before) break;
  }
  if (steps > 0 || el.scrollTop !== 0) {
    el.scrollTo({ top: 0, behavior: 'instant' as ScrollBehavior });
    await frames();
  }
  return { steps, panel };
}

/** Remove the marks {@link prepareFullPage} set. */
export function unmarkPanel(): void {
  for (const a of ['data-spacrawl-shot-panel', 'data-spacrawl-shot-panel-ancestor']) document.querySelectorAll(`[${a}]`).forEach((e) => e.removeAttribute(a));
}
