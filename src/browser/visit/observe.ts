/**
 * Stage: observe. Listens to what the page does during the visit (dialogs, downloads, console
 * errors, uncaught exceptions, requests and their answers, failed requests, the time spent
 * waiting for servers) and records it in the result and in `ctx.activity`. The cleanup removes
 * every listener: the tab is reused by the next visit.
 * @module
 */
import type { Page, Request } from 'playwright';
import type { DialogRecord } from '../../model/record.js';
import type { FailedRequest } from '../../model/observation.js';
import type { PageEventMap, PageEventName } from '../page-events.js';
import { hydrationEntry, MAX_HYDRATION_MESSAGES } from '../hydration.js';
import { stopScripts } from '../hang-watch.js';
import { INJECTED_SOURCE_URL } from '../init-scripts.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { MAX_CLIENT_FORWARDS } from './intercept.js';
import { isImplicitFavicon } from './urls.js';

/** Most entries kept per list of the record (console errors, page errors, failed requests, downloads, mixed content). */
export const MAX_KEPT = 50;
/**
 * Most characters of a URL in the record's lists of what the page did (failed requests, mixed
 * content, downloads); a longer one keeps its start and ends with `…`. A page that fetched 50
 * URLs of 1 MB each (Chromium takes URLs up to 2 MB) made a 50 MB record. These lists describe,
 * they are not crawled.
 */
export const MAX_LISTED_URL_CHARS = 2000;

/** `url`, cut to {@link MAX_LISTED_URL_CHARS} (with `…`) when longer. */
export function listedUrl(url: string): string {
  return url.length > MAX_LISTED_URL_CHARS ? `${url.slice(0, MAX_LISTED_URL_CHARS)}…` : url;
}

/**
 * Console messages a visit hears, of any level, before it stops listening to the page's console
 * (see `PageEvents.mute`; the next visit listens again). Each message Playwright hands over holds
 * a handle per argument until the document goes: a page logging 100,000 `console.error` lines
 * took the crawler's memory from 140 MB to 450 MB and its visit from 0.5 s to 19 s, its settle
 * read queued behind the messages. The record keeps {@link MAX_KEPT} errors anyway; a hydration
 * message after this many others is missed.
 */
export const MAX_CONSOLE_MESSAGES = 1_000;
/** Most dialogs kept in the record (more are still counted against `maxDialogs`). */
const MAX_DIALOGS_KEPT = 10;

/** Subscribe a listener for the rest of the visit (the stage's cleanup unsubscribes it). */
type On = <E extends PageEventName>(event: E, listener: (arg: PageEventMap[E]) => void) => void;

/** The observe stage (one per visit). */
export function observe(): Stage<VisitContext> {
  const off: (() => void)[] = [];
  return {
    name: 'observe',
    action(ctx) {
      const on: On = (event, listener) => void off.push(ctx.tab.events.on(event, listener));
      listenToPage(ctx, on);
      listenToNetwork(ctx, on);
    },
    cleanup() {
      for (const d of off.splice(0)) d();
    },
  };
}

/** Dialogs, downloads, crashes, popups, console errors and uncaught exceptions. */
function listenToPage(ctx: VisitContext, on: On): void {
  const { result, activity: act, opts } = ctx;
  let dialogCount = 0;
  on('dialog', (d) => {
    const type = d.type() as DialogRecord['type'];
    // beforeunload must be accepted: dismissing it leaves the tab unable to navigate. Before this
    // visit's document arrives it is the previous page's, asked when this visit leaves it.
    const answer = (): void => void (type === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => {});
    if (!act.current) return answer();
    dialogCount++;
    if (result.dialogs.length < MAX_DIALOGS_KEPT) result.dialogs.push({ type, message: d.message().slice(0, 500) });
    answer();
    if (dialogCount > opts.maxDialogs) {
      // A page that asks again and again (`for (;;) alert()`) never yields its main thread, which
      // the other tabs of its renderer process share: its script is stopped, not only left.
      stopScripts(ctx.tab);
      ctx.abort({ code: 'too-many-dialogs', message: `more than ${opts.maxDialogs} dialogs; visit abandoned` });
    }
  });
  // Downloads are refused by the context (acceptDownloads: false); note what was attempted.
  on('download', (d) => {
    if (act.current) {
      act.downloadsSeen++;
      if (result.downloads.length < MAX_KEPT) result.downloads.push(listedUrl(d.url()));
    }
    d.cancel().catch(() => {});
  });
  on('crash', () => ctx.abort({ code: 'page-crashed', message: 'the page renderer crashed' }));
  // window.open is answered in the page (see installMutationClock); a popup that opens anyway
  // (e.g. <a target=_blank> clicked by the page) is closed.
  on('popup', (popup) => {
    popup.close().catch(() => {});
  });
  /**
   * A hydration-mismatch message (any console level, or an uncaught error) goes to
   * `spa.hydration`, or once click discovery has clicked to `ClickDiscovery.errors` (an island
   * or a Suspense boundary hydrated by the click).
   */
  const hydration = (text: string): void => {
    const clicking = ctx.clicking;
    if (clicking === null ? result.spa.hydration.length >= MAX_HYDRATION_MESSAGES : ctx.clickErrors.length >= MAX_KEPT) return;
    const entry = hydrationEntry(text);
    if (!entry) return;
    if (clicking === null) result.spa.hydration.push(entry);
    else if (!result.spa.hydration.includes(entry)) ctx.clickErrors.push({ control: clicking, kind: 'hydration', message: entry });
  };
  let consoleMessages = 0;
  on('console', (m) => {
    if (++consoleMessages === MAX_CONSOLE_MESSAGES) ctx.tab.events.mute('console');
    if (!act.current) return;
    const type = m.type();
    if (type === 'error' || type === 'warning' || type === 'log' || type === 'info') hydration(m.text());
    // "Failed to load resource" lines repeat what failedRequests records already.
    if (type !== 'error' || m.text().startsWith('Failed to load resource')) return;
    const message = m.text().slice(0, 1000);
    // Once click discovery has clicked, what the page says is the clicks' (see `ClickDiscovery.errors`),
    // unless the page said it before any click: its own, recurring (a timer's), listed already.
    if (ctx.clicking !== null) {
      if (ctx.clickErrors.length < MAX_KEPT && !result.consoleErrors.includes(message)) ctx.clickErrors.push({ control: ctx.clicking, kind: 'console', message });
    } else if (result.consoleErrors.length < MAX_KEPT) result.consoleErrors.push(message);
  });
  on('pageerror', (e) => {
    if (!act.current) return;
    hydration(`${e.name}: ${e.message}`);
    const clicks = ctx.clicking !== null;
    if ((clicks ? ctx.clickErrors : result.pageErrors).length >= MAX_KEPT) return;
    // The first frame of the page's own: spacrawl's wrappers (timers, crypto.subtle …) may be above it.
    const top = (e.stack ?? '').split('\n').find((l) => l.trim().startsWith('at ') && !l.includes(INJECTED_SOURCE_URL));
    const message = `${e.name}: ${e.message}${top ? ` (${top.trim()})` : ''}`.slice(0, 1000);
    if (!clicks) result.pageErrors.push(message);
    // Raised as loaded already: the page's own, recurring (as for console errors above).
    else if (!result.pageErrors.includes(message)) ctx.clickErrors.push({ control: ctx.clicking!, kind: 'page', message });
  });
}

/**
 * `true` for a fetch() or XMLHttpRequest of `page`'s main frame to an `http:`/`https:` URL, not a
 * redirect hop: what the document counts as a call it started (`installScheduleWatch`).
 */
function isCallOf(r: Request, page: Page): boolean {
  return r.redirectedFrom() === null && /^https?:/.test(r.url()) && isCallTraffic(r, page);
}

/**
 * `true` for a fetch() or XMLHttpRequest of `page`'s main frame, redirect hops and any URL
 * included: a request whose answer the document's own counters follow until its script has it
 * (`SettleState.requests`, `bodyReads`; see `PageActivity.callsHandled`).
 */
function isCallTraffic(r: Request, page: Page): boolean {
  const type = r.resourceType();
  if (type !== 'fetch' && type !== 'xhr') return false;
  try {
    return r.frame() === page.mainFrame();
  } catch {
    // A service worker's own request has no frame.
    return false;
  }
}

/** Requests, responses, finished and failed requests: the settle's network state, failed requests, mixed content, server wait. */
function listenToNetwork(ctx: VisitContext, on: On): void {
  const { result, activity: act, opts } = ctx;
  const p = ctx.page;
  const isNavOfMain = (r: Request): boolean => r.isNavigationRequest() && r.frame() === p.mainFrame();
  /** Requests the server answered with a status below 400 (their headers are in). */
  const answered = new WeakSet<Request>();
  /** Requests sent after click discovery's first click: the control worked last before each (see `ClickDiscovery.errors`). */
  const sentByClick = new WeakMap<Request, string>();
  /** Record a failed request: the clicks' when a click preceded it, else the page's as loaded. */
  const failed = (r: Request, f: FailedRequest): void => {
    const control = sentByClick.get(r);
    if (control === undefined) {
      if (result.failedRequests.length < MAX_KEPT) result.failedRequests.push(f);
    } else if (ctx.clickErrors.length < MAX_KEPT) ctx.clickErrors.push({ control, kind: 'request', message: `${f.resourceType} ${f.url}: ${f.status ?? f.failure ?? 'failed'}` });
  };
  const ended = (r: Request): boolean => {
    if (!act.mine.has(r)) return false;
    act.noteNet(r, Date.now(), isCallTraffic(r, p));
    act.inflight.delete(r);
    act.unread.delete(r);
    act.repoll.ended(r);
    return true;
  };
  on('request', (r) => {
    if (isNavOfMain(r)) {
      if (!act.navigationSent) {
        act.navigationSent = true;
        opts.onNavigationSent?.(Date.now());
      } else opts.onDocumentSent?.(r.url(), Date.now());
    }
    if (isNavOfMain(r) && (act.mainRequest === null || r.redirectedFrom() === act.mainRequest)) act.mainRequest = r;
    if (!act.current && !isNavOfMain(r)) return;
    act.mine.add(r);
    if (ctx.clicking !== null) sentByClick.set(r, ctx.clicking);
    act.noteNet(r, Date.now(), isCallTraffic(r, p));
    if (isCallOf(r, p)) act.callsSeen++;
    if (r.url().startsWith('http:') && p.url().startsWith('https:') && !isNavOfMain(r)) {
      // Sent after a click: the clicks' (see `ClickDiscovery.errors`), like their failed requests.
      if (ctx.clicking === null) {
        if (result.mixedContent.length < MAX_KEPT) result.mixedContent.push(listedUrl(r.url()));
      } else if (ctx.clickErrors.length < MAX_KEPT) ctx.clickErrors.push({ control: ctx.clicking, kind: 'mixed-content', message: listedUrl(r.url()) });
    }
    if (r.resourceType() !== 'eventsource') {
      act.inflight.add(r);
      act.unread.set(r, null);
      act.repoll.sent(r, act.lastNet);
    }
  });
  on('requestfinished', (r) => {
    ended(r);
  });
  on('requestfailed', (r) => {
    if (!ended(r)) return;
    const failure = r.failure()?.errorText ?? null;
    // ERR_BLOCKED_BY_CLIENT is click discovery's own guard aborting a non-GET request: not the site's failure.
    // ERR_ABORTED after the server's answer is the reader stopping (the page's AbortController or
    // cancelled stream, a media element that read enough): the server did its part. A failure of
    // the transfer itself has its own code (ERR_CONNECTION_RESET, ERR_CONTENT_LENGTH_MISMATCH ...).
    const stoppedReading = failure === 'net::ERR_ABORTED' && answered.has(r);
    // The document's body failed after its answer (not the crawl's own refusal, an abort).
    if (r === act.mainRequest && act.mainResponse?.request() === r && failure && failure !== 'net::ERR_ABORTED') act.mainBodyFailed(failure.replace(/^net::/, ''));
    if (!isNavOfMain(r) && !isImplicitFavicon(r) && !failure?.startsWith('net::ERR_BLOCKED_BY_CLIENT') && !stoppedReading) {
      failed(r, { url: listedUrl(r.url()), status: null, failure, resourceType: r.resourceType() });
    }
  });
  on('response', (resp) => {
    const r = resp.request();
    if (!act.mine.has(r)) return;
    if (!isImplicitFavicon(r)) act.serverWait.add(r);
    if (resp.status() < 400) answered.add(r);
    // A request stops counting once its response headers are in: Chromium reports the end
    // of a fetch() body only after the page reads it, and many apps never do.
    act.noteNet(r, Date.now(), isCallTraffic(r, p));
    act.inflight.delete(r);
    act.repoll.answeredBy(r);
    if (act.unread.has(r)) act.unread.set(r, act.lastNet);
    if (isNavOfMain(r)) {
      act.current = true;
      const redirect = resp.status() >= 300 && resp.status() < 400 && resp.headers()['location'] !== undefined;
      if (!redirect) {
        // A new document counts its calls from 0.
        act.callsSeen = 0;
        if (!act.mainResponse) {
          act.mainResponse = resp;
          result.respondedAt = Date.now();
        } else if (act.laterDocuments.length <= MAX_CLIENT_FORWARDS) act.laterDocuments.push(resp);
        act.lastDocument = resp;
      }
      return;
    }
    if (resp.status() >= 400 && !isImplicitFavicon(r)) failed(r, { url: listedUrl(resp.url()), status: resp.status(), failure: null, resourceType: r.resourceType() });
  });
}

