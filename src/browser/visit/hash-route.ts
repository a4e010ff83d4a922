/**
 * Hash routes without reloading. A hash-routed app (`#/a`, `#/b`) is one document: loading it
 * for every route boots the whole app each time. When the tab still shows the document a clean
 * visit left (see {@link shownAfter}), a visit to another hash route of it changes the hash in
 * that page instead (`hashNavigate`): the app's `hashchange` handling renders the route, the visit
 * settles, extracts and discovers as after a load, and its record takes the document's status
 * and headers from the load.
 *
 * Only when it is safe: the requested URL is the same document (equal without the fragment)
 * with another fragment; the page has no `beforeunload` handler (it guards state that a reload
 * would lose); the visit that left it was clean (a 2xx HTML page, no redirect, settled, and
 * nothing that a load of another route would not have: no clicks or scrolling that changed the
 * page, no dialog, download, console error, uncaught exception, failed request or hydration
 * message); and the app reacts: its DOM or title changed after the hash did. Otherwise, or when
 * the page loads a document meanwhile, the visit falls back to a full load (`routeFallback`).
 * @module
 */
import type { ShownDocument } from '../shown-document.js';
import type { VisitTab } from '../tab.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { sameDocument } from './urls.js';

/** What a route visit (hash or history) learns before the route changes, to tell whether the app reacted. */
export interface RouteMark {
  /** The page's clock (`performance.now()`) right before the hash changed. */
  at: number;
  /** The title before. */
  title: string;
  /** fetch() and XMLHttpRequest calls the document had started before (`SettleState.callsStarted`). */
  calls: number;
}

/** Set by the hash visit's stages when it must give way to a full load. */
export interface RouteAttempt {
  fallback: boolean;
}

/**
 * The document `tab` shows, when a visit of `requestedUrl` may change its hash instead of
 * loading it: same document, another fragment (see the module comment); else `null`.
 */
export function reusableFor(tab: VisitTab, requestedUrl: string): ShownDocument | null {
  const shown = tab.shown;
  if (!shown || !tab.paused) return null;
  const now = tab.page.url();
  if (!sameDocument(now, requestedUrl) || !sameDocument(shown.url, requestedUrl)) return null;
  try {
    const want = new URL(requestedUrl).hash;
    return want !== '' && want !== new URL(now).hash ? shown : null;
  } catch {
    return null;
  }
}

/**
 * The document a finished visit leaves for the next visit's hash change, or `null` when that
 * visit must load (see the module comment for what "clean" means).
 */
export function shownAfter(ctx: VisitContext): ShownDocument | null {
  const { result: r, activity: act, opts } = ctx;
  const resp = act.mainResponse;
  if (!(opts.reuseDocument || opts.shells) || !resp || act.lastDocument !== resp || r.status === null || r.status < 200 || r.status >= 300) return null;
  if (r.contextBroken || r.interrupted || r.error || r.stopped || r.nonHtml || r.noContent || !r.settled || r.redirectChain.length > 0) return null;
  if (r.clicks > 0 || opts.scroll || r.dialogs.length > 0 || r.downloads.length > 0) return null;
  if (r.consoleErrors.length > 0 || r.pageErrors.length > 0 || r.failedRequests.length > 0 || r.spa.hydration.length > 0) return null;
  // A history route's document is the shell, shown at the route's URL (see `history-route.ts`).
  const at = ctx.document.routeUrl ?? resp.url();
  if (!sameDocument(at, ctx.requestedUrl)) return null;
  const url = new URL(at);
  url.hash = '';
  return {
    url: url.href,
    response: resp,
    status: r.status,
    contentType: r.contentType,
    robotsHeaders: r.robotsHeaders,
    retryAfter: r.retryAfter,
    blockedBy: r.blockedBy,
    digest: r.bodyDigest,
  };
}

/**
 * The event types the page's `window` has handlers for (`addEventListener` listeners and `on…`
 * properties, e.g. `beforeunload`, `popstate`, `hashchange`).
 * @throws when the page does not answer (the caller treats that as unsafe)
 */
export async function windowListeners(ctx: VisitContext): Promise<Set<string>> {
  const { cdp } = ctx.tab;
  const win = (await cdp.send('Runtime.evaluate', { expression: 'window' })) as { result: { objectId?: string } };
  const objectId = win.result.objectId;
  if (!objectId) throw new Error('no window object');
  const { listeners } = (await cdp.send('DOMDebugger.getEventListeners', { objectId })) as { listeners: { type: string }[] };
  await cdp.send('Runtime.releaseObject', { objectId }).catch(() => {});
  return new Set(listeners.map((l) => l.type));
}

/** `true` when the page has a `beforeunload` handler. Never throws: unknown counts as `true`. */
async function hasBeforeUnload(ctx: VisitContext): Promise<boolean> {
  return windowListeners(ctx).then(
    (types) => types.has('beforeunload'),
    () => true,
  );
}

/** Runs in the page: the clock, the title and the count of calls started (see `installScheduleWatch`) before the route changes. */
export function markRoute(): RouteMark {
  const calls = (window as unknown as { __spacrawl?: { callsStarted?: number } }).__spacrawl?.callsStarted;
  return { at: performance.now(), title: document.title, calls: typeof calls === 'number' ? calls : 0 };
}

/** Runs in the page: `true` when the content (anything but `style`/`class`) or the title changed since `mark` (see `installMutationClock`). */
function routeChanged(mark: RouteMark): boolean {
  const clock = (window as unknown as { __spacrawl?: { content?: number } }).__spacrawl;
  return document.title !== mark.title || (typeof clock?.content === 'number' && clock.content > mark.at);
}

/**
 * Stage: go to the requested hash route in the page the tab shows. Resumes the paused page,
 * makes its activity this visit's, gives the result the document's answer, and sets
 * `location.href` to the requested URL (a same-document navigation: `hashchange`, no request).
 * The politeness gate is passed first, as for a load: `--rate` and `Crawl-delay` count routes.
 * Falls back (`attempt.fallback`) when the page has a `beforeunload` handler.
 */
export function hashNavigate(shown: ShownDocument, attempt: RouteAttempt, mark: { value: RouteMark | null }): Stage<VisitContext> {
  return {
    name: 'hash-navigate',
    async action(ctx) {
      const { tab, page: p, result, activity: act, requestedUrl, opts } = ctx;
      // A route is a page for the politeness gate (--rate, Crawl-delay), though nothing is requested for it.
      if (opts.beforeNavigate) await ctx.step(opts.beforeNavigate());
      await ctx.call(() => tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: false }), 'resuming scripts');
      tab.paused = false;
      if (await ctx.callOr(() => hasBeforeUnload(ctx), 'looking for beforeunload', true)) {
        attempt.fallback = true;
        return 'done';
      }
      act.current = true;
      // A document the page loads from now on is a client-side navigation (and ends the attempt: see `visitPage`).
      ctx.document.decided = true;
      act.mainResponse = shown.response;
      act.lastDocument = shown.response;
      result.status = shown.status;
      result.contentType = shown.contentType;
      result.robotsHeaders = [...shown.robotsHeaders];
      result.retryAfter = shown.retryAfter;
      result.blockedBy = shown.blockedBy;
      result.respondedAt = Date.now();
      mark.value = await ctx.call(() => p.evaluate(markRoute), 'marking the route');
      // The document counts its calls from its load on: those of earlier visits count as heard.
      act.callsSeen = mark.value.calls;
      opts.onNavigationSent?.(Date.now());
      await ctx.call(() => p.evaluate((u) => void (location.href = u), requestedUrl), 'changing the hash');
    },
  };
}

/**
 * Stage (after settle): fall back to a full load when the page loaded a document meanwhile, or
 * its app did not react to the hash change (nothing of its content or title changed).
 */
export function routeCheck(attempt: RouteAttempt, mark: { value: RouteMark | null }): Stage<VisitContext> {
  return {
    name: 'route-check',
    async action(ctx) {
      const m = mark.value;
      const changed = m ? await ctx.callOr(() => ctx.page.evaluate(routeChanged, m), 'reading the route change', false) : false;
      if (ctx.activity.mainRequest !== null || !changed) {
        attempt.fallback = true;
        return 'done';
      }
    },
  };
}
