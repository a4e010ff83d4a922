import type { BrowserContext, CDPSession, Page, Request, Response } from 'playwright';
import type { DialogRecord, FailedRequest, PageTimings, RecordError, RedirectHop } from '../model/record.js';
import type { LinkSource, PageMeta } from '../model/record.js';
import { toRequestUrl } from '../url/normalize.js';
import { exploreClicks, scrollForLinks, type ClickOptions, type ScrollOptions } from './explore.js';
import { readFrames } from './frames.js';
import { extractPage, readAnchors, settleState, type SettleState, type RawLink } from './page-scripts.js';
import { RepollWatch } from './repoll.js';
import { ServerWait } from './server-wait.js';
import { sleep, withTimeout } from './timeout.js';

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
  /** More dialogs than this in one visit end it with `too-many-dialogs`. @default 10 */
  maxDialogs: number;
  /**
   * Called when the main document's response arrives. Returning `true` ends the visit there
   * (no settle, no extraction): the crawler will retry it anyway.
   */
  onMainResponse?: (status: number, headers: Record<string, string>, at: number) => boolean;
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
  /** Click discovery (`--click`), or `null` for none. */
  click?: ClickOptions | null;
  /** Scroll discovery (`--scroll`, see `scrollForLinks`), or `null` for none. */
  scroll?: ScrollOptions | null;
  /** Aborts the visit (cancellation); the result then has `error.code = "interrupted"`. */
  signal?: AbortSignal;
  /** Read the `id`s and `name`s of the rendered document into `anchors` (`--check-fragments`). @default false */
  collectAnchors?: boolean;
}

/** A main-frame document response, as {@link VisitOptions.onDocument} sees it. */
export interface DocumentResponse {
  /** The URL that answered (absolute). */
  url: string;
  /** Its HTTP status. */
  status: number;
  /** For a redirect (3xx with `Location`): the target, resolved against `url`; else `null`. */
  location: string | null;
  /** `true` while the visit's first navigation is under way (its redirect hops and its document); `false` for a client-side navigation after it. */
  initial: boolean;
}

/**
 * What to do with a main-frame document response: `follow` lets the browser go on; `stop`
 * ends the navigation there, and says why: `scope` (the target is outside the crawl's scope),
 * `robots` (robots.txt disallows the target) or `known` (the target's page is recorded, or
 * being recorded, under another URL).
 */
export type DocumentDecision = 'follow' | { stop: StopReason };

/** Why a navigation was stopped: see {@link DocumentDecision}. */
export type StopReason = 'scope' | 'robots' | 'known';

/** Where a visit's navigation was stopped by {@link VisitOptions.onDocument}. */
export interface StoppedNavigation {
  /** Why: see {@link DocumentDecision}. */
  reason: StopReason;
  /** The URL the page was headed for (a hop's target or a final document's URL); never rendered. */
  target: string;
  /** `http` when a redirect hop was stopped (the target never requested), `client` for a client-side navigation. */
  kind: 'http' | 'client';
}

/** A link found by a visit, before the link pipeline. */
export interface FoundLink {
  href: string;
  text: string;
  source: LinkSource;
  rel: string;
}

/** What a visit saw: everything the crawler needs to build a PageRecord. */
export interface VisitResult {
  /** The page's URL after server and client redirects; `null` if nothing loaded. */
  finalUrl: string | null;
  /** HTTP (and client) hops before `finalUrl`. */
  redirectChain: RedirectHop[];
  status: number | null;
  contentType: string | null;
  /** `document.title` trimmed; `null` for non-HTML or when nothing was read. */
  title: string | null;
  links: FoundLink[];
  /** `true` when the main document was not HTML: not rendered, no links, no title. */
  nonHtml: boolean;
  /**
   * `true` when the server's answer had nothing to render: Chromium did not render it (204, 205,
   * a 304 nobody asked for, an error status with an empty body; see {@link UNRENDERED_ANSWER}),
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
  settled: boolean;
  timings: PageTimings;
  consoleErrors: string[];
  pageErrors: string[];
  failedRequests: FailedRequest[];
  dialogs: DialogRecord[];
  /** Clicks made while exploring. */
  clicks: number;
  /** URLs of cross-origin frames (listed, not entered). */
  frames: string[];
  /** Normalized visible text (title + body), for soft-404 and duplicate fingerprints; '' if none. */
  text: string;
  /** The page's first `<h1>` text, trimmed. */
  h1: string;
  /** Texts of the page's headings (`h1`–`h6`, `role="heading"`), at most 10. */
  headings: string[];
  /** Description, canonical and `<h1>` count. */
  meta: PageMeta;
  /** `http:` subresources of an `https:` page. */
  mixedContent: string[];
  /** With `collectAnchors`: the document's ids and names (see `readAnchors`); else `null`. */
  anchors: string[] | null;
  /** For a 403 answered by a bot wall: the header that says so. */
  blockedBy: string | null;
  /** URLs of downloads the page started (all cancelled). */
  downloads: string[];
  /** `true` if the screenshot was written. */
  screenshot: boolean;
  error: RecordError | null;
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
}

class VisitAbort extends Error {
  constructor(readonly recordError: RecordError) {
    super(recordError.message);
  }
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;
/**
 * How Chromium fails a navigation whose answer arrived in full but is not rendered: `ERR_ABORTED`
 * for a bodiless status (204 and 205, which the HTML standard's navigate algorithm drops, and a
 * 304 to a request that asked for none) and `ERR_HTTP_RESPONSE_CODE_FAILURE` for an error status
 * with an empty body (Chromium shows its own error page), and `ERR_INVALID_AUTH_CREDENTIALS` for a
 * 401 whose challenge (Basic, Digest …) the browser has no credentials for. The server's status is
 * then the answer. Other network errors after the headers (an undecodable body …) leave no usable
 * response.
 */
export const UNRENDERED_ANSWER = /^ERR_(ABORTED|HTTP_RESPONSE_CODE_FAILURE|INVALID_AUTH_CREDENTIALS)$/;

/**
 * Reloads of its own URL a page may make during one visit (`<meta http-equiv="refresh">` without
 * a URL, `location.reload()`): the first is followed (a page that sets a cookie and reloads once),
 * later ones are refused and the page is read as it is, so a page that reloads itself for ever is
 * still read once.
 */
const MAX_SELF_RELOADS = 1;
const MAX_KEPT = 50;
/**
 * Quiet time (ms) after which a page with nothing scheduled soon counts as settled (the full
 * `quietMs` window applies to pages with pending timers, intervals or animation frames).
 */
export const EARLY_QUIET_MS = 100;
/** How long (ms) a response whose body the page has not read yet holds the settle. */
const UNREAD_WAIT_MS = 2_000;
/** Longest wait (ms) after a click on a `download` link for the download to show before an early settle. */
const DOWNLOAD_WAIT_MS = 2_000;
/** Most ids and names kept per page (`--check-fragments`). */
const MAX_ANCHORS = 10_000;

/** Classify a Playwright navigation error into a record error. */
export function navigationError(err: unknown, timeoutMs: number): RecordError {
  const msg = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  if (/Timeout .*exceeded|timed? ?out/i.test(msg)) return { code: 'timeout', message: `navigation timed out after ${timeoutMs} ms` };
  const net = /net::(ERR_[A-Z_]+)/.exec(msg);
  if (net) return { code: 'network', message: net[1]! };
  if (/crash/i.test(msg)) return { code: 'page-crashed', message: 'the page crashed' };
  if (/closed|disconnected/i.test(msg)) return { code: 'browser-crashed', message: msg };
  return { code: 'navigation-failed', message: msg };
}

/**
 * Visit one URL in a reused tab: navigate, settle, extract, screenshot, then pause the page
 * (scripts disabled, loads stopped) until the tab's next visit navigates away from it.
 *
 * Settle = the load event has fired, no request of the page has been in flight and the DOM
 * has not changed for `quietMs`, or for {@link EARLY_QUIET_MS} when the page has nothing
 * scheduled soon (see `settleState`); capped at `settleTimeoutMs`, after which the page is read
 * anyway and `settled` is `false`. Non-HTML main documents (decided from the response headers,
 * intercepted before the body is read) are not rendered: the browser is handed an empty
 * document instead, so nothing is downloaded.
 *
 * Never throws for page behaviour: failures come back as `error`. Every browser call runs
 * under its own timeout and the whole visit under a hard deadline, so a stuck page always
 * frees its slot.
 */
export async function visitPage(tab: VisitTab, requestedUrl: string, opts: VisitOptions): Promise<VisitResult> {
  const t0 = Date.now();
  const result: VisitResult = {
    finalUrl: null,
    redirectChain: [],
    status: null,
    contentType: null,
    title: null,
    links: [],
    nonHtml: false,
    noContent: false,
    retryAfter: null,
    respondedAt: null,
    robotsHeaders: [],
    robotsMeta: [],
    settled: false,
    timings: { ttfb: null, domContentLoaded: null, load: null, settledMs: null, serverWaitMs: null, total: null },
    consoleErrors: [],
    pageErrors: [],
    failedRequests: [],
    dialogs: [],
    downloads: [],
    clicks: 0,
    frames: [],
    text: '',
    h1: '',
    headings: [],
    meta: { description: null, canonical: null, h1Count: 0 },
    mixedContent: [],
    anchors: null,
    blockedBy: null,
    screenshot: false,
    error: null,
    stopped: null,
    interrupted: false,
    contextBroken: false,
  };

  let abort!: (e: RecordError) => void;
  const aborted = new Promise<never>((_, reject) => {
    abort = (e) => reject(new VisitAbort(e));
  });
  aborted.catch(() => {});
  const step = <T>(p: Promise<T>): Promise<T> => Promise.race([p, aborted]);

  const hardDeadline =
    opts.navigationTimeoutMs + opts.settleTimeoutMs + 15_000 + (opts.click ? opts.click.budgetMs + 5_000 : 0) + (opts.scroll ? opts.scroll.budgetMs + 5_000 : 0);
  const deadlineTimer = setTimeout(
    () => abort({ code: 'timeout', message: `page did not finish within the ${hardDeadline} ms page deadline` }),
    hardDeadline,
  );
  const onCancel = (): void => abort({ code: 'interrupted', message: 'crawl interrupted' });
  if (opts.signal?.aborted) onCancel();
  opts.signal?.addEventListener('abort', onCancel, { once: true });

  const p = tab.page;
  // Every listener of this visit is removed at the end: the tab is reused by the next visit.
  const detach: (() => void)[] = [];
  const on = ((event: 'load', handler: () => void) => {
    p.on(event, handler);
    detach.push(() => p.off(event, handler));
    return p;
  }) as Page['on'];
  try {

    // --- what the page does -------------------------------------------------------------
    // The tab still shows the previous visit's page (paused, see the end of this function) until
    // this visit's document arrives: what that page does in between is not this page's.
    let current = false;
    let dialogCount = 0;
    on('dialog', (d) => {
      const type = d.type() as DialogRecord['type'];
      if (!current) {
        // The previous page's beforeunload, asked when this visit navigates away from it.
        (type === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => {});
        return;
      }
      dialogCount++;
      if (result.dialogs.length < 10) result.dialogs.push({ type, message: d.message().slice(0, 500) });
      // beforeunload must be accepted: dismissing it leaves the tab unable to navigate.
      (type === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => {});
      if (dialogCount > opts.maxDialogs) {
        abort({ code: 'too-many-dialogs', message: `more than ${opts.maxDialogs} dialogs; visit abandoned` });
      }
    });
    // Downloads are refused by the context (acceptDownloads: false); note what was attempted.
    let downloadsSeen = 0;
    on('download', (d) => {
      if (!current) {
        d.cancel().catch(() => {});
        return;
      }
      downloadsSeen++;
      if (result.downloads.length < MAX_KEPT) result.downloads.push(d.url());
      d.cancel().catch(() => {});
    });
    on('crash', () => abort({ code: 'page-crashed', message: 'the page renderer crashed' }));
    // window.open is answered in the page (see installMutationClock); a popup that opens anyway
    // (e.g. <a target=_blank> clicked by the page) is closed.
    on('popup', (popup) => {
      popup.close().catch(() => {});
    });
    on('console', (m) => {
      if (!current) return;
      // "Failed to load resource" lines repeat what failedRequests records already.
      if (m.type() === 'error' && result.consoleErrors.length < MAX_KEPT && !m.text().startsWith('Failed to load resource')) {
        result.consoleErrors.push(m.text().slice(0, 1000));
      }
    });
    on('pageerror', (e) => {
      if (!current) return;
      if (result.pageErrors.length >= MAX_KEPT) return;
      const top = (e.stack ?? '').split('\n').find((l) => l.trim().startsWith('at '));
      result.pageErrors.push(`${e.name}: ${e.message}${top ? ` (${top.trim()})` : ''}`.slice(0, 1000));
    });

    // Requests of this page still waiting for a response, for the settle rule. EventSource
    // streams never end by design and are not counted (their first message is: see
    // installStreamWatch); nor is a long-poll re-poll that hangs (see RepollWatch).
    const inflight = new Set<Request>();
    const repoll = new RepollWatch();
    /** Requests in flight the settle waits for at `now`: all but hanging re-polls. */
    const waitedOn = (now: number): number => {
      let n = 0;
      for (const r of inflight) if (!repoll.isBackground(r, now)) n++;
      return n;
    };
    // Requests of this visit's page (the previous page's late ones are left out).
    const mine = new WeakSet<Request>();
    // Requests whose body has not been read to the end yet, with when their response arrived:
    // a page still reading (and then processing) a large response is not settled early, nor
    // within UNREAD_WAIT_MS of the response (a body the page never reads stops counting then).
    // A fetch() body counts only while the page has a body read in progress: Chromium finishes a
    // fetch() request only once its body is read, and a page that ignores the body never does.
    const unread = new Map<Request, number | null>();
    let lastNet = Date.now();
    const isNavOfMain = (r: Request): boolean => r.isNavigationRequest() && r.frame() === p.mainFrame();
    // The visit's own main-document request (the last hop of its redirects).
    let mainRequest: Request | null = null;
    let navigationSent = false;
    on('request', (r) => {
      if (!navigationSent && isNavOfMain(r)) {
        navigationSent = true;
        opts.onNavigationSent?.(Date.now());
      }
      if (isNavOfMain(r) && (mainRequest === null || r.redirectedFrom() === mainRequest)) mainRequest = r;
      if (!current && !isNavOfMain(r)) return;
      mine.add(r);
      lastNet = Date.now();
      if (r.url().startsWith('http:') && p.url().startsWith('https:') && !isNavOfMain(r) && result.mixedContent.length < MAX_KEPT) result.mixedContent.push(r.url());
      if (r.resourceType() !== 'eventsource') {
        inflight.add(r);
        unread.set(r, null);
        repoll.sent(r, lastNet);
      }
    });
    on('requestfinished', (r) => {
      if (!mine.has(r)) return;
      lastNet = Date.now();
      inflight.delete(r);
      unread.delete(r);
      repoll.ended(r);
    });
    on('requestfailed', (r) => {
      if (!mine.has(r)) return;
      lastNet = Date.now();
      inflight.delete(r);
      unread.delete(r);
      repoll.ended(r);
      const failure = r.failure()?.errorText ?? null;
      // ERR_BLOCKED_BY_CLIENT is click discovery's own guard aborting a non-GET request: not the site's failure.
      if (!isNavOfMain(r) && result.failedRequests.length < MAX_KEPT && !isImplicitFavicon(r) && !failure?.startsWith('net::ERR_BLOCKED_BY_CLIENT')) {
        result.failedRequests.push({ url: r.url(), status: null, failure, resourceType: r.resourceType() });
      }
    });
    // The first navigation's document response (after its HTTP redirects): the requested URL's
    // answer. A client-side navigation may load another document later (meta refresh, location
    // change, even before goto returns): the last one is the document that gets read.
    let mainResponse: Response | null = null;
    let lastDocument: Response | null = null;
    const serverWait = new ServerWait();
    on('response', (resp) => {
      const r = resp.request();
      if (!mine.has(r)) return;
      if (!isImplicitFavicon(r)) serverWait.add(r);
      // A request stops counting once its response headers are in: Chromium reports the end
      // of a fetch() body only after the page reads it, and many apps never do.
      lastNet = Date.now();
      inflight.delete(r);
      repoll.answeredBy(r);
      if (unread.has(r)) unread.set(r, lastNet);
      if (isNavOfMain(r)) {
        current = true;
        const redirect = resp.status() >= 300 && resp.status() < 400 && resp.headers()['location'] !== undefined;
        if (!redirect) {
          if (!mainResponse) {
            mainResponse = resp;
            result.respondedAt = Date.now();
          }
          lastDocument = resp;
        }
        return;
      }
      if (resp.status() >= 400 && result.failedRequests.length < MAX_KEPT && !isImplicitFavicon(r)) {
        result.failedRequests.push({ url: resp.url(), status: resp.status(), failure: null, resourceType: r.resourceType() });
      }
    });

    // Decide each main-frame document response before the browser acts on it: a redirect hop or
    // a document the crawler wants stopped (off-site, or a page recorded under another URL), and
    // HTML or not from the headers, before the body is read.
    let nonHtml: { status: number; contentType: string | null; url: string; retryAfter: string | null } | null = null;
    const session = tab.cdp;
    const mainFrameId = tab.mainFrameId;
    /** `true` once the first navigation's document (not a redirect) has answered. */
    let mainDecided = false;
    /** Documents are decided until extraction starts; later ones (clicks) are explore's to guard. */
    let deciding = true;
    /** The first navigation's HTTP hops, as they pass (for a navigation stopped at a hop). */
    const hops: RedirectHop[] = [];
    /** What the requested URL itself answered (its first response's status). */
    let ownStatus: number | null = null;
    /** Client-side navigations of the page to its own URL so far. */
    let selfReloads = 0;
    const pass = (ev: PausedResponse): void => {
      session.send('Fetch.continueRequest', { requestId: ev.requestId }).catch(() => {});
    };
    let onClientStop: () => void = () => {};
    /** Resolves when a client-side navigation is stopped: the visit need not wait for anything else. */
    const clientStopped = new Promise<void>((resolve) => (onClientStop = resolve));
    const stopAt = (ev: PausedResponse, stop: StoppedNavigation): void => {
      result.stopped = stop;
      if (stop.kind === 'client') onClientStop();
      if (stop.kind === 'http' && !mainDecided) {
        // The first navigation ends on an empty document: nothing is requested or rendered.
        mainDecided = true;
        result.respondedAt = Date.now();
        session
          .send('Fetch.fulfillRequest', { requestId: ev.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: '' })
          .catch(() => {});
      } else {
        // A client-side navigation is refused: the page stays where it is.
        session.send('Fetch.failRequest', { requestId: ev.requestId, errorReason: 'Aborted' }).catch(() => {});
      }
    };
    /** The first navigation's final answer, kept for answers Chromium then drops without a response event (a 304 nobody asked for). */
    let answered: { status: number; url: string; headers: Record<string, string>; at: number } | null = null;
    const decidePaused = async (ev: PausedResponse): Promise<void> => {
      const status = ev.responseStatusCode;
      if (ev.frameId !== mainFrameId || status === undefined || !deciding || result.stopped) return pass(ev);
      const headers = ev.responseHeaders ?? [];
      const header = (n: string): string | null => headers.find((h) => h.name.toLowerCase() === n)?.value ?? null;
      const ct = header('content-type');
      const attachment = /^\s*attachment/i.test(header('content-disposition') ?? '');
      const html = !attachment && (ct === null || HTML_TYPES.test(ct));
      const location = status >= 300 && status < 400 ? resolveLocation(header('location'), ev.request.url) : null;
      const initial = !mainDecided;
      if (initial && ownStatus === null) ownStatus = status;
      // A later document of the main frame that is not a page (a download the page starts) is
      // not a navigation: it goes through as is (the context refuses downloads).
      if (!initial && location === null && !html) return pass(ev);
      // The first navigation keeps the requested URL's fragment (a hash route) across its hops
      // unless a Location names one of its own (RFC 9110 §10.2.2): that is where the page ends up.
      const at = initial ? inheritFragment(ev.request.url, requestedUrl) : ev.request.url;
      const to = location !== null && initial ? inheritFragment(location, requestedUrl) : location;
      const decision = opts.onDocument ? await Promise.resolve(opts.onDocument({ url: at, status, location: to, initial })).catch((): DocumentDecision => 'follow') : 'follow';
      if (location !== null) {
        if (decision !== 'follow') {
          if (initial) hops.push({ url: ev.request.url, status, kind: 'http' });
          return stopAt(ev, { reason: decision.stop, target: to ?? location, kind: initial ? 'http' : 'client' });
        }
        if (initial) hops.push({ url: ev.request.url, status, kind: 'http' });
        return pass(ev);
      }
      if (decision !== 'follow') return stopAt(ev, { reason: decision.stop, target: at, kind: initial ? 'http' : 'client' });
      if (!initial) {
        if (sameDocument(ev.request.url, p.url()) && ++selfReloads > MAX_SELF_RELOADS) {
          // The page reloads itself again: read it as it is.
          session.send('Fetch.failRequest', { requestId: ev.requestId, errorReason: 'Aborted' }).catch(() => {});
          return;
        }
        return pass(ev);
      }
      mainDecided = true;
      answered = { status, url: ev.request.url, headers: Object.fromEntries(headers.map((h) => [h.name.toLowerCase(), h.value])), at: Date.now() };
      if (html) return pass(ev);
      nonHtml = { status, contentType: ct, url: ev.request.url, retryAfter: header('retry-after') };
      result.respondedAt = Date.now();
      session
        .send('Fetch.fulfillRequest', {
          requestId: ev.requestId,
          responseCode: 200,
          responseHeaders: [{ name: 'content-type', value: 'text/html' }],
          body: '',
        })
        .catch(() => {});
    };
    const onPaused = (ev: PausedResponse): void => {
      void decidePaused(ev);
    };
    session.on('Fetch.requestPaused', onPaused);
    tab.intercepting = true;
    detach.push(() => {
      tab.intercepting = false;
      session.off('Fetch.requestPaused', onPaused);
    });

    // --- navigate ---------------------------------------------------------------------------
    let navError: RecordError | null = null;
    if (opts.beforeNavigate) await step(opts.beforeNavigate());
    if (tab.paused) {
      // A URL that differs from the page left behind only in its fragment would be a
      // same-document navigation (no request, no new document): leave that page first.
      if (sameDocument(p.url(), requestedUrl)) await step(withTimeout(p.goto('about:blank', { waitUntil: 'commit', timeout: 5_000 }), 6_000, 'leaving the page'));
      await step(withTimeout(tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: false }), 5_000, 'resuming scripts'));
      tab.paused = false;
    }
    try {
      // A script that forwards during parsing (location.replace in the head) leaves the first
      // document before DOMContentLoaded: once that navigation is stopped, nothing more will come.
      const navigation = p.goto(requestedUrl, { waitUntil: 'domcontentloaded', timeout: opts.navigationTimeoutMs });
      navigation.catch(() => {});
      await step(Promise.race([navigation, clientStopped]));
    } catch (err) {
      if (err instanceof VisitAbort) throw err;
      navError = navigationError(err, opts.navigationTimeoutMs);
    }
    const mainResp = mainResponse as Response | null;
    const nh = nonHtml as { status: number; contentType: string | null; url: string; retryAfter: string | null } | null;
    const stoppedAtHop = result.stopped as StoppedNavigation | null;
    if (stoppedAtHop && stoppedAtHop.kind === 'http') {
      // The URL only forwards: to an off-site target, or to a page recorded under another URL.
      result.redirectChain = hops;
      result.finalUrl = stoppedAtHop.target;
      result.status = ownStatus;
      result.settled = true;
      return result;
    }
    if (mainResp) result.redirectChain = await step(httpChain(mainResp.request()));
    if (nh) {
      result.nonHtml = true;
      result.status = nh.status;
      result.contentType = nh.contentType;
      result.finalUrl = nh.url;
      result.retryAfter = nh.retryAfter;
      result.settled = true;
      opts.onMainResponse?.(nh.status, nh.retryAfter ? { 'retry-after': nh.retryAfter } : {}, result.respondedAt ?? Date.now());
      return result;
    }
    let headers: Record<string, string> | null = null;
    // A redirect's response is the last one seen when the final hop's answer was dropped.
    if (mainResp && !mainResp.request().redirectedTo()) {
      result.status = mainResp.status();
      headers = await step(mainResp.allHeaders().catch(() => ({}) as Record<string, string>));
      result.finalUrl = mainResp.url();
    } else if (navError?.code === 'network' && UNRENDERED_ANSWER.test(navError.message) && answered) {
      // The server answered, and Chromium dropped the answer before its response event.
      const a = answered as { status: number; url: string; headers: Record<string, string>; at: number };
      result.status = a.status;
      result.respondedAt = a.at;
      headers = a.headers;
      result.finalUrl = a.url;
      const req = mainRequest as Request | null;
      if (req) result.redirectChain = await step(httpChain(req));
    }
    if (headers && result.status !== null) {
      result.contentType = headers['content-type'] ?? null;
      result.retryAfter = headers['retry-after'] ?? null;
      const m = mainResp as Response | null;
      result.robotsHeaders = m ? await step(m.headerValues('x-robots-tag').catch(() => [] as string[])) : headers['x-robots-tag'] ? [headers['x-robots-tag']] : [];
      if (headers['cf-mitigated']) result.blockedBy = `cf-mitigated: ${headers['cf-mitigated']}`;
      if (opts.onMainResponse?.(result.status, headers, result.respondedAt ?? Date.now())) return result;
    }
    if (navError && navError.code === 'network' && result.status !== null && UNRENDERED_ANSWER.test(navError.message)) {
      // Nothing of the site's is shown (the tab keeps the previous page, or shows Chromium's
      // error page): the status is the answer, and there is nothing to read.
      result.settled = true;
      result.noContent = true;
      return result;
    }
    if (navError) {
      // A document that arrived but never reached DOMContentLoaded is still read below; with
      // no document at all there is nothing to read.
      if (!mainResp) {
        result.error = navError;
        return result;
      }
      result.error = navError.code === 'timeout' ? { code: 'timeout', message: `DOMContentLoaded not reached within ${opts.navigationTimeoutMs} ms` } : navError;
      return result;
    }

    // --- settle -----------------------------------------------------------------------------
    // Settled: no request in flight and none for quietMs, and no DOM change for quietMs. Or,
    // early: the same for EARLY_QUIET_MS while the page has nothing scheduled soon (no timer due
    // within a second, no short interval, animation frame, idle callback or channel message) and
    // has read every response to the end, so nothing it has planned can still add content. Never
    // while a WebSocket or EventSource the page opened awaits its first message (its content is
    // still to come). A long-poll re-poll that hangs is not waited for (RepollWatch). The cap
    // (settleTimeoutMs) is the backstop.
    const settleStart = Date.now();
    const early = Math.min(opts.quietMs, EARLY_QUIET_MS);
    let lastRead = 0;
    for (;;) {
      const now = Date.now();
      if (now - settleStart >= opts.settleTimeoutMs) break;
      // A client-side navigation was stopped: the page only forwards, nothing here is read.
      if (result.stopped) break;
      if (waitedOn(now) === 0 && now - lastNet >= early && now - lastRead >= early) {
        lastRead = now;
        const state = await step(
          withTimeout(p.evaluate(settleState), 2_000, 'reading the settle state').catch(
            (): SettleState => ({ loaded: false, quietForMs: 0, scheduled: 1, downloadClicks: 0, sinceDownloadClickMs: Infinity, bodyReads: 1, awaitingMessages: 0 }),
          ),
        );
        const checkedAt = Date.now();
        const netQuiet = waitedOn(checkedAt) === 0 ? checkedAt - lastNet : 0;
        // A response counts as being read while its body is not finished, unless it is a fetch()
        // whose body the page has not asked for (nothing reads it, so it never finishes), or a
        // hanging re-poll.
        const held = [...unread].filter(([r]) => !repoll.isBackground(r, checkedAt) && (r.resourceType() !== 'fetch' || state.bodyReads > 0));
        const reading = held.some(([, at]) => at !== null && Date.now() - at < UNREAD_WAIT_MS);
        // A push connection's first message (and the content it brings) is still to come.
        const pushed = state.awaitingMessages === 0;
        if (pushed && state.loaded && !reading && state.quietForMs >= opts.quietMs && netQuiet >= opts.quietMs) {
          result.settled = true;
          break;
        }
        // A clicked download link is a request the page events do not show until the download
        // starts: wait for it (at most DOWNLOAD_WAIT_MS after the click) before settling early.
        const downloadPending = state.downloadClicks > downloadsSeen && state.sinceDownloadClickMs < DOWNLOAD_WAIT_MS;
        if (pushed && state.loaded && state.scheduled === 0 && held.length === 0 && !downloadPending && state.quietForMs >= early && netQuiet >= early) {
          result.settled = true;
          break;
        }
      }
      await step(sleep(25));
    }
    result.timings.settledMs = Date.now() - t0;
    result.timings.serverWaitMs = serverWait.totalMs();
    deciding = false;
    const stoppedClient = result.stopped as StoppedNavigation | null;
    if (stoppedClient && mainResp) {
      // The page forwards (client side) to a page recorded under another URL, or off-site.
      result.redirectChain.push({ url: inheritFragment(mainResp.url(), requestedUrl), status: null, kind: 'client' });
      result.finalUrl = stoppedClient.target;
      result.status = ownStatus ?? mainResp.status();
      result.settled = true;
      return result;
    }
    // A client-side navigation that loaded another document: that document is the one read.
    const lastDoc = lastDocument as Response | null;
    if (lastDoc && mainResp && lastDoc !== mainResp) {
      result.status = lastDoc.status();
      const headers = await step(lastDoc.allHeaders().catch(() => ({}) as Record<string, string>));
      result.contentType = headers['content-type'] ?? null;
      result.robotsHeaders = await step(lastDoc.headerValues('x-robots-tag').catch(() => [] as string[]));
      result.blockedBy = headers['cf-mitigated'] ? `cf-mitigated: ${headers['cf-mitigated']}` : null;
    }

    // --- extract ----------------------------------------------------------------------------
    const main = await step(withTimeout(p.evaluate(extractPage), 10_000, 'reading the DOM'));
    result.noContent = main.empty;
    result.title = main.empty ? null : main.title;
    result.robotsMeta = main.robotsMeta;
    result.finalUrl = main.href;
    result.timings.ttfb = main.nav.ttfb;
    result.timings.domContentLoaded = main.nav.domContentLoaded;
    result.timings.load = main.nav.load;
    for (const l of main.links) result.links.push(toFound(l, l.inShadow ? 'shadow' : 'anchor'));
    for (const href of main.opened) result.links.push({ href, text: '', source: 'popup', rel: '' });
    result.text = main.text;
    result.h1 = main.h1;
    result.headings = main.headings;
    result.meta = { description: main.description, canonical: main.canonical, h1Count: main.h1Count };
    if (opts.collectAnchors) {
      result.anchors = await step(withTimeout(p.evaluate(readAnchors, MAX_ANCHORS), 5_000, 'reading ids and names').catch(() => null));
    }
    for (const l of main.frameSrcs) result.links.push(toFound(l, 'frame-src'));
    const framed = await step(readFrames(p, main.origin));
    result.links.push(...framed.links);
    result.frames = framed.frames;
    // A client-side navigation during load (location change, pushState) is a client hop.
    // The document's response carries no fragment: the page arrived at the requested one.
    const arrived = mainResp ? inheritFragment(mainResp.url(), requestedUrl) : null;
    if (arrived && stripFragment(main.href) !== stripFragment(arrived)) {
      result.redirectChain.push({ url: arrived, status: null, kind: 'client' });
    }

    if (opts.screenshotPath) {
      await step(withTimeout(p.screenshot({ path: opts.screenshotPath, fullPage: true, timeout: 15_000 }), 20_000, 'taking a screenshot'));
      result.screenshot = true;
    }

    // --- discover what a person reaches beyond the anchors: scrolling, clicking ---------------
    if (opts.scroll || opts.click) {
      const known = new Set(result.links.map((l) => l.href));
      const quiet = async (ms: number): Promise<boolean> => {
        if (inflight.size > 0 || Date.now() - lastNet < ms) return false;
        const st = await withTimeout(p.evaluate(settleState), 2_000, 'reading the settle state').catch(() => ({ loaded: false, quietForMs: 0 }));
        return st.quietForMs >= ms;
      };
      if (opts.scroll) result.links.push(...(await step(scrollForLinks(p, known, opts.scroll, quiet))));
      if (opts.click) {
        const ex = await step(exploreClicks(p, known, opts.click, quiet));
        result.links.push(...ex.links);
        result.clicks = ex.clicks;
      }
    }
    return result;
  } catch (err) {
    if (err instanceof VisitAbort) {
      result.error = err.recordError;
      if (err.recordError.code === 'interrupted') result.interrupted = true;
    } else {
      result.error = navigationError(err, opts.navigationTimeoutMs);
    }
    result.contextBroken = true;
    return result;
  } finally {
    clearTimeout(deadlineTimer);
    opts.signal?.removeEventListener('abort', onCancel);
    result.timings.total = Date.now() - t0;
    // Stop recording, then pause the page where it is: its scripts stop running (no timers,
    // polling or animation while the tab waits for its next visit) and its loads stop. The next
    // visit resumes scripts right before it navigates away. Leaving for about:blank instead cost
    // a navigation per page: a third of the CPU per page on the benchmark. A tab that cannot be
    // paused is discarded.
    for (const d of detach) d();
    if (!result.contextBroken) {
      try {
        await withTimeout(
          Promise.all([tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: true }), tab.cdp.send('Page.stopLoading')]),
          5_000,
          'pausing the page',
        );
        tab.paused = true;
      } catch {
        result.contextBroken = true;
      }
    }
  }
}

/** The part of CDP's `Fetch.requestPaused` event the visit reads. */
interface PausedResponse {
  requestId: string;
  frameId: string;
  responseStatusCode?: number;
  responseHeaders?: { name: string; value: string }[];
  request: { url: string };
}

/** A reusable browser tab: a page, its CDP session, and response interception for the main frame. */
export interface VisitTab {
  page: Page;
  cdp: CDPSession;
  /** CDP id of the page's main frame (stable for the page's life). */
  mainFrameId: string;
  /** `true` while a visit answers the paused document responses itself. */
  intercepting: boolean;
  /** `true` while the page a visit left behind has its scripts disabled (resumed by the next visit). */
  paused: boolean;
}

/**
 * Open a tab in `context` for {@link visitPage}: a page with a CDP session that pauses every
 * document response (so non-HTML targets can be decided from their headers).
 * @throws CallTimeoutError or a Playwright error when the browser does not answer
 */
export async function openTab(context: BrowserContext): Promise<VisitTab> {
  const page = await withTimeout(context.newPage(), 15_000, 'opening a page');
  const cdp = await withTimeout(context.newCDPSession(page), 10_000, 'opening a CDP session');
  const tree = (await withTimeout(cdp.send('Page.getFrameTree'), 10_000, 'reading the frame tree')) as { frameTree: { frame: { id: string } } };
  await withTimeout(
    cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Response' }] }),
    10_000,
    'enabling response interception',
  );
  // Fetch pauses every document response; with no visit listening, let them through.
  const tab: VisitTab = { page, cdp, mainFrameId: tree.frameTree.frame.id, intercepting: false, paused: false };
  cdp.on('Fetch.requestPaused', (ev) => {
    if (!tab.intercepting) cdp.send('Fetch.continueRequest', { requestId: ev.requestId }).catch(() => {});
  });
  return tab;
}

function toFound(l: RawLink, source: FoundLink['source']): FoundLink {
  return { href: l.href, text: l.text, source, rel: l.rel };
}

/** A `Location` header's target resolved against the URL that sent it (RFC 9110 §10.2.2), or `null` when absent or unparsable. */
function resolveLocation(location: string | null, base: string): string | null {
  if (location === null) return null;
  try {
    return new URL(location, base).href;
  } catch {
    return null;
  }
}

/** `url` with the fragment of `from` when it has none of its own (how a browser carries a fragment across redirects). */
function inheritFragment(url: string, from: string): string {
  try {
    const u = new URL(url);
    const f = new URL(from);
    if (u.hash === '' && f.hash !== '') u.hash = f.hash;
    return u.href;
  } catch {
    return url;
  }
}

/** The HTTP redirect hops that led to `final` (oldest first). */
async function httpChain(final: Request): Promise<RedirectHop[]> {
  const hops: RedirectHop[] = [];
  for (let r = final.redirectedFrom(); r; r = r.redirectedFrom()) {
    const resp = await withTimeout(r.response(), 2_000, 'reading a redirect').catch(() => null);
    hops.unshift({ url: r.url(), status: resp ? resp.status() : null, kind: 'http' });
  }
  return hops;
}

/** The browser's own `/favicon.ico` request (not one the page asked for). */
function isImplicitFavicon(r: Request): boolean {
  return r.resourceType() === 'other' && /\/favicon\.ico$/.test(new URL(r.url()).pathname);
}

/** `true` when `a` and `b` name the same document (equal once their fragments are dropped). */
function sameDocument(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    x.hash = '';
    y.hash = '';
    return x.href === y.href;
  } catch {
    return false;
  }
}

/** The URL as the page's identity: a plain fragment dropped, a hash route kept (see `toRequestUrl`). */
function stripFragment(u: string): string {
  try {
    return toRequestUrl(u);
  } catch {
    return u;
  }
}
