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
  /**
   * When the page was judged settled (the moment it was read, when the answer that found it
   * settled carried the read) or the settle cap expired (ms, from visit start).
   */
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
  /** `<link rel="canonical">` resolved against the page, else the canonical URL of its HTTP `Link` header (RFC 8288), or `null`. */
  canonical: string | null;
  /** Number of `<h1>` elements. */
  h1Count: number;
}

/** How much an accessibility violation hurts, as axe-core rates it. */
export type A11yImpact = 'minor' | 'moderate' | 'serious' | 'critical';

/**
 * One axe-core rule that failed on a page (or in a state a click revealed), as
 * `@axe-core/playwright` reported it. Compared by `rule` and `nodes`, never by message text.
 */
export interface A11yViolation {
  /** axe-core's rule id (`color-contrast`, `image-alt`, `button-name` …). */
  rule: string;
  /** axe-core's impact; `null` when axe gives none. */
  impact: A11yImpact | null;
  /** axe-core's one-line help text. */
  help: string;
  /** The rule's page at Deque University. */
  helpUrl: string;
  /** Elements that fail the rule (in a revealed state: only elements that did not fail on the page as read). */
  nodes: number;
  /**
   * CSS selectors of the first few failing elements (at most 3). An element in a shadow root is
   * its host's selector and its own joined by ` >> `; one in a frame, the frame's selector and its
   * own joined by ` | `.
   */
  targets: string[];
  /**
   * `null` for the page as read; for a state a click revealed (an opened menu, a tab panel, a
   * dialog), its name: `after clicking "Pricing" (button) on /`.
   */
  state: string | null;
}

/** What the accessibility check (`--a11y`) found on a page. */
export interface A11yAudit {
  /** The checker and its version, e.g. `axe-core 4.13.0`. */
  engine: string;
  /** The axe-core tags run (`wcag2a`, `wcag2aa` …). */
  tags: string[];
  /** Failed rules, the page as read first, then each revealed state in click order. */
  violations: A11yViolation[];
  /** Names of the revealed states checked, in click order (at most 50). */
  states: string[];
  /** Why a check could not finish (a timeout, a page that broke axe-core), else `null`. */
  error: string | null;
}

/**
 * Core Web Vitals and page weight measured in the page (`--vitals`): LCP, CLS, FCP and TTFB by
 * Google's `web-vitals` library (`reportAllChanges`, read when the page is read, see
 * `vitals-script.ts`), TBT from the page's long tasks, transfer size and request count from the
 * browser's network events. Times in ms from navigation start.
 */
export interface PageVitals {
  /** Largest Contentful Paint (ms); `null` when the page painted no candidate before it was read. */
  lcp: number | null;
  /** Cumulative Layout Shift (unitless: the largest session window of layout shifts). */
  cls: number | null;
  /**
   * Total Blocking Time (ms): for each long task (over 50 ms) after First Contentful Paint, the
   * time beyond 50 ms, summed up to when the page was read (Lighthouse's definition, with the
   * read time in place of Time to Interactive).
   */
  tbt: number | null;
  /** First Contentful Paint (ms). */
  fcp: number | null;
  /** Time to First Byte of the main document (ms). */
  ttfb: number | null;
  /** Bytes on the wire for the page up to when it was read (headers and encoded bodies; cache off while measuring). */
  transferBytes: number;
  /** Requests the page made up to when it was read, the main document included. */
  requests: number;
  /**
   * `true` when the page was measured alone (`--vitals-concurrency`: no other page of the crawl
   * was loading or being worked on meanwhile); `false` when it shared the machine with the
   * crawl's other pages in flight: then the times include the crawler's own contention.
   */
  alone: boolean;
  /** `mobile` when measured under Lighthouse's mobile throttling (CPU 4×, 150 ms RTT, 1.6 Mbps down), else `none`. */
  throttle: 'none' | 'mobile';
}

/**
 * Defects of single-page apps the visit sees anyway (on by default): text that was never
 * rendered, busy indicators still shown at read time, an app root that rendered nothing, and
 * the framework's hydration-mismatch messages.
 */
export interface SpaSignals {
  /**
   * Visible text that is an unrendered template or a bound value that never arrived
   * (`{{ user.name }}`, `${price}`, `[object Object]`, and `undefined`, `NaN` or `null` standing
   * alone); code, `<pre>`, form fields and scripts are not read. At most 10, each at most 120
   * characters.
   */
  unrendered: string[];
  /**
   * Busy indicators visible when the page was read (at most 5): `aria-busy <selector>`
   * (`aria-busy="true"`), `progressbar <selector>` (`role="progressbar"` without
   * `aria-valuenow`), `skeleton <selector>` (a class naming a skeleton placeholder).
   */
  busy: string[];
  /** The app root that rendered nothing (`#root`, `#app`, `#__next` …, or `body`), else `null`. */
  emptyRoot: string | null;
  /**
   * Hydration-mismatch messages of React, Vue, Svelte or Angular from the console (any level)
   * or uncaught errors, each prefixed with the framework (`React: …`); at most 10, each at most
   * 300 characters.
   */
  hydration: string[];
}

/**
 * What a client that does not run JavaScript (most AI crawlers, link previews) gets from the
 * page: the main document's HTML as the server sent it, next to the rendered page. Links are
 * counted as distinct http(s) targets (a plain `#fragment` dropped, a hash route kept); text as
 * characters of whitespace-collapsed text outside `<head>`, scripts, styles, templates and
 * `<noscript>`, the same way on both sides.
 */
export interface ServerHtml {
  /** `<title>` of the server's HTML (entities decoded, whitespace collapsed), or `null` when it has none. */
  title: string | null;
  /** Distinct link targets (`<a href>`, `<area href>`) in the server's HTML. */
  links: number;
  /** Text length of the server's HTML (characters). */
  textLength: number;
  /** Distinct link targets a person can follow on the rendered page (anchors, shadow roots, click and scroll discovery). */
  renderedLinks: number;
  /** Text length of the rendered page (characters, counted as for the server's HTML). */
  renderedTextLength: number;
  /** Rendered link targets that are not in the server's HTML. */
  jsOnlyLinks: number;
  /** The first few of them (at most 10), absolute URLs as the page links them. */
  jsOnlyLinkSamples: string[];
  /** Bytes of the server's HTML read. */
  bytes: number;
  /** `true` when the document was larger than what is read (see `MAX_SERVER_HTML_BYTES`): counts are of its start. */
  truncated: boolean;
}

/**
 * Click discovery on one page (`--click auto|all`): the clicks made (repeats and replays
 * included) and the clickables found and not clicked, by reason: `chrome` (the site's memory
 * knows their clicks reveal the same links on every page), `template` (controls of their template
 * revealed no link on two other pages), `budget` (the page's click time ran out; a chain of
 * clicks that keeps revealing links is never cut short), `limit` (`--click-limit` reached),
 * `restore` (a click left the page where it could not be brought back from without reloading it:
 * the page's clicks stopped there).
 */
export interface ClickDiscovery {
  made: number;
  skipped: { chrome: number; template: number; budget: number; limit: number; restore: number };
  /**
   * The controls worked on the page, each once, by their click-memory signature (`kind|name|landmark`,
   * `hover:` before a hovered one's kind; see `scanClickables`). Absent in records of spacrawl
   * versions before it (then which controls were clicked is unknown).
   */
  clicked?: string[];
  /**
   * Console errors, uncaught exceptions and failed requests raised after click discovery's first
   * click, each with the control worked last before it (a request: before it was sent; its
   * signature, as in `clicked`; at most 50). They are not in the record's `consoleErrors`,
   * `pageErrors`, `failedRequests`, `spa.hydration` and `mixedContent`, which hold what the page did as loaded: which pages
   * click a site-wide control depends on which come first (see `click-memory.ts`), so these differ
   * between two crawls of one site, and a diff compares them only where both crawls clicked the
   * control on the page. Absent in records of earlier versions (their `consoleErrors` and
   * `pageErrors` hold these too).
   */
  errors?: ClickError[];
}

/** A console error, uncaught exception, failed request, hydration mismatch or mixed-content request raised while click discovery worked the page (see {@link ClickDiscovery.errors}). */
export interface ClickError {
  /** The control worked last before it: its click-memory signature. */
  control: string;
  /**
   * `console`: a `console.error` message; `page`: an uncaught exception (message and top frame);
   * `request`: a request of the page that failed or answered >= 400; `hydration`: a
   * hydration-mismatch message (as in `spa.hydration`); `mixed-content`: an `http:` request of
   * an `https:` page (as in `mixedContent`). A console message or exception the page raised
   * before the first click too is the page's own (a timer's): listed once, as the page's.
   */
  kind: 'console' | 'page' | 'request' | 'hydration' | 'mixed-content';
  /**
   * As in `consoleErrors` / `pageErrors` / `spa.hydration` (at most 1000 characters); for a
   * request, its resource type, URL and status or failure (`fetch http://…/api/x: 404`, the URL
   * as in `failedRequests`); for mixed content, the URL (as in `mixedContent`).
   */
  message: string;
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
  | 'unresponsive'
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
  /** With `--a11y`: what axe-core found on the page and in the states clicks revealed; `null` without the flag and for pages not rendered. */
  a11y: A11yAudit | null;
  /** With `--vitals`: Core Web Vitals and page weight; `null` without the flag and for pages not rendered. */
  vitals: PageVitals | null;
  /** Single-page-app defects seen while reading the page (see {@link SpaSignals}). */
  spa: SpaSignals;
  /** The server's HTML next to the rendered page (see {@link ServerHtml}); `null` for pages not rendered or whose document could not be read. */
  serverHtml: ServerHtml | null;
  /** What click discovery did on the page (see {@link ClickDiscovery}); `null` with `--click off` and for pages not rendered. */
  clickDiscovery: ClickDiscovery | null;
}

/** Timings with every value unknown. */
export function emptyTimings(): PageTimings {
  return { ttfb: null, domContentLoaded: null, load: null, settledMs: null, lastChangeMs: null, serverWaitMs: null, total: null };
}

/** SPA signals with nothing seen. */
export function blankSpaSignals(): SpaSignals {
  return { unrendered: [], busy: [], emptyRoot: null, hydration: [] };
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
    a11y: null,
    vitals: null,
    spa: blankSpaSignals(),
    serverHtml: null,
    clickDiscovery: null,
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
