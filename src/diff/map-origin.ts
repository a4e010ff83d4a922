/**
 * `--map-origin OLD=NEW` (`crawl --baseline`, `diff`): the baseline's records read as if they
 * had been crawled on another origin, so that a preview build (`http://127.0.0.1:4001`) is
 * compared with production (`https://example.com`) page by page. Every URL of a record whose
 * origin is OLD becomes the same URL on NEW (path, query and fragment kept); URLs of other
 * origins are left as they are.
 * @module
 */
import type { PageRecord } from '../model/record.js';
import { DiffInputError } from './errors.js';
import type { RecordSource } from './source.js';

/** OLD origin → NEW origin (each `scheme://host[:port]`, as `URL.origin` writes it). */
export type OriginMap = ReadonlyMap<string, string>;

/** What a `--map-origin` value must look like, for messages. */
const EXPECTED = 'expected OLD=NEW, two origins, e.g. https://example.com=http://127.0.0.1:4001';

/**
 * The origin a `--map-origin` side names, or `null` when it is not an http(s) origin: a URL
 * with nothing after the host and port but an optional `/`.
 */
function originOf(text: string): string | null {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password || u.search || u.hash || u.pathname !== '/' || /[?#]$/.test(text)) return null;
  return u.origin;
}

/**
 * Parse the values of `--map-origin` (repeatable).
 * @param values - each `OLD=NEW`, two http(s) origins (a trailing `/` is allowed)
 * @returns OLD → NEW, origins normalized as `URL.origin` writes them (`https://Example.com:443/` → `https://example.com`)
 * @throws DiffInputError (`bad-option`, one line naming the value) when a value is not two
 *   origins joined by `=`, maps an origin to itself, or maps an origin already mapped
 */
export function parseOriginMaps(values: readonly string[]): OriginMap {
  const out = new Map<string, string>();
  for (const value of values) {
    const bad = (why: string): DiffInputError => new DiffInputError('bad-option', `--map-origin ${JSON.stringify(value)}: ${why}${why ? ': ' : ''}${EXPECTED}`);
    const parts = value.split('=');
    if (parts.length !== 2) throw bad('');
    const [oldText, newText] = parts.map((p) => p.trim()) as [string, string];
    const from = originOf(oldText);
    const to = originOf(newText);
    if (!oldText || !newText) throw bad(`${!oldText ? 'OLD' : 'NEW'} is empty`);
    if (!from) throw bad(`OLD ${JSON.stringify(oldText)} is not an http(s) origin (scheme://host[:port], no path)`);
    if (!to) throw bad(`NEW ${JSON.stringify(newText)} is not an http(s) origin (scheme://host[:port], no path)`);
    if (from === to) throw new DiffInputError('bad-option', `--map-origin ${JSON.stringify(value)}: OLD and NEW are the same origin`);
    if (out.has(from)) throw new DiffInputError('bad-option', `--map-origin ${JSON.stringify(value)}: ${from} is already mapped to ${out.get(from)!}`);
    out.set(from, to);
  }
  return out;
}

/**
 * `url` read on its mapped origin: when its origin is a key of `map`, the same URL on the mapped
 * origin, with the text after the origin (path, query, fragment) kept exactly; else `url` itself
 * (another origin, or not an absolute URL: `mailto:`, a relative path).
 */
export function mapUrl(url: string, map: OriginMap): string {
  if (map.size === 0) return url;
  // Canonical URLs start with their origin as URL.origin writes it: keep the rest byte for byte.
  for (const [from, to] of map) {
    if (url.startsWith(from) && (url.length === from.length || '/?#'.includes(url[from.length]!))) return to + url.slice(from.length);
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  const to = map.get(u.origin);
  return to === undefined ? url : `${to}${u.pathname}${u.search}${u.hash}`;
}

/** {@link mapUrl} of a URL that may be `null`. */
function mapNullable(url: string | null, map: OriginMap): string | null {
  return url === null ? null : mapUrl(url, map);
}

/**
 * A record with every URL it holds read on its mapped origin (see {@link mapUrl}): `url`,
 * `requestedUrl`, `finalUrl`, `redirectChain`, `referrer`, `duplicateOf`, `links`,
 * `linkDetails`, `externalLinks`, `fragmentLinks`, `linkChecks`, `failedRequests`,
 * `mixedContent`, `frames`, `downloads` and `serverHtml.jsOnlyLinkSamples`.
 *
 * `meta.canonical` is kept as written: it is what the page declares its address to be, not
 * where it was crawled. A preview whose pages still name their production URL as canonical then
 * has the same `canonical-mismatch` findings as the mapped baseline (known, not new).
 * Messages (`consoleErrors`, `pageErrors`) are text and are not changed.
 * @param r - a record of today's schema (see `upgradeRecord`); it is not changed
 */
export function mapRecordOrigins(r: PageRecord, map: OriginMap): PageRecord {
  if (map.size === 0) return r;
  const m = (u: string): string => mapUrl(u, map);
  return {
    ...r,
    url: m(r.url),
    requestedUrl: mapNullable(r.requestedUrl, map),
    finalUrl: mapNullable(r.finalUrl, map),
    redirectChain: r.redirectChain.map((h) => ({ ...h, url: m(h.url) })),
    referrer: mapNullable(r.referrer, map),
    duplicateOf: mapNullable(r.duplicateOf, map),
    links: r.links.map(m),
    linkDetails: r.linkDetails.map((d) => ({ ...d, url: m(d.url) })),
    externalLinks: r.externalLinks.map(m),
    fragmentLinks: r.fragmentLinks.map((f) => ({ ...f, url: m(f.url) })),
    linkChecks: r.linkChecks.map((c) => ({ ...c, url: m(c.url) })),
    failedRequests: r.failedRequests.map((f) => ({ ...f, url: m(f.url) })),
    mixedContent: r.mixedContent.map(m),
    frames: r.frames.map(m),
    downloads: r.downloads.map(m),
    serverHtml: r.serverHtml ? { ...r.serverHtml, jsOnlyLinkSamples: r.serverHtml.jsOnlyLinkSamples.map(m) } : null,
  };
}

/**
 * `source` with every record read through {@link mapRecordOrigins}; its label, screenshots
 * folder, checks, skipped lines and `close()` are the source's own. `source` itself when `map`
 * is empty.
 */
export function mapSourceOrigins(source: RecordSource, map: OriginMap): RecordSource {
  if (map.size === 0) return source;
  const mapped: RecordSource = {
    label: source.label,
    screenshotsDir: source.screenshotsDir,
    originMap: map,
    ...(source.declaredChecks ? { declaredChecks: source.declaredChecks } : {}),
    async *records() {
      for await (const r of source.records()) yield mapRecordOrigins(r, map);
    },
    skippedLines: () => source.skippedLines(),
    close: () => source.close(),
  };
  if (source.fieldsSeen) mapped.fieldsSeen = () => source.fieldsSeen!();
  return mapped;
}

/**
 * The end of the message that refuses two crawls of different origins: what `--map-origin` to
 * give. When each side has one origin, the exact flag (`pass --map-origin OLD=NEW`); else its form.
 * When a `--map-origin` was given but none of its OLD origins is the baseline's (given the wrong
 * way round, or a typo), it says so first.
 * @param older - the baseline's site origins (after any mapping)
 * @param newer - the other crawl's site origins
 * @param given - the `--map-origin` pairs given, if any
 */
export function mapOriginHint(older: ReadonlySet<string>, newer: ReadonlySet<string>, given?: OriginMap): string {
  const flag = older.size === 1 && newer.size === 1 ? `--map-origin ${[...older][0]!}=${[...newer][0]!}` : '--map-origin OLD=NEW';
  const pairs = given ? [...given] : [];
  if (pairs.length > 0 && !pairs.some(([from]) => older.has(from))) {
    const shown = pairs.map(([from, to]) => `${from}=${to}`).join(', ');
    return `--map-origin ${shown} maps no origin of the baseline (OLD is the baseline's origin, NEW this crawl's): pass ${flag}`;
  }
  return `if it is the same site on another origin, pass ${flag}`;
}
