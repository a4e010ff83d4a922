/**
 * In-page code of the screenshot stage. Each function is serialized by Playwright and must not
 * close over anything outside its own body.
 * @module
 */

/** Width and height (CSS px) of the whole document, measured as Playwright measures a full-page shot. */
export interface DocumentSize {
  width: number;
  height: number;
}

/** The document's size, by the formula of Playwright's full-page screenshot (the largest of the scroll, offset and client sizes of `<html>` and `<body>`). */
export function documentSize(): DocumentSize {
  const b = document.body;
  const d = document.documentElement;
  if (!b || !d) return { width: 0, height: 0 };
  return {
    width: Math.max(b.scrollWidth, d.scrollWidth, b.offsetWidth, d.offsetWidth, b.clientWidth, d.clientWidth),
    height: Math.max(b.scrollHeight, d.scrollHeight, b.offsetHeight, d.offsetHeight, b.clientHeight, d.clientHeight),
  };
}

/**
 * Scroll the window down to `maxY` (CSS px; or the end of the page) one viewport height at a time,
 * waiting after each step until the page has rendered two frames (at most `frameMs`): the
 * intersection observers a step affects are notified after its frame, so lazy loaders that
 * watch for an element to come into view (`data-src` images, "reveal on scroll" sections)
 * start their loads. Then back to the top, where the shot starts. A full-page shot paints the
 * whole page without scrolling, so without this walk those parts stayed empty.
 * @returns how many steps were taken (0 for a page no taller than the viewport)
 */
export async function walkWindow({ maxY, frameMs }: { maxY: number; frameMs: number }): Promise<number> {
  const el = document.scrollingElement ?? document.documentElement;
  const view = Math.max(1, window.innerHeight);
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
  return steps;
}
