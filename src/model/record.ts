/**
 * The unit of output: one {@link PageRecord} per URL the crawl decided about.
 * Field meanings follow DESIGN.md ("PageRecord"); every field is present in every record.
 * @module
 */

/** One hop before a page's final URL. `status` is `null` for client-side hops. */
export interface RedirectHop {
  /** The URL that answered with a redirect (absolute). */
  url: string;
  /** HTTP status of that hop (3xx), or `null` for a client-side hop. */
  status: number | null;
  /** `"http"` for a 3xx response, `"client"` for a script/meta/history navigation. */
  kind: 'http' | 'client';
}

/**
 * How a link was found on a page: `anchor` (an `<a href>`, `<area href>` or SVG `<a>` of the
 * document), `shadow` (the same inside a shadow root), `frame` (inside a same-origin frame),
 * `frame-src` (the `src` of an `<iframe>` or `<frame>`: the frame's document is a URL of the
 * crawl too), `popup` (`window.open`), `click` and `scroll` (click and scroll discovery),
 * `sitemap`.
 */
export type LinkSource = 'anchor' | 'shadow' | 'frame' | 'frame-src' | 'popup' | 'click' | 'scroll' | 'sitemap';

/** Every link found on a page, in scope or not. */
export interface LinkDetail {
  /** Canonical URL for http(s) links; the resolved href as-is for other schemes (`mailto:` …). */
  url: string;
  /** Anchor text, whitespace-collapsed, at most 200 characters. */
  text: string;
  source: LinkSource;
  /** `true` for `rel="nofollow"` links: recorded, not followed unless `--follow-nofollow`. */
  nofollow: boolean;
}

/** Page timings in milliseconds from the start of the visit; `null` where unknown. */
export interface PageTimings {
  /** Time to the first byte of the main document (ms). */
  ttfb: number | null;
  /** DOMContentLoaded event (ms, from navigation start). */
  domContentLoaded: number | null;
  /** load event (ms, from navigation start). */
  load: number | null;
  /** When the page was judged settled or the settle cap expired (ms, from visit start). */
  settledMs: number | null;
  /**
   * How long the page waited for servers until it was read (ms): the union of the intervals from
   * each request's start to its first response byte (main document, redirects and the page's
   * own requests), from the browser's network timings. The page's own CPU work, and the
   * crawler's, are not in it. `slow-page` judges this. `null` when not measured.
   */
  serverWaitMs: number | null;
  /** Whole visit, navigation to extraction (ms). */
  total: number | null;
}

/** A request of the page's own (not the main document) that failed or answered >= 400. */
export interface FailedRequest {
  url: string;
  /** HTTP status, or `null` when the request failed without a response. */
  status: number | null;
  /** Chromium's failure text (e.g. `net::ERR_CONNECTION_REFUSED`) or `null`. */
  failure: string | null;
  /** Playwright resource type: `script`, `stylesheet`, `image`, `fetch`, … */
  resourceType: string;
}

/** A JavaScript dialog the page opened. */
export interface DialogRecord {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload';
  message: string;
}

/** Metadata of a rendered page. */
export interface PageMeta {
  /** Content of `<meta name="description">`, or `null` when absent. */
  description: string | null;
  /** `<link rel="canonical">` resolved against the page, or `null`. */
  canonical: string | null;
  /** Number of `<h1>` elements. */
  h1Count: number;
}

/**
 * The answer to one request spacrawl made outside any page, on behalf of a link of the page
 * whose record carries it (`linkChecks`). Requests go through the crawl's one `HttpClient`
 * with the crawl's User-Agent, proxy and TLS settings (`--header` only to in-scope origins);
 * each URL is requested once per run and the answer shared by every page that links to it.
 *
 * Kept on the referring page's record (rather than in a record of its own) so that each record
 * stays self-contained: `audit()` of the stored records, e.g. by `export`, gives the same report.
 */
export interface LinkCheck {
  /** The URL requested (canonical). */
  url: string;
  /**
   * `link`: a link of the page (an off-site link with `--check-external`, or an `http://` link of
   * an `https:` page); `https-form`: the `https://` form of such an `http://` link, probed for the
   * `insecure-link` rule. It is not itself a link of the page and never feeds `broken-link`.
   */
  kind: 'link' | 'https-form';
  /** The method whose answer is recorded: `HEAD`, or `GET` when HEAD failed or answered >= 400. */
  method: 'HEAD' | 'GET';
  /** HTTP status of the last response after redirects (at most 10 hops); `null` with `error`. */
  status: number | null;
  /** For a 403 from a bot wall: the header that says so (e.g. `cf-mitigated: challenge`), else `null`. */
  blockedBy: string | null;
  /** No usable response: `code` is `timeout` or `network`. */
  error: RecordError | null;
}

/** A link with a plain fragment (`#id`), kept with `--check-fragments` for the `broken-fragment` rule. */
export interface FragmentLink {
  /** Canonical URL of the target page (the fragment dropped, as in `links`). */
  url: string;
  /** The fragment without `#`, percent-decoded: the id or name the target must have. */
  fragment: string;
  /** Anchor text, as in `linkDetails`. */
  text: string;
}

/**
 * Why a page answering 200 is a soft 404:
 * - `fingerprint`: its rendering matches what a made-up URL under the same route prefix
 *   rendered (the site's own not-found screen);
 * - `not-found-heading`: a near-empty page whose heading says "not found" / "404";
 * - `not-found-title`: a near-empty page whose title says it.
 */
export type Soft404Reason = 'fingerprint' | 'not-found-heading' | 'not-found-title';

/** Why a URL has a record but was not visited. */
export type SkipReason = 'robots' | 'scope' | 'budget' | 'non-html' | 'trap' | 'duplicate';

/** Failure without a usable HTTP response. `code` is one of {@link ErrorCode}. */
export interface RecordError {
  code: string;
  message: string;
}

/** Error codes a record's `error.code` may carry. */
export type ErrorCode =
  | 'timeout'
  | 'network'
  | 'too-many-dialogs'
  | 'page-crashed'
  | 'browser-crashed'
  | 'navigation-failed';

/** The record of one URL (DESIGN.md, "PageRecord"). */
export interface PageRecord {
  /** Canonical form of the requested URL: the frontier key. */
  url: string;
  /** The URL as resolved from the link (plain fragment dropped): what went on the wire. */
  requestedUrl: string | null;
  /** The page's URL after server and client redirects; `null` if nothing loaded. */
  finalUrl: string | null;
  /** Hops before `finalUrl`; `[]` if none. */
  redirectChain: RedirectHop[];
  /**
   * HTTP status of the final main document; `null` if no response. Also set when the browser
   * renders nothing (204, 205, a 304, a 3xx without `Location`, an empty body): `error` stays `null`.
   */
  status: number | null;
  /** Content type of the main document (the header value as sent). */
  contentType: string | null;
  /** `document.title`, trimmed; `null` for non-HTML and for a response with nothing to render. */
  title: string | null;
  /** Link distance from a seed; seeds are 0. */
  depth: number;
  /** Canonical URL of the page where this URL was first found; `null` for seeds. */
  referrer: string | null;
  /** Canonical in-scope URLs found on the page (deduplicated, in document order). */
  links: string[];
  /** Every link found, in scope or not. */
  linkDetails: LinkDetail[];
  /** Canonical off-site http(s) URLs found. */
  externalLinks: string[];
  /** How many links came from each source (see {@link LinkSource}). */
  linkSources: Partial<Record<LinkSource, number>>;
  /** URLs of the frames of other origins the page embeds (listed, not entered; at most 50). */
  frames: string[];
  /** `true` if the page went quiet before the settle cap. */
  settled: boolean;
  timings: PageTimings;
  /** Console messages of type `error`. */
  consoleErrors: string[];
  /** Uncaught exceptions (`message` plus the top of the stack). */
  pageErrors: string[];
  failedRequests: FailedRequest[];
  /** Dialogs the page opened (at most 10 kept). */
  dialogs: DialogRecord[];
  /** URLs of downloads the page tried to start; all were cancelled, nothing was saved. */
  downloads: string[];
  /** Screenshot path relative to the screenshots folder, or `null`. */
  screenshot: string | null;
  /** Navigations made for this URL. */
  attempts: number;
  /** HTTP 200 rendering the site's "not found" screen (see `soft404Reason`). */
  soft404: boolean;
  /** Why the page is a soft 404 (see {@link Soft404Reason}); `null` when it is not one. */
  soft404Reason: Soft404Reason | null;
  /** Page metadata for the audit: `<meta name="description">`, `<link rel="canonical">` (resolved), number of `<h1>`. */
  meta: PageMeta;
  /** `http:` subresources loaded by an `https:` page. */
  mixedContent: string[];
  /** For a 403: the bot-wall header that answered (e.g. `cf-mitigated: challenge`), else `null`. */
  blockedBy: string | null;
  /** The page asked not to be indexed (`noindex` in `<meta name="robots">` or `X-Robots-Tag`). */
  noindex: boolean;
  /** The page asked that its links not be followed (`nofollow`); none were followed. */
  nofollow: boolean;
  /** Only when there was no usable HTTP response; an HTTP 404 is `status: 404, error: null`. */
  error: RecordError | null;
  /**
   * Requests made outside the page for its links (see {@link LinkCheck}): with `--check-external`
   * one per off-site link, and for each `http://` link of an `https:` page (in scope, or off-site
   * with `--check-external`) the link and its `https://` form. `[]` when none were made.
   */
  linkChecks: LinkCheck[];
  /**
   * With `--check-fragments`: every `id`, and the `name` of every `<a>`, in the rendered document
   * (what a `#fragment` may point to; shadow roots and frames excluded), each once, at most
   * 10000. `null` without the flag, and for pages that were not rendered.
   */
  anchors: string[] | null;
  /** With `--check-fragments`: the page's in-scope links with a plain fragment (`[]` otherwise). */
  fragmentLinks: FragmentLink[];
  /**
   * `true` for a redirect record: the URL only forwards (HTTP 3xx, meta refresh, script or
   * history navigation) to `finalUrl`, whose page is recorded under another URL, or is off-site
   * (then also `skipped: "scope"`, and `finalUrl` was never loaded). A redirect record carries its
   * `redirectChain`, `finalUrl` and `status` (what the URL itself answered: the first hop's 3xx,
   * or its own status for a client-side forward), no title and no links; it is counted in the
   * summary's `redirects`, not in `pages` (DESIGN.md, "Counting").
   */
  redirect: boolean;
  /** Why the URL was not visited, or `null` if it was. */
  skipped: SkipReason | null;
  /** With `skipped: "duplicate"`: the canonical URL whose content this one repeats. */
  duplicateOf: string | null;
}

/** Version of the output schema carried by JSON summaries and reports (never a JSON Lines row). */
export const SCHEMA_VERSION = 1;

/** Timings with every value unknown. */
export function emptyTimings(): PageTimings {
  return { ttfb: null, domContentLoaded: null, load: null, settledMs: null, serverWaitMs: null, total: null };
}

/**
 * A record with every field at its default, for a URL that was decided about.
 * @param url - canonical URL (the frontier key)
 * @param requestedUrl - URL as resolved from the link, or `null`
 * @param depth - link distance from a seed (seeds are 0)
 * @param referrer - canonical URL of the referring page, `null` for seeds
 */
export function blankRecord(url: string, requestedUrl: string | null, depth: number, referrer: string | null): PageRecord {
  return {
    url,
    requestedUrl,
    finalUrl: null,
    redirectChain: [],
    status: null,
    contentType: null,
    title: null,
    depth,
    referrer,
    links: [],
    linkDetails: [],
    externalLinks: [],
    linkSources: {},
    frames: [],
    settled: false,
    timings: emptyTimings(),
    consoleErrors: [],
    pageErrors: [],
    failedRequests: [],
    dialogs: [],
    downloads: [],
    screenshot: null,
    attempts: 0,
    soft404: false,
    soft404Reason: null,
    meta: { description: null, canonical: null, h1Count: 0 },
    mixedContent: [],
    blockedBy: null,
    noindex: false,
    nofollow: false,
    error: null,
    linkChecks: [],
    anchors: null,
    fragmentLinks: [],
    redirect: false,
    skipped: null,
    duplicateOf: null,
  };
}

/**
 * `true` if the record counts as a page (DESIGN.md, "Counting"): not skipped, and not a redirect
 * record (a URL that only forwards to a page recorded under another URL).
 */
export function isPage(r: PageRecord): boolean {
  return r.skipped === null && !r.redirect;
}

/** `true` for an in-scope redirect record (counted in the summary's `redirects`). */
export function isRedirectRecord(r: PageRecord): boolean {
  return r.skipped === null && r.redirect;
}

/**
 * A record read back from a store or a file written by an older spacrawl, with every field of
 * today's schema: fields it lacks get their defaults from {@link blankRecord} (e.g. `redirect:
 * false` for records written before redirect records existed). Fields it has are kept as they are.
 * @param raw - a parsed record object (its `url`, `requestedUrl`, `depth` and `referrer` are kept)
 */
export function upgradeRecord(raw: Partial<PageRecord> & { url: string }): PageRecord {
  const base = blankRecord(raw.url, raw.requestedUrl ?? null, raw.depth ?? 0, raw.referrer ?? null);
  return { ...base, ...raw, timings: { ...base.timings, ...(raw.timings ?? {}) }, meta: { ...base.meta, ...(raw.meta ?? {}) } };
}

/** `true` if the page counts as an error (DESIGN.md: an `error`, or a status >= 400). */
export function isErrorPage(r: PageRecord): boolean {
  return isPage(r) && (r.error !== null || (r.status !== null && r.status >= 400));
}
