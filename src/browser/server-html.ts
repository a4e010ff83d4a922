/**
 * What a client that does not run JavaScript reads from a page's HTML as the server sent it:
 * its title, its links and the length of its text. No HTML parser is a dependency of spacrawl,
 * so this is a small tokenizer written for these three questions, following the HTML standard's
 * tokenization where it matters for them: comments, doctypes and processing instructions are
 * skipped; the raw text of `<script>`, `<style>`, `<xmp>`, `<iframe>`, `<noembed>` and
 * `<noframes>` is skipped up to its end tag; `<title>` and `<textarea>` are text up to their end
 * tag; attribute values may be double-quoted, single-quoted or bare; character references are
 * decoded (numeric ones, and the named ones pages use in titles). `<template>` content is not
 * read (it is not rendered), except a declarative shadow root's (`shadowrootmode`). `<noscript>`
 * is read as a browser without scripts reads it (its links count) but its text does not: it is
 * the "enable JavaScript" line, not the page's content. Not handled: `document.write`, foreign
 * content's CDATA sections, and markup so broken a browser would repair it differently.
 * @module
 */
import { StringMemo } from '../util/memo.js';
import { toRequestUrl } from '../url/normalize.js';

/** Most bytes of the server's HTML read (2 MiB); the rest of a larger document is not looked at. */
export const MAX_SERVER_HTML_BYTES = 2 * 1024 * 1024;

/** What {@link readServerHtml} finds. */
export interface ServerHtmlReading {
  /** The first `<title>`'s text (decoded, whitespace collapsed), or `null` when there is none or it is empty. */
  title: string | null;
  /** Distinct link targets (`<a href>`, `<area href>`), http(s) only, resolved against `<base href>`, as page identities (see `linkIdentity`). */
  links: Set<string>;
  /** Characters of the text, counted as `readSpaSignals` counts the rendered page's. */
  textLength: number;
}

/** Elements whose content is raw text, never markup or text of the page. */
const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes']);
/** Elements whose content is text (with character references) up to their end tag. */
const RCDATA = new Set(['title', 'textarea']);

/** Named character references decoded (the common ones; any other is left as written). */
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—',
  ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»', middot: '·', bull: '•', euro: '€', pound: '£',
  yen: '¥', cent: '¢', sect: '§', deg: '°', times: '×', divide: '÷', shy: '\u00ad', zwj: '\u200d', zwnj: '\u200c', thinsp: '\u2009',
  ensp: '\u2002', emsp: '\u2003', larr: '←', rarr: '→', uarr: '↑', darr: '↓', hearts: '♥', check: '✓',
};

/** Decode the character references of `s` (HTML standard §13.2.5.72–80, for the common cases). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g, (m, dec?: string, hex?: string, name?: string) => {
    if (dec !== undefined || hex !== undefined) {
      const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
      return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : '\ufffd';
    }
    return NAMED[name!.toLowerCase()] ?? m;
  });
}

/**
 * A link target as a page identity, for comparing the server's links with the rendered ones:
 * resolved against `base`, http(s) only, a plain `#fragment` dropped and a hash route kept
 * (`toRequestUrl`). `null` for anything else (`mailto:`, `javascript:`, unparsable).
 */
export function linkIdentity(href: string, base: string): string | null {
  // The same links come back on every page of a site (its navigation).
  return identities.get(resolutionKey(href, base), () => identityUncached(href, base));
}

/** An http(s) URL with an authority (`http://`, `https://`, after leading spaces): its resolution ignores the base. */
const ABSOLUTE = /^\s*https?:\/\//i;

/**
 * The part of `base` that `href`'s resolution depends on, with `href`, as a memo key (WHATWG URL
 * parsing): nothing of it for an absolute http(s) URL; all of it but the fragment for `''`,
 * `#…` and `?…`; else its scheme, authority and path up to the last `/` (a path-relative or
 * root-relative reference resolves the same from every page of one directory).
 */
function resolutionKey(href: string, base: string): string {
  if (ABSOLUTE.test(href)) return href;
  const first = href.trimStart()[0];
  const hash = base.indexOf('#');
  const whole = hash === -1 ? base : base.slice(0, hash);
  if (first === undefined || first === '#' || first === '?') return `${whole}\n${href}`;
  const query = whole.indexOf('?');
  const path = query === -1 ? whole : whole.slice(0, query);
  const authority = path.indexOf('//');
  // A base without a path after its authority (never serialized so) keeps all of it.
  if (authority === -1 || path.indexOf('/', authority + 2) === -1) return `${whole}\n${href}`;
  return `${path.slice(0, path.lastIndexOf('/') + 1)}\n${href}`;
}

const identities = new StringMemo<string | null>();

/** {@link linkIdentity} without the memo. */
function identityUncached(href: string, base: string): string | null {
  try {
    const u = new URL(href.trim(), base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return toRequestUrl(u);
  } catch {
    return null;
  }
}

/** Parse the attributes of a start tag from `s[i]` up to its `>`; returns them (names lowercased) and the index after the tag. */
function readAttributes(s: string, i: number): { attrs: Map<string, string>; end: number } {
  const attrs = new Map<string, string>();
  const n = s.length;
  while (i < n) {
    while (i < n && /[\s/]/.test(s[i]!)) i++;
    if (i >= n || s[i] === '>') return { attrs, end: i + 1 };
    const nameStart = i;
    while (i < n && !/[\s/>=]/.test(s[i]!)) i++;
    const name = s.slice(nameStart, i).toLowerCase();
    while (i < n && /\s/.test(s[i]!)) i++;
    let value = '';
    if (s[i] === '=') {
      i++;
      while (i < n && /\s/.test(s[i]!)) i++;
      const q = s[i];
      if (q === '"' || q === "'") {
        const close = s.indexOf(q, i + 1);
        const stop = close === -1 ? n : close;
        value = s.slice(i + 1, stop);
        i = stop + 1;
      } else {
        const start = i;
        while (i < n && !/[\s>]/.test(s[i]!)) i++;
        value = s.slice(start, i);
      }
    }
    if (name && !attrs.has(name)) attrs.set(name, decodeEntities(value));
  }
  return { attrs, end: n };
}

/**
 * Read the title, links and text length of `html` (see the module comment).
 * @param html - the document as the server sent it (decoded to text)
 * @param documentUrl - the URL that answered it (links resolve against it, or its `<base href>`)
 */
export function readServerHtml(html: string, documentUrl: string): ServerHtmlReading {
  const s = html;
  const n = s.length;
  const hrefs: string[] = [];
  const text: string[] = [];
  let chars = 0;
  let title: string | null = null;
  let base = documentUrl;
  let baseSeen = false;
  let template = 0;
  let noscript = 0;
  const addText = (raw: string): void => {
    if (template > 0 || noscript > 0 || chars >= 1_000_000 || !/\S/.test(raw)) return;
    const t = decodeEntities(raw);
    text.push(t);
    chars += t.length;
  };
  let i = 0;
  while (i < n) {
    const lt = s.indexOf('<', i);
    if (lt === -1) {
      addText(s.slice(i));
      break;
    }
    if (lt > i) addText(s.slice(i, lt));
    i = lt;
    if (s.startsWith('<!--', i)) {
      const close = s.indexOf('-->', i + 4);
      i = close === -1 ? n : close + 3;
      continue;
    }
    const next = s[i + 1] ?? '';
    if (next === '!' || next === '?') {
      const close = s.indexOf('>', i + 2);
      i = close === -1 ? n : close + 1;
      continue;
    }
    const closing = next === '/';
    const nameStart = closing ? i + 2 : i + 1;
    if (!/[a-zA-Z]/.test(s[nameStart] ?? '')) {
      // Not a tag: a "<" of the text.
      addText('<');
      i++;
      continue;
    }
    let j = nameStart;
    while (j < n && !/[\s/>]/.test(s[j]!)) j++;
    const name = s.slice(nameStart, j).toLowerCase();
    if (closing) {
      const close = s.indexOf('>', j);
      i = close === -1 ? n : close + 1;
      if (name === 'template' && template > 0) template--;
      if (name === 'noscript' && noscript > 0) noscript--;
      continue;
    }
    const { attrs, end } = readAttributes(s, j);
    i = end;
    if (RAW_TEXT.has(name) || RCDATA.has(name)) {
      const endTag = new RegExp(`</${name}[\\s/>]`, 'ig');
      endTag.lastIndex = i;
      const close = endTag.exec(s)?.index ?? -1;
      const stop = close === -1 ? n : close;
      const content = s.slice(i, stop);
      if (name === 'title' && title === null && template === 0) title = decodeEntities(content).replace(/\s+/g, ' ').trim() || null;
      if (name === 'textarea') addText(content);
      const gt = close === -1 ? -1 : s.indexOf('>', close);
      i = gt === -1 ? n : gt + 1;
      continue;
    }
    if (template > 0) {
      if (name === 'template') template++;
      continue;
    }
    if (name === 'template' && !attrs.has('shadowrootmode')) template++;
    else if (name === 'noscript') noscript++;
    else if (name === 'base' && !baseSeen && attrs.has('href')) {
      baseSeen = true;
      try {
        base = new URL(attrs.get('href')!.trim(), documentUrl).href;
      } catch {
        // an unusable base leaves the document's URL
      }
    } else if ((name === 'a' || name === 'area') && attrs.has('href')) hrefs.push(attrs.get('href')!);
  }
  const links = new Set<string>();
  for (const h of hrefs) {
    const id = linkIdentity(h, base);
    if (id) links.add(id);
  }
  return { title, links, textLength: text.join(' ').replace(/\s+/g, ' ').trim().length };
}
