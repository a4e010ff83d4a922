/**
 * The visit's contract with its caller: what it is asked to do ({@link VisitOptions}) and what
 * it saw ({@link VisitResult}, the model's `PageObservation` plus what the crawler decides on).
 * @module
 */
import { blankObservation, type PageObservation, type RecordError } from '../../model/record.js';
import type { FoundLink } from '../discovery.js';
import type { A11yOptions } from '../a11y.js';
import type { DocumentShells } from '../document-shells.js';
import type { ClickOptions, ScrollOptions } from '../explore.js';
import type { MeasureGate } from '../measure-gate.js';
import type { ThrottleProfile } from '../throttle.js';

/** How vitals are measured (`--vitals`). */
export interface VitalsOptions {
  /** Throttling while measured (`--vitals-throttle`). @default 'none' */
  throttle: ThrottleProfile;
}

/** How one page visit behaves. Times in milliseconds. */
export interface VisitOptions {
  /** Cap on the navigation up to DOMContentLoaded (ms). */
  navigationTimeoutMs: number;
  /** Cap on waiting for the page to go quiet after DOMContentLoaded (ms). */
  settleTimeoutMs: number;
  /** How long network and DOM must both be quiet to call the page settled (ms, >= 300). */
  quietMs: number;
  /** Absolute path of the full-page PNG to write, or `null` for none. */
  screenshotPath: string | null;
  /** How the screenshot is taken (with `screenshotPath`). @default the whole page, nothing hidden or masked */
  screenshot?: ScreenshotSettings;
  /** More dialogs than this in one visit end it with `too-many-dialogs`. @default 10 */
  maxDialogs: number;
  /**
   * Called when the main document's response arrives, with the URL that answered (after any
   * redirects: maybe another host than the one asked). Returning `true` ends the visit there
   * (no settle, no extraction): the crawler will retry it anyway.
   */
  onMainResponse?: (status: number, headers: Record<string, string>, at: number, url: string | null) => boolean;
  /**
   * Asked for every main-frame document response of the visit up to extraction, before the
   * browser acts on it: each redirect hop (with its `Location` target) and each final document,
   * the first navigation's and any client-side navigation's (meta refresh, `location` change).
   * `"stop"` ends the navigation there: the target of a hop is never requested, a final document
   * is never rendered; the visit's `stopped` says where and why. Absent = follow everything.
   */
  onDocument?: (doc: DocumentResponse) => DocumentDecision | Promise<DocumentDecision>;
  /** Awaited right before the navigation request is sent (the politeness gate). */
  beforeNavigate?: () => Promise<void>;
  /**
   * Called once, when the page's first navigation request goes out (Playwright's `request`
   * event), with its time (ms since epoch): politeness spaces the next navigation from it.
   */
  onNavigationSent?: (at: number) => void;
  /**
   * Called when each later main-frame document request of the visit goes out (a redirect's
   * target, a client-side navigation's request: Playwright's `request` event), with its URL and
   * time (ms since epoch): politeness spaces the next navigation to that host from it.
   */
  onDocumentSent?: (url: string, at: number) => void;
  /**
   * Visit a hash route of the document the tab shows by changing the hash instead of loading it,
   * when it is safe (see `visit/hash-route.ts`); else, or when absent, load. @default false
   */
  reuseDocument?: boolean;
  /**
   * The crawl's app shells, for reaching another path of a shell the tab
   * shows by routing its app instead of loading it (see `visit/history-route.ts`); `null` or
   * absent: paths are always loaded.
   */
  shells?: DocumentShells | null;
  /** Request headers sent with a history route's request for its document (the crawl's `--header`s). */
  documentHeaders?: Record<string, string>;
  /** Click discovery (`--click`), or `null` for none. */
  click?: ClickOptions | null;
  /** Scroll discovery (`--scroll`, see `scrollForLinks`), or `null` for none. */
  scroll?: ScrollOptions | null;
  /**
   * Told of links while discovery goes on, with the visit's result as read so far (status, robots
   * rules, redirect chain): first the links the page shows without discovery, right before it
   * starts scrolling or clicking, then after each click the links that click found. A page's
   * links need not wait for all its clicks (seconds on a page with many). Not told when there is
   * nothing to scroll or click. Absent = nothing is told.
   */
  linksFound?: (sofar: Readonly<VisitResult>, links: readonly FoundLink[]) => void;
  /** Aborts the visit (cancellation); the result then has `error.code = "interrupted"`. */
  signal?: AbortSignal;
  /** Read the `id`s and `name`s of the rendered document into `anchors` (`--check-fragments`). @default false */
  collectAnchors?: boolean;
  /**
   * CSS selectors to look for in the rendered document (`--logged-out selector:…`): those that
   * match a rendered element (with a size, not `visibility: hidden`) go into `selectorsFound`.
   * @default none
   */
  lookFor?: readonly string[];
  /** Run axe-core on the page and on each state a click revealed, into `a11y` (`--a11y`), or `null` for none. */
  a11y?: A11yOptions | null;
  /**
   * Measure Core Web Vitals and page weight into `vitals` (`--vitals`), or `null` for none. The
   * tab's context must carry `vitalsInitScript()` (see `PoolOptions.initScripts`).
   */
  vitals?: VitalsOptions | null;
  /**
   * Pages measured alone (`--vitals-concurrency`): with `vitals`, the visit's navigation to its
   * vitals read holds the gate for measuring; every other step of every visit sharing the gate
   * (with or without `vitals`) holds it for work. Absent = no gate.
   */
  measureGate?: MeasureGate | null;
}

/** How a visit's screenshot is taken (`--screenshot`, `--hide`, `--visual-mask`). */
export interface ScreenshotSettings {
  /** `true`: the whole scrollable page; `false`: the viewport, scrolled to the top. */
  fullPage: boolean;
  /** CSS selectors of elements made invisible during the shot (their space is kept). */
  hide: readonly string[];
  /** Selectors of elements painted as solid magenta boxes in the shot (`MASK_COLOR` of the screenshot stage). */
  mask: readonly string[];
}

/**
 * A main-frame document, as {@link VisitOptions.onDocument} sees it: a response, or a
 * client-side navigation's request before it is sent.
 */
export interface DocumentResponse {
  /** The URL that answered, or is about to be requested (absolute). */
  url: string;
  /**
   * Its HTTP status; `null` for a client-side navigation not answered yet (asked before its
   * request is sent: a stop then means it is never requested) or that got no answer (a host that
   * cannot be reached).
   */
  status: number | null;
  /** For a redirect (3xx with `Location`): the target, resolved against `url`; else `null`. */
  location: string | null;
  /** `true` while the visit's first navigation is under way (its redirect hops and its document); `false` for a client-side navigation after it. */
  initial: boolean;
}

/**
 * What to do with a main-frame document response: `follow` lets the browser go on; `stop`
 * ends the navigation there, and says why: `scope` (the target is outside the crawl's scope),
 * `robots` (robots.txt disallows the target), `known` (the target's page is recorded, or
 * being recorded, under another URL), `logged-out` (the target is the login page: the
 * crawl's session has ended, or does not reach this page) or `logout` (the target is a sign-out
 * URL, never requested while the crawl is logged in).
 */
export type DocumentDecision = 'follow' | { stop: StopReason };

/** Why a navigation was stopped: see {@link DocumentDecision}. */
export type StopReason = 'scope' | 'robots' | 'known' | 'logged-out' | 'logout';

/** Where a visit's navigation was stopped by {@link VisitOptions.onDocument}. */
export interface StoppedNavigation {
  /** Why: see {@link DocumentDecision}. */
  reason: StopReason;
  /** The URL the page was headed for (a hop's target or a final document's URL); never rendered. */
  target: string;
  /** `http` when a redirect hop was stopped (the target never requested), `client` for a client-side navigation. */
  kind: 'http' | 'client';
}

/**
 * What a visit saw: everything the crawler needs to build a PageRecord. The observed fields
 * ({@link PageObservation}) go into the record as they are; the rest is what the crawler
 * decides on (links, retries, robots rules, soft 404s, redirect records).
 */
export interface VisitResult extends PageObservation {
  /** Links found (document, frames, popups, scroll and click discovery), before the link pipeline. */
  links: FoundLink[];
  /** `true` when the main document was not HTML: not rendered, no links, no title. */
  nonHtml: boolean;
  /**
   * `true` when the server's answer had nothing to render: Chromium did not render it (204, 205,
   * a 304 nobody asked for, an error status with an empty body; see `UNRENDERED_ANSWER`),
   * or the document it rendered is empty (an empty 200, a 3xx without `Location` or body).
   * `title` is then `null` and there are no links.
   */
  noContent: boolean;
  /** The main document's `X-Robots-Tag` header lines, one entry per line as sent. */
  robotsHeaders: string[];
  /** The page's `<meta name>` tags (robots rules are read per name: see `robotsRulesFor`). */
  robotsMeta: { name: string; content: string }[];
  /** The main document's `Retry-After` header, if any. */
  retryAfter: string | null;
  /** When the main document's response arrived (ms since epoch), or `null`. */
  respondedAt: number | null;
  /** Clicks made while exploring. */
  clicks: number;
  /** Normalized visible text (title + body), for soft-404 and duplicate fingerprints; '' if none. */
  text: string;
  /** The page's first `<h1>` text, trimmed. */
  h1: string;
  /** Texts of the page's headings (`h1`–`h6`, `role="heading"`), at most 10. */
  headings: string[];
  /** `true` if the screenshot was written. */
  screenshot: boolean;
  /** The `lookFor` selectors that matched a rendered element. */
  selectorsFound: string[];
  /**
   * Set when `onDocument` stopped the navigation: the page only forwards to `target`. Then
   * `redirectChain` holds every hop up to and including the one stopped (a stopped hop with its
   * 3xx status; a stopped client navigation as a `client` hop of the page's own URL), `finalUrl`
   * is `target`, and `status` is what the requested URL itself answered (its first response).
   */
  stopped: StoppedNavigation | null;
  /** `true` when the visit was cut short by cancellation (nothing to record). */
  interrupted: boolean;
  /** `true` when the page could not be closed cleanly: the context should be discarded. */
  contextBroken: boolean;
  /**
   * SHA-1 (hex) of the shown document's body as the server sent it (read for the server-HTML
   * view, see the inspect stage), or `null` when it was not read.
   */
  bodyDigest: string | null;
}

/** A visit result before anything was seen: {@link blankObservation} plus empty visit fields. */
export function blankVisitResult(): VisitResult {
  return {
    ...blankObservation(),
    links: [],
    nonHtml: false,
    noContent: false,
    robotsHeaders: [],
    robotsMeta: [],
    retryAfter: null,
    respondedAt: null,
    clicks: 0,
    text: '',
    h1: '',
    headings: [],
    screenshot: false,
    selectorsFound: [],
    stopped: null,
    interrupted: false,
    contextBroken: false,
    bodyDigest: null,
  };
}

/** Thrown by a stage's `step` when the visit is aborted (hard deadline, cancellation, crash, too many dialogs). */
export class VisitAbort extends Error {
  /** @param recordError - what the record's `error` becomes */
  constructor(readonly recordError: RecordError) {
    super(recordError.message);
    this.name = 'VisitAbort';
  }
}
