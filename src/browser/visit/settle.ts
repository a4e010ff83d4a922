/**
 * Stage: settle. Waits until the page has done what it planned to do after DOMContentLoaded,
 * so that what the extract stage reads is the page a person would see.
 *
 * Settled: the load event has fired, no request of the page is in flight and none for
 * `quietMs`, and the DOM has not changed for `quietMs`. Or, early: the same for
 * {@link EARLY_QUIET_MS} while the page has nothing scheduled soon (no timer due within a
 * second, no short interval, animation frame, idle callback or channel message; see
 * `settleState`) and has read every response to the end, so nothing it has planned can still
 * add content. Never while a WebSocket or EventSource the page opened awaits its first message
 * (its content is still to come), while the browser does work for the page off its main thread
 * (IndexedDB, WebAssembly compilation …), or while a worker has owed it an answer for under 2 s. The early window's network quiet counts what the page can
 * still do with each response (see `PageActivity.earlyNetWaitMs`): nothing for a load-blocking
 * request that finished before the load event, a short wait for one it only gets as an event
 * (an image, a font). A long-poll re-poll that hangs is not waited for
 * (`RepollWatch`). The cap (`settleTimeoutMs`) is the backstop: the page is then read anyway
 * and `settled` is `false`. Style and class changes do not restart the early window; timeouts
 * due soon are run instead of waited for (see `judgeSettle` for the rule, `awaitQuiet` for the
 * wait inside the page).
 * @module
 */
import type { CDPSession } from 'playwright';
import { awaitQuiet, fastForwardTimers, type QuietReport, type QuietRequest } from '../settle-scripts.js';
import { evaluateInTab } from '../json-result.js';
import { CallTimeoutError, sleep } from '../timeout.js';
import { askServerBody } from './server-body.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { VisitAbort } from './types.js';
import { judgeSettle } from './settle-rule.js';
import { loopedAnswer } from './intercept.js';
import { inheritFragment } from './urls.js';
import { scanExcludeOf, settledReadExpression } from './settled-read.js';

/**
 * Quiet time (ms) after which a page with nothing scheduled soon counts as settled (the full
 * `quietMs` window applies to pages with pending timers, intervals or animation frames).
 */
export const EARLY_QUIET_MS = 100;
/**
 * Quiet time (ms) of the page's content that is enough for a page with nothing scheduled soon
 * once its main thread has also been idle since its last change (see `judgeSettle`).
 */
export const IDLE_QUIET_MS = 50;
/** How long (ms) a response whose body the page has not read yet holds the settle. */
export const UNREAD_WAIT_MS = 2_000;
/**
 * Longest wait (ms) after a click on a `download` link for the download to show before the page
 * may settle (the settle cap, 5 s by default, usually ends it sooner). The browser makes that
 * request itself: the page's network events do not show it, and the download shows only once its
 * response has begun, however slow the server is (a report built on request, a busy machine).
 */
export const DOWNLOAD_WAIT_MS = 10_000;
/**
 * How much longer (ms) than its own wait a page's main thread may take to answer the settle
 * read before the visit ends as unresponsive: the time reading the DOM is given. On a starved
 * machine (load average 20 on 2 cores, a fresh-user trial of the Elements site) a renderer took
 * more than 3 s to answer, and 2 s made 21 of 55 pages "unresponsive" on both tries.
 */
const STARVED_ANSWER_MS = 10_000;
/** Longest sleep (ms) between two looks at the page's network state. */
const TICK_MS = 25;
/**
 * Longest wait (ms) inside the page for it to go quiet (see `awaitQuiet`) before the rule is
 * checked again. Long, because on a busy machine each new question waits its turn on the page's
 * main thread (75-115 ms median on TypeDoc at concurrency 4 on 2 cores, against ~3 ms idle): the
 * page answers as soon as it is quiet, or its DOM has been quiet for the full window, so a longer
 * wait only spares the questions in between.
 */
const IN_PAGE_WAIT_MS = 1_000;
/**
 * Most fast-forwards of a page's timeouts per visit (see `judgeSettle`): a page that sets a new
 * timeout each time one runs (a poll, a ticker) is then waited for, not hurried along.
 */
export const MAX_FAST_FORWARDS = 3;
/** What an unreadable settle state counts as: nothing is known, so nothing is settled. */
const UNKNOWN_STATE: QuietReport = { loaded: false, loadAt: null, painted: false, quietForMs: 0, contentQuietForMs: 0, linkQuietForMs: 0, idleSinceChange: false, scheduled: 1, timers: 0, downloadClicks: 0, sinceDownloadClickMs: Infinity, callsStarted: 0, sinceCallMs: Infinity, bodyReads: 1, requests: 1, awaitingMessages: 0, timerDueInMs: Infinity, blank: false, fastForwarded: 0, quiet: false };

/** `awaitQuiet`'s source, sent with each question (see {@link askQuiet}). */
const AWAIT_QUIET = awaitQuiet.toString();
/** The call of `fastForwardTimers`, through the tab's own CDP session like the settle state's. */
const FAST_FORWARD = `(${fastForwardTimers.toString()})()`;

/**
 * Ask the page for its settle state (`awaitQuiet`, which waits in the page up to `req.maxMs`)
 * through the tab's own CDP session (`evaluateInTab`: every visit asks at least once). CDP
 * carries finite numbers only: the state's "never" (`Infinity`: no timer due, no call made)
 * travels as a string and is turned back into a number here. The encoding in the page uses
 * operators only, no global a page may have replaced (`Object.keys`, `Number.isFinite`).
 * @param read - the settled read's lean expression (see `settledReadExpression`), made in the
 *   same call when the wait ends with the page quiet (`QuietReport.quiet`), or `null`
 * @returns the state, and the read's value when it was made (JSON text; `MISSING` without the
 *   page library; `null` when it threw), else `undefined`, with when it began (ms since epoch,
 *   the page's clock; `null` when not made)
 * @throws what `evaluateInTab` throws (the document went away meanwhile)
 */
async function askQuiet(cdp: CDPSession, req: QuietRequest, read: string | null): Promise<{ state: QuietReport; read: unknown; readAt: number | null }> {
  const state = await evaluateInTab<Record<string, unknown>>(
    cdp,
    `(async () => {
  const v = await (${AWAIT_QUIET})(${JSON.stringify(req)});
  const out = {};
  for (const k in v) {
    const x = v[k];
    out[k] = typeof x === 'number' && (x === Infinity || x === -Infinity || x !== x) ? \`\${x}\` : x;
  }${read === null ? '' : `
  if (v.quiet === true) { out.__readAt = performance.timeOrigin + performance.now(); try { out.__read = ${read}; } catch { out.__read = null; } }`}
  return out;
})()`,
    true,
  );
  const made = state['__read'];
  const readAt = typeof state['__readAt'] === 'number' ? state['__readAt'] : null;
  delete state['__read'];
  delete state['__readAt'];
  for (const [k, x] of Object.entries(state)) if (x === 'Infinity' || x === '-Infinity' || x === 'NaN') state[k] = Number(x);
  return { state: state as unknown as QuietReport, read: made, readAt };
}

/**
 * The settle stage (one per visit). Sets `settled`, `timings.settledMs`
 * and `timings.serverWaitMs` (`timings.lastChangeMs` is read with the DOM, by the extract stage), and ends the deciding of documents (later ones are discovery's).
 * Ends the visit (`'done'`) when a client-side navigation was stopped: the page only forwards.
 */
export function settle(): Stage<VisitContext> {
  return {
    name: 'settle',
    async action(ctx) {
      const { result, requestedUrl } = ctx;
      // The server's HTML, asked for now: its answer waits on the renderer while the page settles.
      askServerBody(ctx);
      // The extract stage comes next: the page is read in the answer that finds it quiet.
      result.settled = await waitForSettle(ctx, ctx.opts.settleTimeoutMs, settledReadExpression(scanExcludeOf(ctx.opts)).lean);
      // The page's client-side navigations went round in a loop (see the intercept stage).
      if (ctx.document.looped) return loopedAnswer(ctx);
      // Judged settled when the page was read (in the answer that found it so), else now.
      result.timings.settledMs = Math.round((ctx.settledRead?.at ?? Date.now()) - ctx.startedAt);
      result.timings.serverWaitMs = ctx.activity.serverWait.totalMs();
      ctx.document.deciding = false;
      const stopped = result.stopped;
      const mainResp = ctx.activity.mainResponse;
      if (stopped && mainResp) {
        // The page forwards (client side) to a page recorded under another URL, or off-site.
        result.redirectChain.push({ url: inheritFragment(ctx.document.routeUrl ?? mainResp.url(), requestedUrl), status: null, kind: 'client' });
        result.finalUrl = stopped.target;
        result.status = ctx.document.ownStatus ?? mainResp.status();
        result.settled = true;
        return 'done';
      }
    },
  };
}

/**
 * How late (ms) past the cap an answer that says the page is quiet may come and still count as
 * quiet within it: the page's own wait ends at the cap, and its answer then crosses to the crawler.
 */
const LATE_ANSWER_MS = 250;

/**
 * Wait for the settle rule (see `judgeSettle`) or the cap; `true` when the page settled within
 * the cap (a page that goes quiet only after it, its main thread busy, is `false`). The
 * discover stage waits by the same rule after each click.
 * @param capMs - the cap (ms); the visit's `settleTimeoutMs` unless given
 * @param read - the settled read's lean expression (see `settledReadExpression`): each question
 *   that finds the page quiet also reads it, and the read of the one the rule calls settled is
 *   kept in `ctx.settledRead` for the extract stage (one call and its wait on the renderer's main
 *   thread less per page: a TypeDoc read took 38 ms p50 at concurrency 4 on 2 cores, ~10 of it
 *   the read itself); `null` (the default) = no read
 */
export async function waitForSettle(ctx: VisitContext, capMs = ctx.opts.settleTimeoutMs, read: string | null = null): Promise<boolean> {
  ctx.settledRead = null;
  const { opts, activity: act } = ctx;
  const start = Date.now();
  // A screenshot, axe and vitals read the rendered content, not only its links and title.
  const linksOnly = !opts.screenshotPath && !opts.a11y && !opts.vitals;
  const windows = { quietMs: opts.quietMs, earlyMs: Math.min(opts.quietMs, EARLY_QUIET_MS), idleEarlyMs: Math.min(opts.quietMs, IDLE_QUIET_MS), linksOnly };
  let nextRead = 0;
  let fastForwards = 0;
  /** When the page's load event started, once the page has said (ms since epoch). */
  let loadAt: number | null = null;
  for (;;) {
    const now = Date.now();
    const left = capMs - (now - start);
    if (left <= 0) return false;
    // A client-side navigation was stopped: the page only forwards, nothing here is read.
    if (ctx.result.stopped || ctx.document.looped) return false;
    // While a request the page waits on is in flight, there is no need to ask the page.
    if (act.waitedOn(now) === 0 && now >= nextRead) {
      const req: QuietRequest = {
        earlyMs: windows.earlyMs,
        idleEarlyMs: windows.idleEarlyMs,
        linksOnly,
        quietMs: windows.quietMs,
        // The page waits until the network, too, has been quiet for the early window. Before the
        // page has said when it loaded, load-blocking requests that finished are taken to have
        // finished before it (checked once it says: see `earlyNetWaitMs`). The events of its own
        // calls count only until its script has had every answer (the page knows when).
        minWaitMs: Math.max(0, act.earlyNetWaitMs(now, loadAt ?? Infinity, windows.earlyMs, true)),
        callsWaitMs: Math.max(0, act.earlyNetWaitMs(now, loadAt ?? Infinity, windows.earlyMs)),
        maxMs: Math.min(IN_PAGE_WAIT_MS, left),
        // Not while a response body may still be read (its content is not in the page yet).
        fastForwards: act.heldBodies(now, 1).length === 0 ? MAX_FAST_FORWARDS - fastForwards : 0,
      };
      // A page whose main thread did not answer within its own wait and STARVED_ANSWER_MS more
      // will not answer the reads after it either: the visit ends here as unresponsive (a retry
      // tells a hung page from a starved browser). Other failures (a navigation replaced the
      // document) leave the state unknown and the loop goes on.
      const { state, read: made, readAt } = await ctx.step(
        ctx.call(() => askQuiet(ctx.tab.cdp, req, read), 'reading the settle state', req.maxMs + STARVED_ANSWER_MS).catch((err: unknown): { state: QuietReport; read: unknown; readAt: number | null } => {
          if (err instanceof CallTimeoutError || err instanceof VisitAbort) throw err;
          return { state: UNKNOWN_STATE, read: undefined, readAt: null };
        }),
      );
      fastForwards += state.fastForwarded;
      if (state.loadAt !== null) loadAt = state.loadAt;
      const checkedAt = Date.now();
      // A response counts as being read while its body is not finished, unless it is a fetch()
      // whose body the page has not asked for (nothing reads it, so it never finishes), or a
      // hanging re-poll.
      const held = act.heldBodies(checkedAt, state.bodyReads);
      const inFlight = act.waitedOn(checkedAt) > 0;
      const verdict = judgeSettle(
        {
          state,
          netQuietMs: inFlight ? 0 : checkedAt - act.lastNet,
          earlyNetWaitMs: inFlight ? windows.earlyMs : act.earlyNetWaitMs(checkedAt, loadAt, windows.earlyMs, act.callsHandled(state)),
          heldBodies: held.length,
          reading: held.some(([, at]) => at !== null && checkedAt - at < UNREAD_WAIT_MS),
          // A clicked download link is a request the page events do not show until the download
          // starts: wait for it (at most DOWNLOAD_WAIT_MS after the click) before settling.
          downloadPending: state.downloadClicks > act.downloadsSeen && state.sinceDownloadClickMs < DOWNLOAD_WAIT_MS,
          unheardCall: act.hasUnheardCall(state),
          mayFastForward: fastForwards < MAX_FAST_FORWARDS,
        },
        windows,
      );
      // Quiet, but only after the cap (a main thread busy past it answered late): the page did not
      // go quiet within the cap, which is what `settled` says. It is read as it is now.
      if (verdict.kind === 'settled') {
        // Read in this answer (JSON text), as the page is now: the extract stage takes it.
        if (typeof made === 'string') ctx.settledRead = { json: made, at: Math.min(checkedAt, Math.max(start, readAt ?? checkedAt)) };
        return checkedAt - start <= capMs + LATE_ANSWER_MS;
      }
      if (verdict.kind === 'fast-forward') {
        await ctx.callOr(() => evaluateInTab<number>(ctx.tab.cdp, FAST_FORWARD), 'fast-forwarding timers', 0);
        fastForwards++;
        nextRead = 0;
      } else {
        nextRead = checkedAt + verdict.nextCheckMs;
      }
    }
    await ctx.step(sleep(Math.max(5, Math.min(TICK_MS, nextRead - Date.now()))));
  }
}
