/**
 * What one page visit observes and the page's record carries as it is: declared once here as
 * {@link PageObservation}, with one default ({@link blankObservation}). The browser's
 * `VisitResult` and the model's `PageRecord` both extend it, so a new observed field is one
 * edit here (its type and its default) and flows from the visit into the record by
 * {@link observationOf}. This module imports nothing.
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
   * When the page's links or title last changed before it was read (ms, from visit start): the
   * last DOM mutation that added, removed or changed a link (`<a>`, `<area>`, `<iframe>`,
   * `<frame>`, in shadow roots and same-origin frames too) or changed the title. The parsing of
   * the document counts. `settledMs - lastChangeMs` is the time spent waiting after the page's
   * content was final. Later than `settledMs` when the links still changed after the settle
   * ended (a page read at the settle cap). `null` when not measured (nothing rendered, the page
   * only forwards, or the page could not be asked).
   */
  lastChangeMs: number | null;
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

/**
 * The fields a page visit fills that a `PageRecord` carries unchanged (DESIGN.md, "PageRecord",
 * has the same meanings). Fields the record computes from the visit (`noindex`, `nofollow`,
 * `skipped: "non-html"`, the title rule, the screenshot's file name) and the crawl's own fields
 * (depth, links, attempts …) are not here.
 */
export interface PageObservation {
  /** The page's URL after server and client redirects; `null` if nothing loaded. */
  finalUrl: string | null;
  /** Hops before `finalUrl` (HTTP 3xx and client-side navigations); `[]` if none. */
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
  /** URLs of the frames of other origins the page embeds (listed, not entered; at most 50). */
  frames: string[];
  /** `true` if the page went quiet before the settle cap. */
  settled: boolean;
  timings: PageTimings;
  /** Console messages of type `error` (at most 50, each at most 1000 characters). */
  consoleErrors: string[];
  /** Uncaught exceptions (`message` plus the top of the stack; at most 50). */
  pageErrors: string[];
  /** The page's own requests that failed or answered >= 400 (at most 50). */
  failedRequests: FailedRequest[];
  /** Dialogs the page opened (at most 10 kept). */
  dialogs: DialogRecord[];
  /** URLs of downloads the page tried to start; all were cancelled, nothing was saved. */
  downloads: string[];
  /** Page metadata for the audit: `<meta name="description">`, `<link rel="canonical">` (resolved), number of `<h1>`. */
  meta: PageMeta;
  /** `http:` subresources loaded by an `https:` page. */
  mixedContent: string[];
  /** For a 403: the bot-wall header that answered (e.g. `cf-mitigated: challenge`), else `null`. */
  blockedBy: string | null;
  /** Only when there was no usable HTTP response; an HTTP 404 is `status: 404, error: null`. */
  error: RecordError | null;
  /**
   * With `--check-fragments`: every `id`, and the `name` of every `<a>`, in the rendered document
   * (what a `#fragment` may point to; shadow roots and frames excluded), each once, at most
   * 10000. `null` without the flag, and for pages that were not rendered.
   */
  anchors: string[] | null;
}

/** Timings with every value unknown. */
export function emptyTimings(): PageTimings {
  return { ttfb: null, domContentLoaded: null, load: null, settledMs: null, lastChangeMs: null, serverWaitMs: null, total: null };
}

/** An observation with every field at its default (nothing loaded, nothing seen); fresh arrays and objects each call. */
export function blankObservation(): PageObservation {
  return {
    finalUrl: null,
    redirectChain: [],
    status: null,
    contentType: null,
    title: null,
    frames: [],
    settled: false,
    timings: emptyTimings(),
    consoleErrors: [],
    pageErrors: [],
    failedRequests: [],
    dialogs: [],
    downloads: [],
    meta: { description: null, canonical: null, h1Count: 0 },
    mixedContent: [],
    blockedBy: null,
    error: null,
    anchors: null,
  };
}

/** The names of the observed fields, in record order (taken from {@link blankObservation}). */
export const OBSERVATION_FIELDS: readonly (keyof PageObservation)[] = Object.freeze(Object.keys(blankObservation()) as (keyof PageObservation)[]);

/**
 * Exactly the observed fields of `from` (a `VisitResult`, a `PageRecord` …), nothing else, so it
 * can be spread into a record without carrying the visit's other fields along. Values are not
 * copied (arrays and objects are shared with `from`).
 */
export function observationOf(from: PageObservation): PageObservation {
  const out: Partial<Record<keyof PageObservation, unknown>> = {};
  for (const k of OBSERVATION_FIELDS) out[k] = from[k];
  return out as PageObservation;
}
