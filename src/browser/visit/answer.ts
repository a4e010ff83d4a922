/**
 * What the requested URL answered, read once the navigation returned: a hop stopped by
 * `onDocument`, a non-HTML document, the final document's status and headers (or the answer
 * Chromium dropped), and whether anything is left to settle and read.
 * @module
 */
import type { RecordError } from '../../model/record.js';
import type { VisitContext } from './context.js';
import type { StageEnd } from './pipeline.js';
import { extractPage } from '../page-scripts.js';
import { documentLinks } from './extract.js';
import { loopedAnswer } from './intercept.js';
import { httpChain } from './urls.js';

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
 * Read what the navigation got (`navError`: how it failed, or `null`) into the result.
 * Resolves `'done'` when the visit ends here: the navigation was stopped at an HTTP hop, the
 * document is not HTML, `onMainResponse` asked to end it, the answer has nothing to render,
 * or the navigation failed.
 */
export async function readAnswer(ctx: VisitContext, navError: RecordError | null): Promise<StageEnd> {
  const { result, activity: act, document: doc, opts } = ctx;
  const mainResp = act.mainResponse;
  const stopped = result.stopped;
  // The page's client-side navigations went round in a loop (see the intercept stage).
  if (doc.looped) return loopedAnswer(ctx);
  if (stopped && stopped.kind === 'http') {
    // The URL only forwards: to an off-site target, or to a page recorded under another URL.
    result.redirectChain = doc.hops;
    result.finalUrl = stopped.target;
    result.status = doc.ownStatus;
    result.settled = true;
    return 'done';
  }
  if (mainResp) result.redirectChain = await ctx.step(httpChain(mainResp.request()));
  const nh = doc.nonHtml;
  if (nh) {
    result.nonHtml = true;
    result.status = nh.status;
    result.contentType = nh.contentType;
    result.finalUrl = nh.url;
    result.retryAfter = nh.retryAfter;
    result.settled = true;
    opts.onMainResponse?.(nh.status, nh.retryAfter ? { 'retry-after': nh.retryAfter } : {}, result.respondedAt ?? Date.now(), nh.url);
    return 'done';
  }
  const unrendered = navError?.code === 'network' && UNRENDERED_ANSWER.test(navError.message);
  let headers: Record<string, string> | null = null;
  // A redirect's response is the last one seen when the final hop's answer was dropped.
  if (mainResp && !mainResp.request().redirectedTo()) {
    result.status = mainResp.status();
    headers = await ctx.step(mainResp.allHeaders().catch(() => ({}) as Record<string, string>));
    result.finalUrl = mainResp.url();
  } else if (unrendered && doc.answered) {
    // The server answered, and Chromium dropped the answer before its response event.
    const a = doc.answered;
    result.status = a.status;
    result.respondedAt = a.at;
    headers = a.headers;
    result.finalUrl = a.url;
    if (act.mainRequest) result.redirectChain = await ctx.step(httpChain(act.mainRequest));
  }
  if (headers && result.status !== null) {
    result.contentType = headers['content-type'] ?? null;
    result.retryAfter = headers['retry-after'] ?? null;
    result.robotsHeaders = mainResp
      ? await ctx.step(mainResp.headerValues('x-robots-tag').catch(() => [] as string[]))
      : headers['x-robots-tag']
        ? [headers['x-robots-tag']]
        : [];
    if (headers['cf-mitigated']) result.blockedBy = `cf-mitigated: ${headers['cf-mitigated']}`;
    if (opts.onMainResponse?.(result.status, headers, result.respondedAt ?? Date.now(), result.finalUrl)) return 'done';
  }
  if (unrendered && result.status !== null) {
    // Nothing of the site's is shown (the tab keeps the previous page, or shows Chromium's
    // error page): the status is the answer, and there is nothing to read.
    result.settled = true;
    result.noContent = true;
    return 'done';
  }
  if (navError) {
    // A document that arrived but never reached DOMContentLoaded (its body never ended) is read
    // as far as it came, without settle or discovery: what a person sees of it. With no document
    // at all there is nothing to read.
    const timedOut = mainResp !== null && navError.code === 'timeout';
    result.error = timedOut ? { code: 'timeout', message: `DOMContentLoaded not reached within ${opts.navigationTimeoutMs} ms` } : navError;
    // Also what arrived of a document whose body failed mid-way (see `PageActivity.mainFailed`).
    if (timedOut || (mainResp !== null && navError.code === 'network')) await readPartial(ctx);
    // Redirects that never ended, or whose target could not be reached: the hops that passed
    // are the record's chain (the URL itself answered, with a redirect).
    if (result.redirectChain.length === 0 && doc.hops.length > 0) result.redirectChain = [...doc.hops];
    return 'done';
  }
}

/**
 * Keep what the main document answered on a visit that ended before {@link readAnswer} read it:
 * the page's renderer crashed while the document was loading (a script that exhausts its stack or
 * its heap during parsing), or the visit was aborted then (too many dialogs). The server did
 * answer, so its status, URL and content type are the record's, next to the visit's error, as for
 * a document that never reached DOMContentLoaded. Synchronous: the page may be gone.
 */
export function keepAnswered(ctx: VisitContext): void {
  const { result, activity: act, document: doc } = ctx;
  const resp = act.mainResponse;
  // A redirect's response is not the document's answer.
  if (result.status !== null || result.nonHtml || !resp || resp.request().redirectedTo()) return;
  result.status = resp.status();
  result.finalUrl = resp.url();
  result.contentType = resp.headers()['content-type'] ?? null;
  if (result.redirectChain.length === 0 && doc.hops.length > 0) result.redirectChain = [...doc.hops];
}

/**
 * Read the title and links of a document that never reached DOMContentLoaded (the server sent
 * part of it and stopped: a hanging body, a `Content-Length` it never fills, a connection cut
 * mid-body): the browser shows what it parsed, and a person can follow those links. The record
 * keeps its error (`timeout`, or the body's `network` failure).
 */
async function readPartial(ctx: VisitContext): Promise<void> {
  const main = await ctx.callOr(() => ctx.page.evaluate(extractPage), 'reading the partial page', null);
  if (!main || main.empty) return;
  const { result } = ctx;
  result.title = main.title;
  result.finalUrl = main.href;
  result.links.push(...documentLinks(main.links));
}
