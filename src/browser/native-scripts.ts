/**
 * The browser's own constructors for spacrawl's scripts in a page, kept before the page's scripts
 * run. spacrawl's in-page code (its click presses, its history restore, its listener watch) runs
 * in the page's main world and names globals such as `Event`, `MouseEvent` or `Element` when it
 * runs, long after the page's own scripts have: a page may have put its own there. MooTools 1.2
 * and 1.3 (still shipped by older Joomla sites) replace `window.Event` with a wrapper of their
 * own, so `new Event('change')` gave no event and the press of a `<select>` threw; a library that
 * replaces `window.Element` made `instanceof Element` false for every element.
 * @module
 */

/** The hidden global (non-enumerable, non-writable, non-configurable) under which {@link installNativeConstructors} keeps them. */
export const NATIVES_GLOBAL = '__spacrawlNatives';

/** The constructors kept (see {@link installNativeConstructors}), by their global names. */
export interface NativeConstructors {
  Event: typeof Event;
  MouseEvent: typeof MouseEvent;
  PointerEvent: typeof PointerEvent;
  PopStateEvent: typeof PopStateEvent;
  HashChangeEvent: typeof HashChangeEvent;
  Element: typeof Element;
  HTMLElement: typeof HTMLElement;
}

/**
 * Init script, run in every frame before the page's own scripts (first of spacrawl's): keeps the
 * browser's event and element constructors on a frozen object under {@link NATIVES_GLOBAL}, which
 * the page can neither replace nor see in `for … in window`. In-page functions read them with
 * `window.__spacrawlNatives ?? window` (a document without the script has only the page's).
 */
export function installNativeConstructors(): void {
  if (Object.prototype.hasOwnProperty.call(window, '__spacrawlNatives')) return;
  const natives = Object.freeze({ Event, MouseEvent, PointerEvent, PopStateEvent, HashChangeEvent, Element, HTMLElement });
  Object.defineProperty(window, '__spacrawlNatives', { value: natives, enumerable: false, writable: false, configurable: false });
}
