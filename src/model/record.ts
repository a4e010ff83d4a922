/**
 * The unit of output: one {@link PageRecord} per URL the crawl decided about.
 * Field meanings follow DESIGN.md ("PageRecord"); every field is present in every record.
 * @module
 */

import { blankObservation, type PageObservation, type RecordError } from './observation.js';

export {
  blankObservation,
  blankSpaSignals,
  emptyTimings,
  observationOf,
  OBSERVATION_FIELDS,
  type A11yAudit,
  type A11yImpact,
  type A11yViolation,
  type DialogRecord,
  type ErrorCode,
  type FailedRequest,
  type PageMeta,
  type PageObservation,
  type PageTimings,
  type PageVitals,
  type RecordError,
  type RedirectHop,
  type ServerHtml,
  type SpaSignals,
} from './observation.js';

/**
 * How a link was found on a page: `anchor` (an `<a href>`, `<area href>` or SVG `<a>` of the
 * document), `shadow` (the same inside a shadow root), `frame` (inside a same-origin frame),
 * `frame-src` (the `src` of an `<iframe>` or `<frame>`: the frame's document is a URL of the
 * crawl too), `popup` (`window.open`), `refresh` (a `<meta http-equiv="refresh">` whose delay
 * outlasted the visit: a person is sent there once it has passed), `click` and `scroll` (click
 * and scroll discovery), `sitemap`.
 */
export type LinkSource = 'anchor' | 'shadow' | 'frame' | 'frame-src' | 'popup' | 'refresh' | 'click' | 'scroll' | 'sitemap';

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

/** Cap on `linkDetails` per record, so a page with 100k links cannot bloat the report (its `links` and `externalLinks` keep them all). */
export const MAX_LINK_DETAILS = 2000;
/**
 * Most characters of a page's title in the record (`title`, and `serverHtml.title`). A title is a
 * line in a tab; a page whose `<title>` held 5 MB made a 7.3 MB record (and the same in every
 * report that names the page). Also written as a literal in `extractPage`, which runs in the page.
 */
export const MAX_TITLE_CHARS = 1000;

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

/**
 * Why a URL was decided without a visit. `logout`: a sign-out URL (its path, query or link text
 * says log out / sign out / log off), never requested while the crawl is logged in.
 * `unreachable` is the frontier's reason only: its host could not be reached at all, not even for the
 * request for robots.txt (connection refused, DNS failure, timeout), so nothing was requested
 * (RFC 9309 §2.3.1.4). Its record is that of a URL whose request failed on the network
 * (`skipped: null`, `error.code` `network` naming the failure, `status: null`), with `attempts: 0`
 * (see {@link isUnreachable}), so it counts as a page with an error (a broken link), as a
 * connection refused to the page itself does.
 */
export type SkipReason = 'robots' | 'scope' | 'budget' | 'non-html' | 'trap' | 'duplicate' | 'logout' | 'unreachable';

/**
 * The record of one URL (DESIGN.md, "PageRecord"): what its visit observed
 * ({@link PageObservation}, carried as the visit saw it), plus the crawl's own fields.
 */
export interface PageRecord extends PageObservation {
  /** Canonical form of the requested URL: the frontier key. */
  url: string;
  /** The URL as resolved from the link (plain fragment dropped): what went on the wire. */
  requestedUrl: string | null;
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
  /** Screenshot path relative to the screenshots folder, or `null`. */
  screenshot: string | null;
  /** Navigations made for this URL. */
  attempts: number;
  /** HTTP 200 rendering the site's "not found" screen (see `soft404Reason`). */
  soft404: boolean;
  /** Why the page is a soft 404 (see {@link Soft404Reason}); `null` when it is not one. */
  soft404Reason: Soft404Reason | null;
  /** The page asked not to be indexed (`noindex` in `<meta name="robots">` or `X-Robots-Tag`). */
  noindex: boolean;
  /** The page asked that its links not be followed (`nofollow`); none were followed. */
  nofollow: boolean;
  /**
   * Requests made outside the page for its links (see {@link LinkCheck}): with `--check-external`
   * one per off-site link, and for each `http://` link of an `https:` page (in scope, or off-site
   * with `--check-external`) the link and its `https://` form. `[]` when none were made.
   */
  linkChecks: LinkCheck[];
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

/**
 * A record with every field at its default, for a URL that was decided about: the observed
 * fields from {@link blankObservation}, the crawl's own fields empty.
 * @param url - canonical URL (the frontier key)
 * @param requestedUrl - URL as resolved from the link, or `null`
 * @param depth - link distance from a seed (seeds are 0)
 * @param referrer - canonical URL of the referring page, `null` for seeds
 */
export function blankRecord(url: string, requestedUrl: string | null, depth: number, referrer: string | null): PageRecord {
  return {
    url,
    requestedUrl,
    ...blankObservation(),
    depth,
    referrer,
    links: [],
    linkDetails: [],
    externalLinks: [],
    linkSources: {},
    screenshot: null,
    attempts: 0,
    soft404: false,
    soft404Reason: null,
    noindex: false,
    nofollow: false,
    linkChecks: [],
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

/**
 * `true` for the record of a URL whose host could not be reached at all, not even for robots.txt: a
 * network error with nothing requested (`attempts: 0`). Counted in the summary's `unreachable`.
 */
export function isUnreachable(r: PageRecord): boolean {
  return r.skipped === null && r.attempts === 0 && r.status === null && r.error?.code === 'network';
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

/** Kinds of the record fields {@link recordShapeProblem} checks (a field may also be absent; `?` also `null`). */
const FIELD_KINDS: Readonly<Record<string, string>> = {
  requestedUrl: 'string?', finalUrl: 'string?', status: 'number?', contentType: 'string?', title: 'string?', settled: 'boolean',
  depth: 'number', referrer: 'string?', skipped: 'string?', redirect: 'boolean', screenshot: 'string?',
  links: 'string[]', externalLinks: 'string[]', pageErrors: 'string[]', consoleErrors: 'string[]', frames: 'string[]',
  linkDetails: 'object[]', redirectChain: 'object[]', failedRequests: 'object[]', dialogs: 'object[]', downloads: 'string[]',
  mixedContent: 'string[]', timings: 'object', meta: 'object', error: 'object?',
};

/**
 * Why a record read back from outside (a JSON Lines file someone may have edited or another
 * program wrote) cannot be used as one, or `null`: the first field the reports read whose value
 * is of another kind than spacrawl writes (`pageErrors[0] is a object, not a string`). A field
 * left out is no problem (`upgradeRecord` gives it its default).
 */
export function recordShapeProblem(raw: Readonly<Record<string, unknown>>): string | null {
  const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  for (const [field, want] of Object.entries(FIELD_KINDS)) {
    if (!(field in raw)) continue;
    const v = raw[field];
    if (want.endsWith('[]')) {
      if (!Array.isArray(v)) return `${field} is ${kindOf(v)}, not a list`;
      const item = want.slice(0, -2);
      const bad = v.findIndex((x) => kindOf(x) !== item);
      if (bad >= 0) return `${field}[${bad}] is ${kindOf(v[bad])}, not ${item}`;
      continue;
    }
    const base = want.replace('?', '');
    if (kindOf(v) !== base && !(want.endsWith('?') && v === null)) return `${field} is ${kindOf(v)}, not ${base}`;
  }
  return null;
}

/** `true` if the page counts as an error (DESIGN.md: an `error`, or a status >= 400). */
export function isErrorPage(r: PageRecord): boolean {
  return isPage(r) && (r.error !== null || (r.status !== null && r.status >= 400));
}
