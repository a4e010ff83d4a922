/**
 * One page visit, as a short composition of stages over one visit context (see
 * `visit/context.ts`). Each stage lives in `visit/`, acts on the context, and undoes what it set
 * up in its cleanup; cleanups run in reverse order however the visit ends (`visit/pipeline.ts`).
 * @module
 */
import type { GateClock } from './measure-gate.js';
import type { VisitTab } from './tab.js';
import { a11yStages } from './visit/a11y.js';
import { newVisitContext, type VisitContext } from './visit/context.js';
import { discover } from './visit/discover.js';
import { extract } from './visit/extract.js';
import { workSpan } from './visit/gate.js';
import { hashNavigate, reusableFor, routeCheck, shownAfter, type RouteAttempt } from './visit/hash-route.js';
import { inspectStages } from './visit/inspect.js';
import { intercept } from './visit/intercept.js';
import { leave } from './visit/leave.js';
import { limits } from './visit/limits.js';
import { navigate, stageError } from './visit/navigate.js';
import { observe } from './visit/observe.js';
import { runStages, type Stage } from './visit/pipeline.js';
import { screenshot } from './visit/screenshot.js';
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
function visitStages(opts: VisitOptions, clock: GateClock, route: { shown: ShownDocument; attempt: RouteAttempt } | null = null): Stage<VisitContext>[] {
  const vitals = vitalsStages(clock);
  const a11y = a11yStages();
  const inspect = inspectStages();
  const gate = opts.measureGate;
  const mark = { value: null };
  // A hash route of the document the tab shows: change the hash instead of loading (see `visit/hash-route.ts`).
  const load = route ? [hashNavigate(route.shown, route.attempt, mark), settle(), routeCheck(route.attempt, mark), extract()] : [navigate(), settle(), extract()];
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
  const shown = opts.reuseDocument ? reusableFor(tab, requestedUrl) : null;
  tab.shown = null;
  if (shown) {
    const attempt: RouteAttempt = { fallback: false };
    const ctx = await runVisit(tab, requestedUrl, opts, { shown, attempt });
    // A page that loaded a document meanwhile is not the document that was shown.
    const done = ctx.result.interrupted || ctx.result.contextBroken || (!attempt.fallback && ctx.activity.mainRequest === null);
    if (done) {
      tab.shown = shownAfter(ctx);
      return ctx.result;
    }
  }
  const ctx = await runVisit(tab, requestedUrl, opts, null);
  tab.shown = shownAfter(ctx);
  return ctx.result;
}

/** One run of the visit stages (a load, or a hash change when `route` is given); never throws. */
async function runVisit(tab: VisitTab, requestedUrl: string, opts: VisitOptions, route: { shown: ShownDocument; attempt: RouteAttempt } | null): Promise<VisitContext> {
  const ctx = newVisitContext(tab, requestedUrl, opts);
  const result = ctx.result;
  await runStages(ctx, visitStages(opts, { waitedMs: 0 }, route), ({ stage, phase, error }) => {
    if (phase === 'action') {
      if (error instanceof VisitAbort) {
        result.error = error.recordError;
        if (error.recordError.code === 'interrupted') result.interrupted = true;
      } else {
        result.error = stageError(stage, error, opts.navigationTimeoutMs);
      }
    }
    // A stage that failed, or could not undo what it set up, leaves the tab in an unknown state.
    result.contextBroken = true;
  });
  return ctx;
}
