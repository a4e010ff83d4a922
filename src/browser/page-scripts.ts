/**
 * Code that runs inside the page. Each function here is serialized by Playwright and must not
 * close over anything outside its own body.
 * @module
 */
export { installMutationClock } from './clock-scripts.js';
export { settleState, type SettleState } from './settle-scripts.js';
export { SOON_TIMER_MS } from './schedule-scripts.js';

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
  /**
   * The document's first `<meta http-equiv="refresh">`: its `content` as written and the
   * document's base URL (where it sends the browser: `refreshTarget` in `visit/urls.ts`), or
   * `null` without one.
   */
  refresh: { content: string; base: string } | null;
  /** Document content type as the browser saw it (`document.contentType`). */
  contentType: string;
  /** Navigation Timing values (ms from navigation start), `null` where not reached. */
  nav: { ttfb: number | null; domContentLoaded: number | null; load: number | null };
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
 * `installMutationClock` ran, or that `registerClosedRoots` (`closed-roots.ts`) found declared in
 * the HTML; `<template>` content counts once the page stamps it into the
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
  const refreshContent = document.querySelector('meta[http-equiv="refresh" i]')?.getAttribute('content');
  const navEntry = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  const pos = (n: number | undefined): number | null => (n && n > 0 ? Math.round(n) : null);
  return {
    // MAX_TITLE_CHARS (model/record.ts): a 5 MB title is not carried out of the page.
    title: (document.title ?? '').trim().slice(0, 1000).trimEnd(),
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
    refresh: refreshContent == null ? null : { content: refreshContent, base: document.baseURI },
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
