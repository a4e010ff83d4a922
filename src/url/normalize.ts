/**
 * Canonical URLs: the frontier key.
 *
 * Two spellings of one page must give one key (see `DESIGN.md`, "canonical URL"), while two
 * different pages must never share one. Every rule below is either an equivalence that the
 * URL standards guarantee (RFC 3986 §6.2.2 syntax-based normalization, §6.2.3 scheme-based
 * normalization, WHATWG URL parsing) or a widely shared crawler convention (tracking and session
 * parameters) that can be switched off.
 *
 * Rules applied by {@link normalize}, in order:
 *
 * 1. Parse with the WHATWG URL parser (the browser's own): scheme and host lowercased
 *    (RFC 3986 §6.2.2.1), IDN hosts converted to punycode (WHATWG URL "domain to ASCII", UTS #46),
 *    IPv4/IPv6 hosts serialized canonically, default port removed (RFC 3986 §6.2.3),
 *    dot segments resolved (RFC 3986 §6.2.2.3 / §5.2.4), empty path becomes `/` (RFC 3986 §6.2.3).
 * 2. A trailing dot of the host is removed (`example.com.` → `example.com`; the root label of a
 *    fully qualified name, RFC 1034 §3.1; the same site for HTTP purposes).
 * 3. Percent-encoding: hex digits uppercased (RFC 3986 §6.2.2.1) and escapes of unreserved
 *    characters `ALPHA DIGIT - . _ ~` decoded (RFC 3986 §6.2.2.2). Every other escape is kept as is:
 *    `%2F` is not `/`, `%252C` stays `%252C` (RFC 3986 §2.4: never decode reserved characters or
 *    decode twice).
 * 4. Session path parameters `;jsessionid=…` removed (Java Servlet specification, URL rewriting,
 *    §7.1.3) unless `keepParams`.
 * 5. Query: an empty query (`/a?`) is removed (RFC 3986 §6.2.3); parameters with a tracking or
 *    session name are removed ({@link DEFAULT_STRIP_PARAMS}, plus `stripParams`); the remaining
 *    parameters are sorted by name with a stable sort, so repeated names keep their relative order
 *    (`?a=2&a=1` ≢ `?a=1&a=2`, as servers read repeated names as ordered lists). The query is worked
 *    on as raw text split on `&` and `=`; it is never re-serialized through `URLSearchParams`
 *    (WHATWG `application/x-www-form-urlencoded` serialization would turn `%20` into `+` and
 *    re-encode other escapes). Empty pieces (`a=1&&b=2`) are dropped.
 * 6. Fragment (RFC 3986 §3.5: never sent to the server): a plain fragment (`#top`) is dropped; a
 *    hash route (`#/about`, `#!/about`, see {@link isHashRoute}) is kept under the default mode
 *    `'auto'`, and its own query (`#/search?b=2&a=1`) is normalized like a URL query. An empty
 *    fragment `#` is always dropped.
 * 7. Optional, off by default: trailing-slash folding and index-file folding (these are server
 *    conventions, not URL equivalences: RFC 3986 §6.2.4 "protocol-based normalization").
 *
 * Over 400 lines: this comment, which gives each rule its source, is a tenth of it, and the rules
 * share one parse and one options resolution; split, each part would need both.
 *
 * @module
 */

import { UsageError } from '../model/errors.js';
import { StringMemos } from '../util/memo.js';

/**
 * What to do with URL fragments.
 *
 * - `'auto'` (default): keep hash routes (fragments starting with `/` or `!`), drop others.
 * - `'keep'`: keep every non-empty fragment (an app that routes on `#about`).
 * - `'drop'`: drop every fragment (a site that never routes on the hash).
 */
export type HashRouteMode = 'auto' | 'keep' | 'drop';

/** Options for {@link normalize}. Every field is optional; `{}` gives the default canonical form. */
export interface NormalizeOptions {
  /**
   * Which fragments are part of the canonical URL. Fragments starting with `/` or `!` are hash
   * routes (client-side routes of a single-page app); others (`#top`) are in-page anchors.
   * @default 'auto' : keep fragments starting with '/' or '!' (hash routes), drop others.
   * 'keep' keeps every fragment; 'drop' drops all.
   */
  hashRoutes?: HashRouteMode;
  /**
   * When true, the built-in list of tracking and session parameters ({@link DEFAULT_STRIP_PARAMS}
   * and the `;jsessionid=` path parameter) is not applied: no query parameter is removed except
   * the names the caller lists explicitly in {@link NormalizeOptions.stripParams}.
   * Parameters are still sorted.
   * @default false
   */
  keepParams?: boolean;
  /**
   * Extra query parameter names to strip, on top of {@link DEFAULT_STRIP_PARAMS}. Exact names,
   * compared case-insensitively after percent-decoding; a trailing `*` makes a prefix match
   * (`'utm_*'`, `'ref_*'`). Applied even when `keepParams` is true.
   * @default []
   */
  stripParams?: readonly string[];
  /**
   * Remove a trailing `/` from a non-root path (`/docs/` → `/docs`; `/` stays `/`). Off by default
   * because `/docs` and `/docs/` are different resources to a server (RFC 3986 §6.2.4).
   * @default false
   */
  foldTrailingSlash?: boolean;
  /**
   * Fold a last path segment `index.html`, `index.htm` or `index.php` (exact, case-sensitive) into
   * its directory: `/dir/index.html` → `/dir/`. Off by default (RFC 3986 §6.2.4: a server
   * convention, not an equivalence).
   * @default false
   */
  foldIndex?: boolean;
}

/**
 * Query parameter names removed by default (unless `keepParams`), compared case-insensitively; a
 * trailing `*` is a prefix match.
 *
 * - Tracking: `utm_*` (Google Analytics campaign parameters), `gclid` (Google Ads), `fbclid`
 *   (Facebook), `msclkid` (Microsoft Ads), `dclid` (Google Display), `yclid` (Yandex),
 *   `mc_cid`/`mc_eid` (Mailchimp), `_ga`/`_gl` (Google cross-domain linker), `igshid` (Instagram).
 * - Session ids: `PHPSESSID` (PHP `session.name` default), `JSESSIONID` (Java Servlet default),
 *   `sid`, `sessionid`.
 *
 * The `;jsessionid=…` *path* parameter is removed too, by a separate rule.
 */
export const DEFAULT_STRIP_PARAMS: readonly string[] = Object.freeze([
  'utm_*',
  'gclid',
  'fbclid',
  'msclkid',
  'dclid',
  'yclid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  'igshid',
  'phpsessid',
  'jsessionid',
  'sid',
  'sessionid',
]);

/**
 * Thrown when a string is not a URL the WHATWG parser accepts (relative references included:
 * resolve them against their base first), or, by `Scope` (`./scope.ts`), when a seed is not crawlable.
 *
 * Shape: `{ name: 'InvalidUrlError', code: 'invalid-url', input: string, message: string }`.
 */
export class InvalidUrlError extends UsageError {
  /** Stable machine-readable code. */
  readonly code = 'invalid-url' as const;
  /** The offending input, as given. */
  readonly input: string;

  /**
   * @param input the offending input
   * @param reason a short, one-line explanation (default: "not a valid absolute URL")
   */
  constructor(input: string, reason = 'not a valid absolute URL') {
    super(`Invalid URL ${JSON.stringify(input)}: ${reason}`);
    this.name = 'InvalidUrlError';
    this.input = input;
  }
}

/**
 * Parses with WHATWG `URL`, turning its `TypeError` into {@link InvalidUrlError}.
 * A `URL` object is copied, never mutated.
 */
function parse(url: string | URL): URL {
  const text = typeof url === 'string' ? url : url.href;
  try {
    return new URL(text);
  } catch {
    throw new InvalidUrlError(text);
  }
}

/** Schemes with a WHATWG "special" parser: authority-based, with a host and a `/` path. */
const SPECIAL_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/** RFC 3986 §2.3 unreserved characters. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * Percent-encoding normalization of a URL component: hex digits in uppercase (RFC 3986 §6.2.2.1)
 * and escapes of unreserved characters `ALPHA DIGIT - . _ ~` decoded (RFC 3986 §6.2.2.2), so
 * `/%7euser/%61` → `/~user/a`. Every other escape is kept (`%2F` stays `%2F`); a `%` not followed
 * by two hex digits is left alone (WHATWG keeps it too). Never throws.
 * @param text - a path, query or fragment (or any part of one)
 * @returns the normalized text
 */
export function normalizePercent(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/** `decodeURIComponent` that never throws (malformed escapes are left as they are). */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A compiled name list: exact names and prefixes, all lowercase. */
interface NameMatcher {
  exact: Set<string>;
  prefixes: string[];
}

function compileNames(names: readonly string[]): NameMatcher {
  const matcher: NameMatcher = { exact: new Set(), prefixes: [] };
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (name === '') continue;
    if (name.endsWith('*')) matcher.prefixes.push(name.slice(0, -1));
    else matcher.exact.add(name);
  }
  return matcher;
}

const DEFAULT_MATCHER = compileNames(DEFAULT_STRIP_PARAMS);

function matches(matcher: NameMatcher, name: string): boolean {
  return matcher.exact.has(name) || matcher.prefixes.some((prefix) => name.startsWith(prefix));
}

/** The resolved form of {@link NormalizeOptions}. */
interface Resolved {
  hashRoutes: HashRouteMode;
  keepParams: boolean;
  strip: NameMatcher | null;
  foldTrailingSlash: boolean;
  foldIndex: boolean;
}

/** Small cache so a crawler passing the same `stripParams` array does not recompile it per URL. */
const stripCache = new WeakMap<readonly string[], NameMatcher>();

function resolve(options: NormalizeOptions | undefined): Resolved {
  const extra = options?.stripParams;
  let strip: NameMatcher | null = null;
  if (extra && extra.length > 0) {
    strip = stripCache.get(extra) ?? compileNames(extra);
    stripCache.set(extra, strip);
  }
  return {
    hashRoutes: options?.hashRoutes ?? 'auto',
    keepParams: options?.keepParams ?? false,
    strip,
    foldTrailingSlash: options?.foldTrailingSlash ?? false,
    foldIndex: options?.foldIndex ?? false,
  };
}

/**
 * Normalizes a raw query (without the leading `?`): percent-encoding (rule 3), removal of
 * tracking/session parameters (rule 5), stable sort by name. Returns `''` when nothing is left.
 */
function normalizeQuery(query: string, opts: Resolved): string {
  if (query === '') return '';
  const kept: { key: string; pair: string }[] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const pair = normalizePercent(piece);
    const eq = pair.indexOf('=');
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = safeDecode(rawName.replace(/\+/g, ' ')).toLowerCase();
    if (!opts.keepParams && matches(DEFAULT_MATCHER, name)) continue;
    if (opts.strip && matches(opts.strip, name)) continue;
    kept.push({ key: rawName, pair });
  }
  // Array.prototype.sort is stable (ECMAScript 2019), so repeated names keep their order.
  // Compare by UTF-16 code units, not locale, so the order never depends on the machine.
  kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return kept.map((entry) => entry.pair).join('&');
}

/** Removes `;jsessionid=…` path parameters (rule 4), in any segment, case-insensitively. */
function stripSessionPathParams(path: string): string {
  return path.replace(/;jsessionid=[^;/]*/gi, '');
}

const INDEX_FILE = /\/index\.(?:html|htm|php)$/;

/**
 * True if a fragment names a client-side route: it starts with `/` (`#/about`, the hash-history
 * form used by Vue Router, Angular `useHash`, React Router `HashRouter`) or with `!` (`#!/about`,
 * the "hashbang" form from Google's AJAX crawling scheme).
 *
 * @param fragment the fragment with or without its leading `#`; `''` and `'#'` are not routes.
 * @returns whether the fragment is a hash route
 */
export function isHashRoute(fragment: string): boolean {
  const body = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  return body.startsWith('/') || body.startsWith('!');
}

/**
 * Decides what happens to a fragment (without `#`): `null` drops it, a string is the fragment to
 * keep (normalized when `normalizeIt`).
 */
function handleFragment(fragment: string, opts: Resolved, normalizeIt: boolean): string | null {
  if (fragment === '') return null;
  const route = isHashRoute(fragment);
  if (opts.hashRoutes === 'drop') return null;
  if (opts.hashRoutes === 'auto' && !route) return null;
  if (!normalizeIt) return fragment;
  if (!route) return normalizePercent(fragment);
  const q = fragment.indexOf('?');
  if (q === -1) return normalizePercent(fragment);
  const routePath = normalizePercent(fragment.slice(0, q));
  const routeQuery = normalizeQuery(fragment.slice(q + 1), opts);
  return routeQuery === '' ? routePath : `${routePath}?${routeQuery}`;
}

/**
 * Returns the canonical form of an absolute URL: the frontier key. Idempotent:
 * `normalize(normalize(u, o), o) === normalize(u, o)`.
 *
 * See the module comment for every rule and its source. In short, with default options:
 * `HTTP://Example.COM:80/a/./b/../c?utm_source=x&b=2&a=1#top` → `http://example.com/a/c?a=1&b=2`.
 *
 * Non-special schemes (`mailto:`, `javascript:`, `data:`, …) only get the WHATWG parse
 * (lowercased scheme) and the fragment rule: their syntax is scheme-specific.
 *
 * @param url an absolute URL string or a `URL` object (not mutated)
 * @param options see {@link NormalizeOptions}; defaults give the standard canonical form
 * @returns the canonical URL string
 * @throws {InvalidUrlError} when `url` does not parse as an absolute URL
 */
export function normalize(url: string | URL, options?: NormalizeOptions): string {
  const text = typeof url === 'string' ? url : url.href;
  return normalized.for(optionsKey(options)).get(text, () => normalizeUncached(text, options));
}

/** Memos of {@link normalize} and {@link toRequestUrl}, by the options that shape their results (see `optionsKey`). */
const normalized = new StringMemos<string>();
const requestUrls = new StringMemos<string>();

/** The options as a key of the memo: their values, not the object (a caller may reuse an object with other values). */
function optionsKey(options: NormalizeOptions | undefined): string {
  if (!options) return '';
  return `${options.hashRoutes ?? ''}|${options.keepParams ?? ''}|${options.foldTrailingSlash ?? ''}|${options.foldIndex ?? ''}|${options.stripParams?.join('\u0000') ?? ''}`;
}

/** {@link normalize} without the memo. */
function normalizeUncached(url: string, options?: NormalizeOptions): string {
  const parsed = parse(url);
  const opts = resolve(options);
  const rawFragment = parsed.hash.startsWith('#') ? parsed.hash.slice(1) : parsed.hash;

  if (!SPECIAL_SCHEMES.has(parsed.protocol)) {
    const fragment = handleFragment(rawFragment, opts, false);
    parsed.hash = '';
    const base = parsed.href.endsWith('#') ? parsed.href.slice(0, -1) : parsed.href;
    return fragment === null ? base : `${base}#${fragment}`;
  }

  // Rule 2: trailing dot of the host (not for IPv6 literals; WHATWG already drops it for IPv4).
  let hostname = parsed.hostname;
  if (!hostname.startsWith('[')) {
    const stripped = hostname.replace(/\.+$/, '');
    if (stripped !== '') hostname = stripped;
  }
  const host = parsed.port === '' ? hostname : `${hostname}:${parsed.port}`;

  let userinfo = '';
  if (parsed.username !== '' || parsed.password !== '') {
    userinfo = normalizePercent(parsed.username);
    if (parsed.password !== '') userinfo += `:${normalizePercent(parsed.password)}`;
    userinfo += '@';
  }

  // Rules 1, 3, 4, 7 on the path. WHATWG has resolved dot segments (including %2E forms).
  let path = normalizePercent(parsed.pathname);
  if (!opts.keepParams) path = stripSessionPathParams(path);
  if (path === '') path = '/';
  if (opts.foldIndex) path = path.replace(INDEX_FILE, '/');
  if (opts.foldTrailingSlash && path.length > 1 && path.endsWith('/')) {
    path = path.replace(/\/+$/, '') || '/';
  }

  // Rule 5: query, from the raw serialized query (parsed.search is '' for both none and empty).
  const query = normalizeQuery(parsed.search.slice(1), opts);

  // Rule 6: fragment.
  const fragment = handleFragment(rawFragment, opts, true);

  return (
    `${parsed.protocol}//${userinfo}${host}${path}` +
    (query === '' ? '' : `?${query}`) +
    (fragment === null ? '' : `#${fragment}`)
  );
}

/**
 * The URL as the browser resolves it, for navigation: the WHATWG serialization of `url`, minus a
 * plain fragment (hash routes kept, per `hashRoutes`) and minus an empty `#`. Nothing else is
 * changed: no percent-decoding, no parameter reordering or stripping, no trailing-dot removal.
 * This is the `requestedUrl` of a `PageRecord`, what goes on the wire.
 *
 * @param url an absolute URL string or a `URL` object (not mutated)
 * @param options `hashRoutes` as in {@link NormalizeOptions} (default `'auto'`)
 * @returns the URL to navigate to
 * @throws {InvalidUrlError} when `url` does not parse as an absolute URL
 */
export function toRequestUrl(
  url: string | URL,
  options?: Pick<NormalizeOptions, 'hashRoutes'>,
): string {
  const mode = options?.hashRoutes ?? 'auto';
  return requestUrls.for(mode).get(typeof url === 'string' ? url : url.href, (text) => requestUrlUncached(text, mode));
}

/** {@link toRequestUrl} without the memo. */
function requestUrlUncached(url: string, mode: HashRouteMode): string {
  const parsed = parse(url);
  const fragment = parsed.hash.startsWith('#') ? parsed.hash.slice(1) : '';
  const keep = fragment !== '' && (mode === 'keep' || (mode === 'auto' && isHashRoute(fragment)));
  if (keep) return parsed.href;
  parsed.hash = '';
  return parsed.href.endsWith('#') ? parsed.href.slice(0, -1) : parsed.href;
}
