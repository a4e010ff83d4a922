/**
 * Code that runs inside the page. Each function here is serialized by Playwright and must not
 * close over anything outside its own body.
 * @module
 */

/** A link as read from the live DOM, before the link pipeline. */
export interface RawLink {
  /** `a.href` / `area.href`: already resolved by the browser against `document.baseURI`. */
  href: string;
  /**
   * Anchor text, whitespace-collapsed, at most 200 characters: the text content, else
   * `aria-label`, else the alt text of the images inside (an `<area>`'s own alt), else `title`.
   */
  text: string;
  /** `true` when the anchor sits inside a shadow root. */
  inShadow: boolean;
  /** The `rel` attribute, lowercased (e.g. `nofollow`). */
  rel: string;
}

/** What one extraction pass returns. */
export interface ExtractResult {
  title: string;
  links: RawLink[];
  /**
   * The `src` of every `<iframe>` and `<frame>` (resolved, `http:`/`https:` only), in the
   * document and its shadow roots. An empty `src` (the frame stays `about:blank`) and the `src` of
   * an `<iframe>` with `srcdoc` (never loaded) are left out.
   */
  frameSrcs: RawLink[];
  /** The document's origin (`self.origin`): `"null"` for an opaque origin (a sandboxed frame). */
  origin: string;
  /**
   * `true` when there is nothing rendered: no doctype, and `<head>` and `<body>` hold nothing but
   * whitespace. What an empty response body (an empty 200, a 3xx without `Location`) parses into.
   */
  empty: boolean;
  /** `document.baseURI` at extraction time. */
  baseURI: string;
  /** `location.href` at extraction time. */
  href: string;
  /** Title and visible text, lowercased and whitespace-collapsed, at most 20000 characters. */
  text: string;
  /** First `<h1>`'s text, trimmed. */
  h1: string;
  /** Number of `<h1>` elements. */
  h1Count: number;
  /** Texts of the headings (`h1`–`h6`, `[role=heading]`) in document order, at most 10, each at most 200 characters. */
  headings: string[];
  /** `<meta name="description">` content, or `null`. */
  description: string | null;
  /** `<link rel="canonical">` href, resolved, or `null`. */
  canonical: string | null;
  /**
   * Every `<meta name content>` tag (at most 50, content cut at 500 characters), name and
   * content as written: robots rules are read per name from these (`robots` is general, a
   * crawler's name is that crawler's; see `robotsRulesFor`).
   */
  robotsMeta: { name: string; content: string }[];
  /** URLs the page tried to open with `window.open` (resolved). */
  opened: string[];
  /** Document content type as the browser saw it (`document.contentType`). */
  contentType: string;
  /** Navigation Timing values (ms from navigation start), `null` where not reached. */
  nav: { ttfb: number | null; domContentLoaded: number | null; load: number | null };
}

/**
 * Timers due within this many ms (and intervals at most this long) count as work the page has
 * scheduled: while one is pending, a page is not settled early (see {@link settleState}).
 */
export const SOON_TIMER_MS = 1000;

/**
 * Init script, run in every frame before the page's own scripts: records the time of the
 * last DOM mutation (including inside shadow roots attached later) on `window.__spacrawl`;
 * counts the work the page has scheduled soon (`setTimeout` due within {@link SOON_TIMER_MS},
 * `setInterval` of at most that period until cleared, `requestAnimationFrame`,
 * `requestIdleCallback`, and `MessageChannel` messages not yet handled); counts fetch() body
 * reads in progress; counts clicks on
 * `download` links (their request is the browser's, not the page's, so the network tracking
 * does not see it); and replaces `window.open` so popups are recorded as links instead of
 * opened.
 */
export function installMutationClock(): void {
  const w = window as unknown as { __spacrawl?: object };
  if (w.__spacrawl) return;
  const state = {
    last: performance.now(),
    opened: [] as string[],
    pending: new Set<{ kind: string; id: unknown }>(),
    downloadClicks: 0,
    downloadAt: 0,
    messages: { posted: 0, handled: 0 },
    bodyReads: 0,
    closedRoots: new WeakMap<Element, ShadowRoot>(),
  };
  w.__spacrawl = state;
  window.addEventListener(
    'click',
    (e) => {
      const t = e.target as Element | null;
      const link = t && typeof t.closest === 'function' ? t.closest('a[download][href], area[download][href]') : null;
      if (link) {
        state.downloadClicks++;
        state.downloadAt = performance.now();
      }
    },
    true,
  );
  // Same value as SOON_TIMER_MS (an init script cannot refer to module constants).
  const soon = 1000;
  const pending = state.pending;
  type Fn = (...a: unknown[]) => unknown;
  const win = window as unknown as Record<string, Fn | undefined>;
  const track = (kind: string, setName: string, clearName: string, isSoon: (rest: unknown[]) => boolean, once: boolean): void => {
    const set = win[setName]?.bind(window);
    const clear = win[clearName]?.bind(window);
    if (!set || !clear) return;
    win[setName] = function (handler: unknown, ...rest: unknown[]): unknown {
      if (typeof handler !== 'function' || !isSoon(rest)) return set(handler, ...rest);
      const key = { kind, id: undefined as unknown };
      key.id = set(function (this: unknown, ...a: unknown[]): unknown {
        if (once) pending.delete(key);
        return (handler as Fn).apply(this, a);
      }, ...rest);
      pending.add(key);
      return key.id;
    };
    win[clearName] = function (id: unknown): unknown {
      for (const k of pending) if (k.kind === kind && k.id === id) pending.delete(k);
      return clear(id);
    };
  };
  const soonDelay = (rest: unknown[]): boolean => (Number(rest[0]) || 0) <= soon;
  track('timeout', 'setTimeout', 'clearTimeout', soonDelay, true);
  track('interval', 'setInterval', 'clearInterval', soonDelay, false);
  track('raf', 'requestAnimationFrame', 'cancelAnimationFrame', () => true, true);
  track('idle', 'requestIdleCallback', 'cancelIdleCallback', () => true, true);
  // Messages posted through a MessageChannel and not yet handled: schedulers (React's among
  // them) chain work slices this way, with no timer, request or DOM change in between. A message
  // handled elsewhere (a worker, another frame) keeps its count: no early settle on that page.
  const messages = { posted: 0, handled: 0 };
  state.messages = messages;
  const Port = window.MessagePort?.prototype;
  if (Port) {
    const post = Port.postMessage;
    Port.postMessage = function postMessage(this: MessagePort, ...a: unknown[]): void {
      messages.posted++;
      return (post as (...x: unknown[]) => void).apply(this, a);
    };
    // One wrapper per handler, so removeEventListener and the onmessage getter still see the
    // page's own functions.
    const wrappers = new WeakMap<object, (...x: unknown[]) => unknown>();
    const handled = (fn: (...x: unknown[]) => unknown): ((...x: unknown[]) => unknown) => {
      let w = wrappers.get(fn);
      if (!w) {
        w = function (this: unknown, ...a: unknown[]): unknown {
          messages.handled++;
          return fn.apply(this, a);
        };
        wrappers.set(fn, w);
      }
      return w;
    };
    const onmessage = Object.getOwnPropertyDescriptor(Port, 'onmessage');
    if (onmessage?.set && onmessage.get) {
      const set = onmessage.set;
      const own = new WeakMap<MessagePort, unknown>();
      Object.defineProperty(Port, 'onmessage', {
        configurable: true,
        enumerable: onmessage.enumerable,
        get(this: MessagePort) {
          return own.has(this) ? own.get(this) : onmessage.get!.call(this);
        },
        set(this: MessagePort, fn: unknown) {
          own.set(this, fn);
          set.call(this, typeof fn === 'function' ? handled(fn as (...x: unknown[]) => unknown) : fn);
        },
      });
    }
    const add = Port.addEventListener;
    const remove = Port.removeEventListener;
    const listener = (type: string, fn: unknown): unknown => (type === 'message' && typeof fn === 'function' ? handled(fn as (...x: unknown[]) => unknown) : fn);
    Port.addEventListener = function addEventListener(this: MessagePort, type: string, fn: unknown, ...rest: unknown[]): void {
      return (add as (...x: unknown[]) => void).call(this, type, listener(type, fn), ...rest);
    };
    Port.removeEventListener = function removeEventListener(this: MessagePort, type: string, fn: unknown, ...rest: unknown[]): void {
      return (remove as (...x: unknown[]) => void).call(this, type, listener(type, fn), ...rest);
    };
  }
  // Reads of fetch() response bodies: a body method (json(), text() …) until its promise
  // settles, and a body stream once taken (the page reads it at its own pace). A response whose
  // body the page never asks for is not waited for (see visitPage).
  const Resp = window.Response?.prototype as unknown as Record<string, Fn> | undefined;
  if (Resp) {
    for (const name of ['json', 'text', 'arrayBuffer', 'blob', 'formData', 'bytes']) {
      const read = Resp[name];
      if (typeof read !== 'function') continue;
      Resp[name] = function (this: unknown, ...a: unknown[]): unknown {
        const out = read.apply(this, a);
        if (out instanceof Promise) {
          state.bodyReads++;
          const done = (): void => {
            state.bodyReads--;
          };
          out.then(done, done);
        }
        return out;
      };
    }
    const body = Object.getOwnPropertyDescriptor(Resp, 'body');
    if (body?.get) {
      const get = body.get;
      const taken = new WeakSet<object>();
      Object.defineProperty(Resp, 'body', {
        configurable: true,
        enumerable: body.enumerable,
        get(this: object) {
          if (!taken.has(this)) {
            taken.add(this);
            state.bodyReads++;
          }
          return get.call(this);
        },
      });
    }
  }
  const mark = (): void => {
    state.last = performance.now();
  };
  const observe = (node: Node): void => {
    try {
      new MutationObserver(mark).observe(node, { subtree: true, childList: true, attributes: true, characterData: true });
    } catch {
      // nodes that cannot be observed are ignored
    }
  };
  observe(document);
  // Popups are not opened: their URL is kept as a link of this page instead.
  window.open = function open(url?: string | URL): null {
    try {
      if (url !== undefined && String(url) !== '' && state.opened.length < 100) state.opened.push(new URL(String(url), document.baseURI).href);
    } catch {
      // an unparsable URL opens nothing
    }
    return null;
  };
  const original = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function attachShadow(this: Element, init: ShadowRootInit): ShadowRoot {
    const root = original.call(this, init);
    // A closed root is out of the page's reach (`el.shadowRoot` is null) but not of a person's:
    // kept so that extractPage reads its links too.
    if (init?.mode === 'closed') state.closedRoots.set(this, root);
    observe(root);
    mark();
    return root;
  };
}

/** What {@link settleState} reads from a page. Times in ms. */
export interface SettleState {
  /** The load event has fired. */
  loaded: boolean;
  /** Time since the last DOM mutation (0 when the clock is missing). */
  quietForMs: number;
  /** Timers, intervals, animation frames, idle callbacks and channel messages scheduled soon. */
  scheduled: number;
  /** Clicks on `download` links so far. */
  downloadClicks: number;
  /** Time since the last such click (`Infinity` for none). */
  sinceDownloadClickMs: number;
  /** fetch() body reads in progress, body streams taken included (1 when unknown). */
  bodyReads: number;
  /** WebSockets and EventSources still awaiting their first message (see `installStreamWatch`; 0 when unknown). */
  awaitingMessages: number;
}

/**
 * The page's settle state (see {@link SettleState}), from the clock and counters
 * {@link installMutationClock} keeps.
 */
export function settleState(): SettleState {
  const w = window as unknown as {
    __spacrawl?: { last: number; pending?: Set<unknown>; downloadClicks?: number; downloadAt?: number; messages?: { posted: number; handled: number }; bodyReads?: number };
    __spacrawlStreams?: { awaiting: number };
  };
  const s = w.__spacrawl;
  const unhandledMessages = s?.messages ? Math.max(0, s.messages.posted - s.messages.handled) : 0;
  return {
    loaded: document.readyState === 'complete',
    quietForMs: s ? performance.now() - s.last : 0,
    // Unknown (no clock installed) counts as scheduled work: no early settle.
    scheduled: s?.pending ? s.pending.size + unhandledMessages : 1,
    downloadClicks: s?.downloadClicks ?? 0,
    sinceDownloadClickMs: s?.downloadAt ? performance.now() - s.downloadAt : Infinity,
    bodyReads: s?.bodyReads ?? 1,
    awaitingMessages: w.__spacrawlStreams?.awaiting ?? 0,
  };
}

/**
 * Read title, links (in the document and every shadow root, light DOM first), frame sources and
 * timing from the live DOM. Links are what a person can click to navigate:
 * - `<a href>` and `<area href>`, resolved by the browser (`HTMLAnchorElement.href` honours
 *   `<base href>`)
 * - SVG `<a>` with `href` or the older `xlink:href` (SVG 2 §16.3: `href` wins), resolved against
 *   the element's base URL
 *
 * A `data:` href is not a link: browsers refuse to navigate a top-level page to `data:` URLs.
 * Shadow roots are the open ones and the closed ones the page attached after
 * {@link installMutationClock} ran; `<template>` content counts once the page stamps it into the
 * document. What only loads a resource (`<use>`, `<image>`, `<link>`, `<script>`, `srcset`) is
 * not a link.
 */
export function extractPage(): ExtractResult {
  const links: ExtractResult['links'] = [];
  const frameSrcs: ExtractResult['frameSrcs'] = [];
  const SVG = 'http://www.w3.org/2000/svg';
  const XLINK = 'http://www.w3.org/1999/xlink';
  const closedRoots = (window as unknown as { __spacrawl?: { closedRoots?: WeakMap<Element, ShadowRoot> } }).__spacrawl?.closedRoots;
  // A link's text: its text content, else what names it without text (aria-label; the alt text of
  // the images it holds, or an <area>'s own alt, as for its accessible name), else its title.
  const altsOf = (el: Element): string =>
    [el, ...Array.from(el.querySelectorAll('img[alt], input[type="image"][alt]'))]
      .map((x) => (x === el && el.localName !== 'area' ? '' : (x.getAttribute('alt') ?? '')).trim())
      .filter(Boolean)
      .join(' ');
  const textOf = (el: Element): string => {
    const t = (el.textContent ?? '').replace(/\s+/g, ' ').trim() || el.getAttribute('aria-label') || altsOf(el).replace(/\s+/g, ' ') || el.getAttribute('title') || '';
    return t.length > 200 ? t.slice(0, 200) : t;
  };
  const hrefOf = (el: Element): string | null => {
    const own = (el as unknown as { href?: unknown }).href;
    if (typeof own === 'string') return el.hasAttribute('href') ? own : null;
    if (el.namespaceURI !== SVG) return null;
    // `xlink:href` as the HTML parser namespaces it, or as a script set it without a namespace.
    const raw = el.getAttribute('href') ?? el.getAttributeNS(XLINK, 'href') ?? el.getAttribute('xlink:href');
    if (raw === null) return null;
    try {
      return new URL(raw, el.baseURI).href;
    } catch {
      return null;
    }
  };
  const visit = (root: Document | ShadowRoot, inShadow: boolean): void => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i] as Element;
      const tag = el.localName;
      if (tag === 'a' || tag === 'area') {
        const href = hrefOf(el);
        if (href && !/^data:/i.test(href)) links.push({ href, text: textOf(el), inShadow, rel: (el.getAttribute('rel') ?? '').toLowerCase() });
      } else if ((tag === 'iframe' || tag === 'frame') && (el.getAttribute('src') ?? '').trim() !== '' && !(tag === 'iframe' && el.hasAttribute('srcdoc'))) {
        const src = (el as HTMLIFrameElement).src;
        if (/^https?:/i.test(src)) frameSrcs.push({ href: src, text: textOf(el), inShadow, rel: '' });
      }
      const sr = (el as HTMLElement).shadowRoot ?? closedRoots?.get(el) ?? null;
      if (sr) visit(sr, true);
    }
  };
  visit(document, false);
  const navEntry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const pos = (n: number | undefined): number | null => (n && n > 0 ? Math.round(n) : null);
  return {
    title: (document.title ?? '').trim(),
    links,
    frameSrcs,
    origin: self.origin,
    empty:
      document.doctype === null &&
      (document.head === null || document.head.childNodes.length === 0) &&
      (document.body === null || (document.body.children.length === 0 && (document.body.textContent ?? '').trim() === '')),
    text: `${document.title} ${document.body ? document.body.innerText : ''}`.toLowerCase().replace(/\s+/g, ' ').trim().slice(0, 20000),
    h1: (document.querySelector('h1')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
    h1Count: document.querySelectorAll('h1').length,
    headings: Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]'))
      .slice(0, 10)
      .map((h) => (h.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 200)),
    description: document.querySelector('meta[name="description" i]')?.getAttribute('content') ?? null,
    canonical: (document.querySelector('link[rel~="canonical" i]') as HTMLLinkElement | null)?.href || null,
    robotsMeta: Array.from(document.querySelectorAll('meta[name]'))
      .slice(0, 50)
      .map((m) => ({ name: m.getAttribute('name') ?? '', content: (m.getAttribute('content') ?? '').slice(0, 500) })),
    opened: [...((window as unknown as { __spacrawl?: { opened: string[] } }).__spacrawl?.opened ?? [])],
    baseURI: document.baseURI,
    href: location.href,
    contentType: document.contentType,
    nav: {
      ttfb: pos(navEntry?.responseStart),
      domContentLoaded: pos(navEntry?.domContentLoadedEventEnd),
      load: pos(navEntry?.loadEventEnd),
    },
  };
}

/**
 * What a `#fragment` link may point to (`--check-fragments`), as the HTML standard's "indicated
 * part of the document" defines it: the `id` of any element, and the `name` of `<a>` elements
 * (not of `<meta>` or form fields), in the document (not in shadow roots or frames, which a
 * fragment cannot reach). Each once, in document order, at most `max`.
 */
export function readAnchors(max: number): string[] {
  const seen = new Set<string>();
  const all = document.querySelectorAll('[id], a[name]');
  for (let i = 0; i < all.length && seen.size < max; i++) {
    const el = all[i] as Element;
    const id = el.getAttribute('id');
    if (id) seen.add(id);
    const name = el.getAttribute('name');
    if (name && seen.size < max) seen.add(name);
  }
  return [...seen];
}
