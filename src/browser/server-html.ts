/**
 * What a client that does not run JavaScript reads from a page's HTML as the server sent it:
 * its title, its links and the length of its text. No HTML parser is a dependency of spacrawl,
 * so this is a small tokenizer written for these three questions, following the HTML standard's
 * tokenization where it matters for them: comments, doctypes and processing instructions are
 * skipped; the raw text of `<script>`, `<style>`, `<xmp>`, `<iframe>`, `<noembed>` and
 * `<noframes>` is skipped up to its end tag; `<title>` and `<textarea>` are text up to their end
 * tag, and the first `<title>` outside `<svg>` and `<math>` is the document's (one inside is a
 * drawing's tooltip); attribute values may be double-quoted, single-quoted or bare; character references are
 * decoded (numeric ones, and the named ones pages use in titles). `<template>` content is not
 * read (it is not rendered), except a declarative shadow root's (`shadowrootmode`). `<noscript>`
 * is read as a browser without scripts reads it (its links count) but its text does not: it is
 * the "enable JavaScript" line, not the page's content. Not handled: `document.write`, foreign
 * content's CDATA sections, and markup so broken a browser would repair it differently.
 * @module
 */
import { StringMemo } from '../util/memo.js';
import { toRequestUrl } from '../url/normalize.js';
import { MAX_TITLE_CHARS } from '../model/record.js';

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

/**
 * `true` for the code units `\s` matches (ECMAScript WhiteSpace and LineTerminator: the ASCII
 * spaces, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF): the
 * tokenizer reads the text one code unit at a time (`charCodeAt`), with no string made for it.
 */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

const SLASH = 0x2f;
const GT = 0x3e;
const EQ = 0x3d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

/** `true` when `s[start, end)` is `lower` (ASCII letters), case-insensitively. */
function sameName(s: string, start: number, end: number, lower: string): boolean {
  if (end - start !== lower.length) return false;
  for (let k = 0; k < lower.length; k++) {
    const c = s.charCodeAt(start + k);
    if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== lower.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * Read the attributes of a start tag from `s[i]` up to its `>` (a `>` inside a quoted value does
 * not end it). Only `wanted` is kept: the first attribute of that name (lowercase), its value
 * with character references decoded (`''` when it has none); `null` when there is none. No
 * string is made for the other attributes: most tags of a page are read only to be skipped.
 * @returns the attribute's value and the index after the tag
 */
function readAttribute(s: string, i: number, wanted: string | null): { value: string | null; end: number } {
  const n = s.length;
  let value: string | null = null;
  while (i < n) {
    while (i < n && (s.charCodeAt(i) === SLASH || isSpace(s.charCodeAt(i)))) i++;
    if (i >= n || s.charCodeAt(i) === GT) return { value, end: i + 1 };
    const nameStart = i;
    for (let c = s.charCodeAt(i); i < n && c !== SLASH && c !== GT && c !== EQ && !isSpace(c); c = s.charCodeAt(++i));
    const nameEnd = i;
    while (i < n && isSpace(s.charCodeAt(i))) i++;
    let valueStart = i;
    let valueEnd = i;
    if (s.charCodeAt(i) === EQ) {
      i++;
      while (i < n && isSpace(s.charCodeAt(i))) i++;
      const q = s.charCodeAt(i);
      if (q === DQUOTE || q === SQUOTE) {
        const close = s.indexOf(q === DQUOTE ? '"' : "'", i + 1);
        const stop = close === -1 ? n : close;
        valueStart = i + 1;
        valueEnd = stop;
        i = stop + 1;
      } else {
        valueStart = i;
        for (let c = s.charCodeAt(i); i < n && c !== GT && !isSpace(c); c = s.charCodeAt(++i));
        valueEnd = i;
      }
    }
    if (value === null && wanted !== null && nameEnd > nameStart && sameName(s, nameStart, nameEnd, wanted)) value = decodeEntities(s.slice(valueStart, valueEnd));
  }
  return { value, end: n };
}

/**
 * Counts the characters of a page's text as `readSpaSignals` counts the rendered page's: its
 * pieces joined by spaces, every run of whitespace made one space, the ends trimmed. Counted as
 * the pieces come (no string of the whole text is built), and pieces stop counting once 1,000,000
 * characters of text have come.
 */
class TextLength {
  length = 0;
  private chars = 0;
  /** A space is owed before the next non-space (inside the text, not at its start). */
  private space = false;
  private started = false;

  /** Count `s[start, end)` as one piece of text (character references decoded). */
  add(s: string, start: number, end: number): void {
    if (this.chars >= 1_000_000) return;
    let k = start;
    while (k < end && isSpace(s.charCodeAt(k))) k++;
    if (k === end) return; // only whitespace: not a piece
    const amp = s.indexOf('&', start);
    if (amp !== -1 && amp < end) {
      const t = decodeEntities(s.slice(start, end));
      this.count(t, 0, t.length);
    } else this.count(s, start, end);
  }

  private count(t: string, start: number, end: number): void {
    this.chars += end - start;
    // The space the pieces are joined with.
    if (this.started) this.space = true;
    for (let k = start; k < end; k++) {
      if (isSpace(t.charCodeAt(k))) {
        if (this.started) this.space = true;
        continue;
      }
      if (this.space) this.length++;
      this.space = false;
      this.started = true;
      this.length++;
    }
  }
}

/** The end tags of raw text and RCDATA elements, by name (each search sets `lastIndex`). */
const END_TAGS = new Map<string, RegExp>();

/**
 * Read the title, links and text length of `html` (see the module comment).
 * @param html - the document as the server sent it (decoded to text)
 * @param documentUrl - the URL that answered it (links resolve against it, or its `<base href>`)
 */
export function readServerHtml(html: string, documentUrl: string): ServerHtmlReading {
  const s = html;
  const n = s.length;
  const hrefs: string[] = [];
  const text = new TextLength();
  let title: string | null = null;
  let base = documentUrl;
  let baseSeen = false;
  let template = 0;
  let noscript = 0;
  /** Depth in `<svg>` and `<math>`: a `<title>` there is a drawing's tooltip, not the document's title. */
  let foreign = 0;
  const addText = (start: number, end: number): void => {
    if (template === 0 && noscript === 0) text.add(s, start, end);
  };
  let i = 0;
  while (i < n) {
    const lt = s.indexOf('<', i);
    if (lt === -1) {
      addText(i, n);
      break;
    }
    if (lt > i) addText(i, lt);
    i = lt;
    if (s.startsWith('<!--', i)) {
      const close = s.indexOf('-->', i + 4);
      i = close === -1 ? n : close + 3;
      continue;
    }
    const next = s.charCodeAt(i + 1);
    if (next === 0x21 || next === 0x3f) {
      // <! or <?
      const close = s.indexOf('>', i + 2);
      i = close === -1 ? n : close + 1;
      continue;
    }
    const closing = next === SLASH;
    const nameStart = closing ? i + 2 : i + 1;
    const first = nameStart < n ? s.charCodeAt(nameStart) | 0x20 : 0;
    if (first < 0x61 || first > 0x7a) {
      // Not a tag: a "<" of the text.
      addText(i, i + 1);
      i++;
      continue;
    }
    let j = nameStart;
    for (let c = s.charCodeAt(j); j < n && c !== SLASH && c !== GT && !isSpace(c); c = s.charCodeAt(++j));
    const name = s.slice(nameStart, j).toLowerCase();
    if (closing) {
      const close = s.indexOf('>', j);
      i = close === -1 ? n : close + 1;
      if (name === 'template' && template > 0) template--;
      if (name === 'noscript' && noscript > 0) noscript--;
      if ((name === 'svg' || name === 'math') && foreign > 0) foreign--;
      continue;
    }
    const wanted = name === 'a' || name === 'area' || name === 'base' ? 'href' : name === 'template' ? 'shadowrootmode' : null;
    const { value, end } = readAttribute(s, j, wanted);
    i = end;
    if ((name === 'svg' || name === 'math') && s.charCodeAt(end - 2) !== SLASH) foreign++;
    if (RAW_TEXT.has(name) || RCDATA.has(name)) {
      let endTag = END_TAGS.get(name);
      if (!endTag) END_TAGS.set(name, (endTag = new RegExp(`</${name}[\\s/>]`, 'ig')));
      endTag.lastIndex = i;
      const close = endTag.exec(s)?.index ?? -1;
      const stop = close === -1 ? n : close;
      if (name === 'title' && title === null && template === 0 && foreign === 0) title = decodeEntities(s.slice(i, stop)).replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE_CHARS).trimEnd() || null;
      if (name === 'textarea') addText(i, stop);
      const gt = close === -1 ? -1 : s.indexOf('>', close);
      i = gt === -1 ? n : gt + 1;
      continue;
    }
    if (template > 0) {
      if (name === 'template') template++;
      continue;
    }
    if (name === 'template' && value === null) template++;
    else if (name === 'noscript') noscript++;
    else if (name === 'base' && !baseSeen && value !== null) {
      baseSeen = true;
      try {
        base = new URL(value.trim(), documentUrl).href;
      } catch {
        // an unusable base leaves the document's URL
      }
    } else if ((name === 'a' || name === 'area') && value !== null) hrefs.push(value);
  }
  const links = new Set<string>();
  for (const h of hrefs) {
    const id = linkIdentity(h, base);
    if (id) links.add(id);
  }
  return { title, links, textLength: text.length };
}
