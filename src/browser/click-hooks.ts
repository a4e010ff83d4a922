/**
 * In-page hooks of click discovery, apart from the scan and the click (`click-scripts.ts`): the
 * init script that remembers which elements a script gave a listener, the navigation recorder a
 * page gets before its first click, and the small reads and undo the click loop calls into the
 * page (navigations, mutation clock, history). Each function is serialized by Playwright and must
 * not close over anything outside its own body.
 * @module
 */
import type { NativeConstructors } from './native-scripts.js';

/**
 * Install the navigation recorder used while exploring clicks: `history.pushState` and
 * `replaceState` still run (the app expects them), but every URL they set is recorded on
 * `window.__spacrawlNav`, as are hash changes. Every navigation the document starts (the
 * Navigation API's `navigate` event: a link followed, a `location` change, a form sent, a history
 * or hash change; HTML "navigate" fires it before the navigation goes anywhere) is counted on
 * `window.__spacrawlNavigates`, which stays unset in a browser without the API.
 *
 * A form of the document sent by POST into a new window (`target="_blank"`, or a name no frame of
 * the document has; by `form.submit()`, `requestSubmit()` or its submit button) is not sent: it
 * would load in a popup, whose requests the page's request guard (see `exploreClicks`) never sees.
 * Into the page itself or one of its frames it is sent, and the guard refuses it.
 */
export function recordNavigations(): void {
  const w = window as unknown as { __spacrawlNav?: string[]; __spacrawlNavHooked?: boolean; __spacrawlNavigates?: number; navigation?: EventTarget };
  w.__spacrawlNav = [];
  if (w.__spacrawlNavHooked) return;
  w.__spacrawlNavHooked = true;
  const intoNewWindow = (form: HTMLFormElement, submitter: HTMLElement | null): boolean => {
    const attr = (name: string): string | null => (submitter?.hasAttribute(`form${name}`) ? submitter.getAttribute(`form${name}`) : form.getAttribute(name));
    if ((attr('method') ?? '').trim().toLowerCase() !== 'post') return false;
    const target = (attr('target') ?? document.querySelector('base[target]')?.getAttribute('target') ?? '').trim();
    const lower = target.toLowerCase();
    if (lower === '' || lower === '_self' || lower === '_parent' || lower === '_top') return false;
    if (lower === '_blank') return true;
    return ![...document.querySelectorAll('iframe, frame')].some((f) => f.getAttribute('name') === target);
  };
  const send = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function submit(this: HTMLFormElement): void {
    if (!intoNewWindow(this, null)) send.call(this);
  };
  window.addEventListener(
    'submit',
    (e) => {
      if (e.target instanceof HTMLFormElement && intoNewWindow(e.target, (e as SubmitEvent).submitter)) e.preventDefault();
    },
    true,
  );
  if (w.navigation && typeof w.navigation.addEventListener === 'function') {
    w.__spacrawlNavigates = 0;
    w.navigation.addEventListener('navigate', () => {
      w.__spacrawlNavigates = (w.__spacrawlNavigates ?? 0) + 1;
    });
  }
  const note = (u: string | URL | null | undefined): void => {
    if (u === null || u === undefined) return;
    try {
      w.__spacrawlNav?.push(new URL(String(u), document.baseURI).href);
    } catch {
      // not a URL
    }
  };
  const push = history.pushState.bind(history);
  const replace = history.replaceState.bind(history);
  history.pushState = (data: unknown, unused: string, url?: string | URL | null) => {
    note(url);
    push(data, unused, url);
  };
  history.replaceState = (data: unknown, unused: string, url?: string | URL | null) => {
    note(url);
    replace(data, unused, url);
  };
  window.addEventListener('hashchange', () => note(location.href));
}

/**
 * Init script: remembers the elements a script gives a `click` listener with `addEventListener`
 * (a card or a table row that navigates, with no role, pointer or `onclick` to show it), on a
 * hidden `window.__spacrawlClickListeners` (a `WeakSet`) that `scanClickables` (`click-scripts.ts`) reads, and
 * those given a hover listener (`mouseenter`, `mouseover`, `pointerenter`, `pointerover`: a hover
 * card, a menu that opens on hover, jQuery's `.hover()`) on `window.__spacrawlHoverListeners`,
 * and those given a `change` or `input` listener (a jump menu, a filter) on
 * `window.__spacrawlChangeListeners`. The press listeners themselves (`click`, `mousedown`,
 * `pointerdown`, at most 20 a target) of elements, the document and the window are kept on
 * `window.__spacrawlPressListeners` (a `WeakMap`): one on an ancestor that handles its
 * descendants' clicks (delegation) names them only in its code, where `scanClickables`
 * reads the selectors it tests the target with.
 */
export function installClickListenerWatch(): void {
  if (Object.prototype.hasOwnProperty.call(window, '__spacrawlClickListeners')) return;
  const seen = new WeakSet<EventTarget>();
  const hovered = new WeakSet<EventTarget>();
  Object.defineProperty(window, '__spacrawlClickListeners', { value: seen, enumerable: false });
  Object.defineProperty(window, '__spacrawlHoverListeners', { value: hovered, enumerable: false });
  const changed = new WeakSet<EventTarget>();
  Object.defineProperty(window, '__spacrawlChangeListeners', { value: changed, enumerable: false });
  const pressed = new WeakMap<EventTarget, unknown[]>();
  Object.defineProperty(window, '__spacrawlPressListeners', { value: pressed, enumerable: false });
  const PRESS = new Set(['click', 'mousedown', 'pointerdown']);
  const HOVER = new Set(['mouseenter', 'mouseover', 'pointerenter', 'pointerover']);
  const proto = EventTarget.prototype;
  const add = proto.addEventListener;
  // Kept now, before the page's scripts: a library may put its own `Element` on the window.
  const ElementType = Element;
  const DocumentType = Document;
  proto.addEventListener = function addEventListener(this: EventTarget, type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
    const set = type === 'click' ? seen : HOVER.has(type) ? hovered : type === 'change' || type === 'input' ? changed : null;
    if (set && listener && this instanceof ElementType) set.add(this);
    if (listener && PRESS.has(type) && (this instanceof ElementType || this instanceof DocumentType || this === window)) {
      const list = pressed.get(this);
      if (!list) pressed.set(this, [listener]);
      else if (list.length < 20) list.push(listener);
    }
    add.call(this, type, listener, options);
  };
}

/** URLs recorded by {@link recordNavigations} since the last call (the list is emptied). */
export function takeNavigations(): string[] {
  const w = window as unknown as { __spacrawlNav?: string[] };
  const out = w.__spacrawlNav ?? [];
  w.__spacrawlNav = [];
  return out;
}

/**
 * Forget the URLs recorded by {@link recordNavigations} (the list is emptied), and return the
 * document's URL (`page.url()` may lag behind a navigation that made no request, to `about:blank`).
 */
export function clearNavigations(): string {
  (window as unknown as { __spacrawlNav?: string[] }).__spacrawlNav = [];
  return location.href;
}

/** When the DOM last changed (`performance.now()` of the mutation clock, see `installMutationClock`; 0 without it). */
export function lastMutation(): number {
  return (window as unknown as { __spacrawl?: { last: number } }).__spacrawl?.last ?? 0;
}

/** `history.length` (a click that pushed an entry is undone with `history.back()`). */
export function historyLength(): number {
  return history.length;
}

/**
 * Undo a click's `history.replaceState` to another URL (no entry to go back to): put `url` back
 * and tell the app's router as a back button would: a `popstate` event, then, when only the
 * fragment differs, a `hashchange` event. A router that reads the hash on `hashchange` alone
 * (reveal.js' slides, many hash routers) otherwise keeps showing the click's target under the
 * restored URL, and the page's next clicks start from there.
 */
export function replaceUrlBack(url: string): void {
  const oldURL = location.href;
  const N = ((window as unknown as { __spacrawlNatives?: NativeConstructors }).__spacrawlNatives ?? window) as unknown as NativeConstructors;
  history.replaceState(history.state, '', url);
  window.dispatchEvent(new N.PopStateEvent('popstate', { state: history.state }));
  const newURL = location.href;
  if (oldURL !== newURL && oldURL.split('#')[0] === newURL.split('#')[0]) window.dispatchEvent(new N.HashChangeEvent('hashchange', { oldURL, newURL }));
}
