/**
 * One page visit, as a short composition of stages over one visit context (see
 * `visit/context.ts`). Each stage lives in `visit/`, acts on the context, and undoes what it set
 * up in its cleanup; cleanups run in reverse order however the visit ends (`visit/pipeline.ts`).
 * @module
 */
import type { GateClock } from './measure-gate.js';
import type { VisitTab } from './tab.js';
import { a11yStages } from './visit/a11y.js';
import { keepAnswered } from './visit/answer.js';
import { newVisitContext, type VisitContext } from './visit/context.js';
import { discover } from './visit/discover.js';
import { extract } from './visit/extract.js';
import { workSpan } from './visit/gate.js';
import { hashNavigate, reusableFor, routeCheck, shownAfter, type RouteAttempt, type RouteMark } from './visit/hash-route.js';
import { historyNavigate, historyReusableFor } from './visit/history-route.js';
import { inspectStages } from './visit/inspect.js';
import { intercept } from './visit/intercept.js';
import { leave } from './visit/leave.js';
import { limits } from './visit/limits.js';
import { navigate, stageError } from './visit/navigate.js';
import { observe } from './visit/observe.js';
import { runStages, type Stage } from './visit/pipeline.js';
import { screenshot } from './visit/screenshot.js';
import type { DocumentShells } from './document-shells.js';
import type { ShownDocument } from './shown-document.js';
import { settle } from './visit/settle.js';
import { VisitAbort, type VisitOptions, type VisitResult } from './visit/types.js';
import { vitalsStages } from './visit/vitals.js';

export type { FoundLink } from './discovery.js';
export { openTab, type VisitTab } from './tab.js';
export { UNRENDERED_ANSWER } from './visit/answer.js';
export { navigationError } from './visit/navigate.js';
export { EARLY_QUIET_MS } from './visit/settle.js';
export type { DocumentDecision, DocumentResponse, StoppedNavigation, StopReason, VisitOptions, VisitResult } from './visit/types.js';
export type { VitalsOptions } from './visit/vitals.js';

/**
 * The stages of one visit, in order. `leave` is first so that its cleanup (pausing the page)
 * runs last; `limits` arms the hard deadline and cancellation for every later stage. The vitals
 * are measured from right before the navigation to right after extraction (their `watch` and
 * `read`); the inspection of SPA signals and of the server's HTML reads what extraction left,
 * and compares links once discovery has found them. With a measure gate (`--vitals-concurrency`),
 * the measured span of a visit with vitals holds the gate for measuring, and every stage that
 * works on a page (for a visit without vitals, navigation to extraction as one span) holds it
 * for work.
 */
function visitStages(opts: VisitOptions, clock: GateClock, route: Route | null = null): Stage<VisitContext>[] {
  const vitals = vitalsStages(clock);
  const a11y = a11yStages();
  const inspect = inspectStages();
  const gate = opts.measureGate;
  const mark: { value: RouteMark | null } = { value: null };
  // A route of the document the tab shows: change the hash, or route the app, instead of loading
  // (see `visit/hash-route.ts` and `visit/history-route.ts`).
  const go = route?.shells ? historyNavigate(route.shown, route.shells, route.attempt, mark) : route ? hashNavigate(route.shown, route.attempt, mark) : null;
  const load = route && go ? [go, settle(), routeCheck(route.attempt, mark), extract()] : [navigate(), settle(), extract()];
  const measured = opts.vitals ? [vitals.watch, ...load, vitals.read] : workSpan(gate, clock, load);
  const after = [inspect.read, screenshot(), a11y.check, discover(a11y.revealed), inspect.compare].flatMap((s) => workSpan(gate, clock, [s]));
  return [leave(), limits(clock), observe(), intercept(), ...measured, ...after];
}

/**
 * Visit one URL in a reused tab: observe the page, intercept its main document, navigate,
 * settle, extract, take the screenshot, discover links by scrolling and clicking, then pause
 * the page (scripts disabled, loads stopped) until the tab's next visit navigates away from it.
 *
 * Settle = the load event has fired, no request of the page has been in flight and the DOM
 * has not changed for `quietMs`, or for `EARLY_QUIET_MS` when the page has nothing
 * scheduled soon (see `settleState`); capped at `settleTimeoutMs`, after which the page is read
 * anyway and `settled` is `false`. Non-HTML main documents (decided from the response headers,
 * intercepted before the body is read) are not rendered: the browser is handed an empty
 * document instead, so nothing is downloaded.
 *
 * With `reuseDocument`, a hash route of the document the tab shows (left by a clean visit) is
 * reached by changing the hash instead of loading, when it is safe; when that attempt finds it
 * is not (the app does not react, a `beforeunload` handler, a document loaded meanwhile), the URL
 * is loaded as usual (see `visit/hash-route.ts`). Either way the tab then remembers whether its
 * page can serve the next route (`tab.shown`).
 *
 * Never throws for page behaviour: failures come back as `error`. Every browser call runs
 * under its own timeout and the whole visit under a hard deadline (`hardDeadlineMs`), so a
 * stuck page always frees its slot. A visit that failed, or whose page could not be paused,
 * has `contextBroken: true`; one cancelled by `signal` has `interrupted: true`.
 */
export async function visitPage(tab: VisitTab, requestedUrl: string, opts: VisitOptions): Promise<VisitResult> {
  const route = routeFor(tab, requestedUrl, opts);
  tab.shown = null;
  if (route) {
    const ctx = await runVisit(tab, requestedUrl, opts, route);
    // A page that loaded a document meanwhile is not the document that was shown.
    const done = ctx.result.interrupted || ctx.result.contextBroken || (!route.attempt.fallback && ctx.activity.mainRequest === null);
    const origin = new URL(requestedUrl).origin;
    // The first history routes of an origin are checked against a load, which is then the one recorded (see `DocumentShells`).
    const check = done && route.shells !== undefined && !ctx.result.interrupted && !ctx.result.contextBroken && route.shells.unverified(origin);
    if (done && !check) {
      tab.shown = shownAfter(ctx);
      return ctx.result;
    }
    if (check && route.shells) {
      const loaded = await load(tab, requestedUrl, opts);
      route.shells.noteCheck(origin, readsAlike(ctx.result, loaded), requestedUrl);
      return loaded;
    }
  }
  return load(tab, requestedUrl, opts);
}

/** Load `requestedUrl` in `tab` (no route); a 2xx HTML document teaches the crawl its app shells (see `document-shells.ts`). */
async function load(tab: VisitTab, requestedUrl: string, opts: VisitOptions): Promise<VisitResult> {
  const ctx = await runVisit(tab, requestedUrl, opts, null);
  tab.shown = shownAfter(ctx);
  const r = ctx.result;
  const digest = r.bodyDigest;
  if (opts.shells && digest && r.status !== null && r.status >= 200 && r.status < 300 && !r.nonHtml && r.redirectChain.length === 0 && r.finalUrl) {
    opts.shells.noteLoad(r.finalUrl, digest);
  }
  return r;
}

/**
 * `true` when a route visit read what a load of the same URL read: status, title, and the
 * links of the page itself (anchors, shadow roots, frame sources; not those found by clicking or
 * scrolling, which depend on what discovery had learned by then).
 */
function readsAlike(routed: VisitResult, loaded: VisitResult): boolean {
  const own = (r: VisitResult): string =>
    [...new Set(r.links.filter((l) => l.source === 'anchor' || l.source === 'shadow' || l.source === 'frame-src').map((l) => l.href))].sort().join('\n');
  return routed.error === null && loaded.error === null && routed.status === loaded.status && routed.title === loaded.title && own(routed) === own(loaded);
}

/** A route of the document a tab shows: a hash route, or (with `shells`) a history route of an app shell. */
interface Route {
  shown: ShownDocument;
  attempt: RouteAttempt;
  /** Set for a history route. */
  shells?: DocumentShells;
}

/** How `requestedUrl` may be reached in the page `tab` shows, or `null` when it must be loaded. */
function routeFor(tab: VisitTab, requestedUrl: string, opts: VisitOptions): Route | null {
  const hash = opts.reuseDocument ? reusableFor(tab, requestedUrl) : null;
  if (hash) return { shown: hash, attempt: { fallback: false } };
  const shells = opts.shells ?? null;
  const shell = shells ? historyReusableFor(tab, requestedUrl, shells) : null;
  return shell && shells ? { shown: shell, attempt: { fallback: false }, shells } : null;
}

/** `true` when `tab` shows a document that a visit of `url` may reach without loading it (a hash or history route). */
export function canRoute(tab: VisitTab, url: string, hashRoutes: boolean, shells: DocumentShells | null): boolean {
  return (hashRoutes && reusableFor(tab, url) !== null) || historyReusableFor(tab, url, shells) !== null;
}

/** One run of the visit stages (a load, or a route change when `route` is given); never throws. */
async function runVisit(tab: VisitTab, requestedUrl: string, opts: VisitOptions, route: Route | null): Promise<VisitContext> {
  const ctx = newVisitContext(tab, requestedUrl, opts);
  const result = ctx.result;
  await runStages(ctx, visitStages(opts, { waitedMs: 0 }, route), ({ stage, phase, error }) => {
    if (phase === 'action') {
      if (error instanceof VisitAbort) {
        result.error = error.recordError;
        if (error.recordError.code === 'interrupted') result.interrupted = true;
        // Aborted while the document loaded (its renderer crashed, too many dialogs): the answer stays.
        else keepAnswered(ctx);
      } else {
        result.error = stageError(stage, error, opts.navigationTimeoutMs);
      }
    }
    // A stage that failed, or could not undo what it set up, leaves the tab in an unknown state.
    result.contextBroken = true;
  });
  return ctx;
}
