/**
 * Stage: intercept the main document. Every main-frame document response is paused by the tab
 * (CDP `Fetch`, see `openTab`) and decided here before the browser acts on it: a redirect hop
 * or a document the caller wants stopped (`onDocument`: off-site, disallowed, recorded under
 * another URL), a non-HTML document (answered from its headers with an empty page, so nothing
 * is downloaded), and a page that keeps reloading itself. A client-side navigation's request is
 * decided before it is sent, too (`decideRequest`). The cleanup hands the paused documents back
 * to the tab.
 * @module
 */
import { isAssetResponse } from '../asset-placeholders.js';
import { rendersAsPage } from '../document-type.js';
import { isRequestStage, type PausedDocumentRequest } from '../tab.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import type { DocumentDecision, StoppedNavigation } from './types.js';
import { inheritFragment, resolveLocation, sameDocument, stripFragment } from './urls.js';

/**
 * Reloads of its own URL a page may make during one visit (`<meta http-equiv="refresh">` without
 * a URL, `location.reload()`): the first is followed (a page that sets a cookie and reloads once),
 * later ones are refused and the page is read as it is, so a page that reloads itself for ever is
 * still read once.
 */
export const MAX_SELF_RELOADS = 1;

/**
 * Client-side navigations to other documents (a `location` change, a `<meta http-equiv=refresh>`)
 * a page may make while its visit decides documents, as Chromium allows 20 HTTP redirects. A
 * navigation that repeats one the visit already made (the same document to the same URL: two
 * pages that send each other back and forth) is refused at once. Going to a document shown
 * before is not a loop by itself: a page may send the browser to a consent or login page that
 * sends it back.
 */
export const MAX_CLIENT_FORWARDS = 20;

/** The part of CDP's `Fetch.requestPaused` event the visit reads. */
export interface PausedResponse {
  /** CDP's id of the paused request (to continue, fulfil or fail it). */
  requestId: string;
  /** CDP id of the frame the document is for. */
  frameId: string;
  /** CDP `Network.ResourceType` of the request (`Document` for a document). */
  resourceType?: string;
  /** The response's status; absent when paused before a response. */
  responseStatusCode?: number;
  /** Set when the request failed (paused at the response stage without a response). */
  responseErrorReason?: string;
  /** The response's header lines as sent. */
  responseHeaders?: { name: string; value: string }[];
  /** The request, with its absolute URL. */
  request: { url: string };
}

/** The intercept stage (one per visit). */
export function intercept(): Stage<VisitContext> {
  let detach: (() => void) | null = null;
  return {
    name: 'intercept',
    action(ctx) {
      const { tab } = ctx;
      const onPaused = (ev: PausedResponse): void => void decide(ctx, ev);
      tab.cdp.on('Fetch.requestPaused', onPaused);
      tab.intercepting = true;
      tab.onDocumentRequest = (ev) => void decideRequest(ctx, ev);
      detach = () => {
        tab.intercepting = false;
        tab.onDocumentRequest = null;
        tab.cdp.off('Fetch.requestPaused', onPaused);
      };
    },
    cleanup() {
      detach?.();
      detach = null;
    },
  };
}

/**
 * Let a paused response through as it is, but for a `Speculation-Rules` header (speculation
 * rules named by URL, which the browser would act on itself: see `clock-scripts.ts` for the
 * ones in the page), which is taken out.
 */
function pass(ctx: VisitContext, ev: { requestId: string; responseStatusCode?: number; responseHeaders?: { name: string; value: string }[] }): void {
  const headers = ev.responseHeaders;
  if (ev.responseStatusCode !== undefined && headers?.some((h) => h.name.toLowerCase() === 'speculation-rules')) {
    const kept = headers.filter((h) => h.name.toLowerCase() !== 'speculation-rules');
    ctx.tab.cdp.send('Fetch.continueResponse', { requestId: ev.requestId, responseCode: ev.responseStatusCode, responseHeaders: kept }).catch(() => {});
    return;
  }
  ctx.tab.cdp.send('Fetch.continueRequest', { requestId: ev.requestId }).catch(() => {});
}

/** Answer a paused response with an empty HTML page instead (nothing more is downloaded or rendered). */
function answerEmpty(ctx: VisitContext, ev: { requestId: string }): void {
  ctx.tab.cdp
    .send('Fetch.fulfillRequest', { requestId: ev.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html' }], body: '' })
    .catch(() => {});
}

/** Refuse a paused response: the navigation fails and the page stays where it is. */
function refuse(ctx: VisitContext, ev: { requestId: string }): void {
  ctx.tab.cdp.send('Fetch.failRequest', { requestId: ev.requestId, errorReason: 'Aborted' }).catch(() => {});
}

/** Stop the navigation at `ev` and note where and why in the result. */
function stopAt(ctx: VisitContext, ev: { requestId: string }, stop: StoppedNavigation): void {
  const doc = ctx.document;
  ctx.result.stopped = stop;
  if (stop.kind === 'client') doc.clientStop();
  if (stop.kind === 'http' && !doc.decided) {
    // The first navigation ends on an empty document: nothing is requested or rendered.
    doc.decided = true;
    ctx.result.respondedAt = Date.now();
    answerEmpty(ctx, ev);
  } else {
    // A client-side navigation is refused: the page stays where it is.
    refuse(ctx, ev);
  }
}

/**
 * A client-side navigation of the main frame that got no answer (`responseErrorReason`: a host
 * that cannot be reached) is decided by where it was going, as an answered one is: one off-site
 * or disallowed is stopped (the page only forwards there; the record names the target, not
 * Chromium's error page). The first navigation's own failure goes through: the navigation
 * reports it.
 */
async function decideUnanswered(ctx: VisitContext, ev: PausedResponse): Promise<void> {
  const { document: doc, opts } = ctx;
  if (!doc.decided || !ev.responseErrorReason || ev.resourceType !== 'Document' || !opts.onDocument) return pass(ctx, ev);
  const decision = await Promise.resolve(opts.onDocument({ url: ev.request.url, status: null, location: null, initial: false })).catch((): DocumentDecision => 'follow');
  if (decision !== 'follow' && !ctx.result.stopped) return stopAt(ctx, ev, { reason: decision.stop, target: ev.request.url, kind: 'client' });
  return pass(ctx, ev);
}

/**
 * Decide a document request of the main frame before it is sent (the tab hands them over, see
 * `VisitTab.onDocumentRequest`): a client-side navigation of the page (a `location` change, a
 * meta refresh, a form) to a document `onDocument` stops (off-site, disallowed by robots.txt,
 * recorded under another URL) is refused before anything is requested (RFC 9309 §2.2.2: the rules
 * apply to every URL the crawler requests), and the page stays where it is. The first
 * navigation's requests go on: its URL was decided before it was asked for, and its redirect
 * hops are decided from their answers. Whatever goes on is decided again once answered (see
 * `decide`). Never throws.
 */
async function decideRequest(ctx: VisitContext, ev: PausedDocumentRequest): Promise<void> {
  const { document: doc, result, opts } = ctx;
  if (ev.frameId !== ctx.tab.mainFrameId || !doc.deciding || !doc.decided || result.stopped || !opts.onDocument) return pass(ctx, ev);
  const decision = await Promise.resolve(opts.onDocument({ url: ev.request.url, status: null, location: null, initial: false })).catch((): DocumentDecision => 'follow');
  if (decision !== 'follow' && !result.stopped) return stopAt(ctx, ev, { reason: decision.stop, target: ev.request.url, kind: 'client' });
  return pass(ctx, ev);
}

/** Decide one paused response (see the module comment). Never throws. */
async function decide(ctx: VisitContext, ev: PausedResponse): Promise<void> {
  const { document: doc, result, opts, requestedUrl } = ctx;
  // A request paused before it is sent belongs to the tab (its request guard, its unread
  // requests) or, for a document, to `decideRequest`; an asset's response to the tab's
  // placeholders (see `openTab`).
  if (isRequestStage(ev) || isAssetResponse(ev)) return;
  const status = ev.responseStatusCode;
  if (ev.frameId !== ctx.tab.mainFrameId || !doc.deciding || result.stopped) return pass(ctx, ev);
  if (status === undefined) return decideUnanswered(ctx, ev);
  const headers = ev.responseHeaders ?? [];
  const header = (n: string): string | null => headers.find((h) => h.name.toLowerCase() === n)?.value ?? null;
  const ct = header('content-type');
  const html = rendersAsPage(ct, header('content-disposition'));
  const location = status >= 300 && status < 400 ? resolveLocation(header('location'), ev.request.url) : null;
  const initial = !doc.decided;
  if (initial && doc.ownStatus === null) doc.ownStatus = status;
  // A later document of the main frame that is not a page (a download the page starts) is
  // not a navigation: it goes through as is (the context refuses downloads).
  if (!initial && location === null && !html) return pass(ctx, ev);
  // The first navigation keeps the requested URL's fragment (a hash route) across its hops
  // unless a Location names one of its own (RFC 9110 §10.2.2): that is where the page ends up.
  const at = initial ? inheritFragment(ev.request.url, requestedUrl) : ev.request.url;
  const to = location !== null && initial ? inheritFragment(location, requestedUrl) : location;
  const decision = opts.onDocument ? await Promise.resolve(opts.onDocument({ url: at, status, location: to, initial })).catch((): DocumentDecision => 'follow') : 'follow';
  if (location !== null) {
    if (initial) doc.hops.push({ url: ev.request.url, status, kind: 'http' });
    if (decision !== 'follow') return stopAt(ctx, ev, { reason: decision.stop, target: to ?? location, kind: initial ? 'http' : 'client' });
    return pass(ctx, ev);
  }
  if (decision !== 'follow') return stopAt(ctx, ev, { reason: decision.stop, target: at, kind: initial ? 'http' : 'client' });
  if (!initial) {
    const from = ctx.page.url();
    // The page reloads itself again: refused, it is read as it is.
    if (sameDocument(ev.request.url, from)) return ++doc.selfReloads > MAX_SELF_RELOADS ? refuse(ctx, ev) : pass(ctx, ev);
    const forward = { from: stripFragment(from), to: stripFragment(ev.request.url) };
    const again = doc.forwards.some((f) => f.from === forward.from && f.to === forward.to);
    doc.forwards.push(forward);
    if (again || doc.forwards.length > MAX_CLIENT_FORWARDS) {
      // Round and round: refused, and the visit ends as a redirect loop.
      doc.looped = true;
      refuse(ctx, ev);
      doc.clientStop();
      return;
    }
    return pass(ctx, ev);
  }
  doc.decided = true;
  doc.answered = { status, url: ev.request.url, headers: Object.fromEntries(headers.map((h) => [h.name.toLowerCase(), h.value])), at: Date.now() };
  if (html) return pass(ctx, ev);
  doc.nonHtml = { status, contentType: ct, url: ev.request.url, retryAfter: header('retry-after') };
  result.respondedAt = Date.now();
  answerEmpty(ctx, ev);
}

/**
 * End a visit whose client-side navigations looped (`MainDocument.looped`) as an HTTP redirect
 * loop ends: error `network` / `ERR_TOO_MANY_REDIRECTS` (the `redirect-loop` audit rule, not
 * retried), `redirectChain` the first navigation's HTTP hops and then each document that
 * forwarded (a `client` hop, up to the refused navigation); no status and no final URL, as for
 * an HTTP loop (no answer of the page was the page's), nothing read.
 */
export function loopedAnswer(ctx: VisitContext): 'done' {
  const { result, document: doc } = ctx;
  result.error = { code: 'network', message: 'ERR_TOO_MANY_REDIRECTS' };
  result.redirectChain = [...doc.hops, ...doc.forwards.map((f) => ({ url: f.from, status: null, kind: 'client' as const }))];
  result.status = null;
  result.finalUrl = null;
  result.title = null;
  result.links = [];
  result.settled = true;
  return 'done';
}
