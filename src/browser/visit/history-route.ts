/**
 * History routes without reloading. A single-page app with a history-mode router is served as
 * one app shell for many paths (see `document-shells.ts`): loading `/users/1`, then `/users/2`
 * boots the whole app twice. When the tab still shows a shell document a clean visit left (see
 * `shownAfter` in `hash-route.ts`), a visit to another path of the same origin asks the server
 * for that path first (the request a load would make, through the context's cookies and proxy),
 * and only when the answer is the same shell (same 2xx status, same `Content-Type`, the same
 * bytes) routes the running app there, as the browser does on Back and Forward:
 * `history.pushState` to the URL, then a `popstate` event, which a history router answers by
 * rendering the route of `location`. The visit then settles, extracts and discovers as after a
 * load, and its record takes the status and headers of that answer.
 *
 * Only when it is safe: the page has no `beforeunload` handler and listens for `popstate` (an
 * app without one is marked, and its routes are loaded from then on); the visit that left it
 * was clean; the app reacts (its DOM or title changed after the route did: `routeCheck`); no
 * document is loaded meanwhile. Otherwise the URL is loaded as usual. A probe that gets another
 * answer (a prerendered page, a 404, a redirect) costs the site one more request for that URL;
 * an origin whose probes keep missing is not probed again (see `DocumentShells`). Because of
 * those second requests, a crawl routes history paths only when asked (`--history-route-reuse`).
 * @module
 */
import { createHash } from 'node:crypto';
import type { DocumentShells } from '../document-shells.js';
import type { ShownDocument } from '../shown-document.js';
import type { VisitTab } from '../tab.js';
import type { VisitContext } from './context.js';
import { markRoute, type RouteAttempt, type RouteMark, windowListeners } from './hash-route.js';
import type { Stage } from './pipeline.js';
import { sameDocument } from './urls.js';

/**
 * Request headers of the probe: those of a browser's top-level navigation that servers decide
 * on (an app server often sends its shell only to requests that accept HTML).
 */
const NAVIGATION_HEADERS: Readonly<Record<string, string>> = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
  'upgrade-insecure-requests': '1',
};

/** SHA-1 of a document body (hex): how shells are told apart. */
export function bodyDigest(body: Uint8Array): string {
  return createHash('sha1').update(body).digest('hex');
}

/**
 * The shell `tab` shows, when a visit of `requestedUrl` may route it in place: another document
 * of the same origin, and the shown one is a known shell there; else `null`.
 */
export function historyReusableFor(tab: VisitTab, requestedUrl: string, shells: DocumentShells | null | undefined): ShownDocument | null {
  const shown = tab.shown;
  if (!shells || !shown || !tab.paused || shown.digest === null) return null;
  try {
    const want = new URL(requestedUrl);
    if (want.origin !== new URL(shown.url).origin || sameDocument(tab.page.url(), requestedUrl)) return null;
    return shells.routable(want.origin, shown.digest) ? shown : null;
  } catch {
    return null;
  }
}

/** Runs in the page: route the app to `url` as Back/Forward would (the URL changes, then `popstate`). */
function routeTo(url: string): void {
  history.pushState(null, '', url);
  dispatchEvent(new PopStateEvent('popstate', { state: null }));
}

/**
 * Stage: reach the requested path in the shell the tab shows. Resumes the paused page and falls
 * back (`attempt.fallback`) unless it listens for `popstate` and has no `beforeunload` handler;
 * passes the politeness gate, requests the URL (see the module comment), and falls back unless
 * the answer is the shell. Then makes the page's activity this visit's, gives the result the
 * answer's status and headers, and routes the app (`history.pushState` and `popstate`).
 */
export function historyNavigate(shown: ShownDocument, shells: DocumentShells, attempt: RouteAttempt, mark: { value: RouteMark | null }): Stage<VisitContext> {
  return {
    name: 'history-navigate',
    async action(ctx) {
      const { tab, page: p, result, activity: act, requestedUrl, opts } = ctx;
      const origin = new URL(requestedUrl).origin;
      // The page first: an app that cannot be routed costs the site no request.
      await ctx.call(() => tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: false }), 'resuming scripts');
      tab.paused = false;
      const listens = await ctx.callOr(() => windowListeners(ctx), 'looking for popstate', null);
      if (!listens || listens.has('beforeunload') || !listens.has('popstate')) {
        if (listens && !listens.has('popstate')) shells.noteNoRouter(origin);
        attempt.fallback = true;
        return 'done';
      }
      if (opts.beforeNavigate) await ctx.step(opts.beforeNavigate());
      opts.onNavigationSent?.(Date.now());
      const answer = await ctx.step(
        p
          .context()
          .request.get(requestedUrl, {
            headers: { ...NAVIGATION_HEADERS, ...opts.documentHeaders },
            maxRedirects: 0,
            failOnStatusCode: false,
            timeout: opts.navigationTimeoutMs,
          })
          .catch(() => null),
      );
      if (!answer) {
        attempt.fallback = true;
        return 'done';
      }
      const at = Date.now();
      const headers = answer.headers();
      const robotsHeaders = answer
        .headersArray()
        .filter((h) => h.name.toLowerCase() === 'x-robots-tag')
        .map((h) => h.value);
      const body = await ctx.step(answer.body().catch(() => null));
      await answer.dispose().catch(() => {});
      const status = answer.status();
      const same = body !== null && status === shown.status && (headers['content-type'] ?? null) === shown.contentType && bodyDigest(body) === shown.digest;
      shells.noteProbe(origin, same);
      if (!same) {
        attempt.fallback = true;
        return 'done';
      }
      const decision = opts.onDocument ? await ctx.step(Promise.resolve(opts.onDocument({ url: requestedUrl, status, location: null, initial: true }))) : 'follow';
      if (decision !== 'follow') {
        attempt.fallback = true;
        return 'done';
      }
      act.current = true;
      // A document the page loads from now on is a client-side navigation (and ends the attempt: see `visitPage`).
      ctx.document.decided = true;
      ctx.document.routeUrl = requestedUrl;
      act.mainResponse = shown.response;
      act.lastDocument = shown.response;
      result.status = status;
      result.contentType = headers['content-type'] ?? null;
      result.robotsHeaders = robotsHeaders;
      result.retryAfter = headers['retry-after'] ?? null;
      result.blockedBy = headers['cf-mitigated'] ? `cf-mitigated: ${headers['cf-mitigated']}` : null;
      result.respondedAt = at;
      // A 2xx answer: the crawl's politeness hears of it as of any document's (it never asks to end the visit).
      opts.onMainResponse?.(status, headers, at, requestedUrl);
      mark.value = await ctx.call(() => p.evaluate(markRoute), 'marking the route');
      // The document counts its calls from its load on: those of earlier visits count as heard.
      act.callsSeen = mark.value.calls;
      await ctx.call(() => p.evaluate(routeTo, requestedUrl), 'routing the app');
    },
  };
}
