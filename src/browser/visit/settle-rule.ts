/**
 * The settle rule as a pure function of what the page and its network show at one moment (see
 * {@link judgeSettle}); the settle stage reads those and acts on the verdict.
 * @module
 */
import type { SettleState } from '../settle-scripts.js';

/** What the settle stage knows at one check. Times in ms. */
export interface SettleInputs {
  /** The page's own state (`settleState`). */
  state: SettleState;
  /** Time since the page's last network event, 0 while a request it waits on is in flight. */
  netQuietMs: number;
  /**
   * How much longer (ms; 0 or less when met) the network must stay quiet for the early window:
   * `earlyMs` after the last event, less for events the page has already acted on or can only
   * react to through a handler (see `PageActivity.earlyNetWaitMs`); `earlyMs` while a request
   * the page waits on is in flight.
   */
  earlyNetWaitMs: number;
  /** Responses whose bodies still hold the settle (see `PageActivity.heldBodies`). */
  heldBodies: number;
  /** `true` while one of them arrived less than `UNREAD_WAIT_MS` ago (the page may still be reading it). */
  reading: boolean;
  /** `true` while a clicked `download` link has not shown its download yet (holds both windows). */
  downloadPending: boolean;
  /**
   * `true` while the page has started a fetch() or XMLHttpRequest whose network event has not
   * reached the crawler yet (holds both windows, like a request in flight).
   */
  unheardCall: boolean;
  /** `true` when the page's pending timeouts may still be fast-forwarded in this visit. */
  mayFastForward: boolean;
}

/** The settle windows (ms). */
export interface SettleWindows {
  /** Full quiet window: network and DOM quiet this long settle any page. */
  quietMs: number;
  /** Early window: enough quiet (network and content) for a page with nothing scheduled. */
  earlyMs: number;
  /** Early window of the content once the page's main thread has been idle since its last change. */
  idleEarlyMs: number;
  /**
   * Only the links and the title are read (no screenshot, axe or vitals): once the main thread
   * has been idle since the last change, `idleEarlyMs` counts the quiet of the links and the
   * title instead of the content's.
   */
  linksOnly: boolean;
}

/**
 * What to do at one check:
 * - `settled`: read the page now (`early` says which window it met)
 * - `fast-forward`: the page is idle but for timeouts due soon; run them now
 *   (`fastForwardTimers`) and check again
 * - `wait`: check again in `nextCheckMs`
 */
export type SettleVerdict = { kind: 'settled'; early: boolean } | { kind: 'fast-forward' } | { kind: 'wait'; nextCheckMs: number };

/** Shortest wait (ms) between two checks. */
export const MIN_CHECK_MS = 25;
/** Wait (ms) between checks while the page has work pending (nothing to compute a due time from). */
export const BUSY_CHECK_MS = 50;

/**
 * The settle rule (docs/how-it-works.md, "Settle").
 *
 * Never settled while the page awaits something (`SettleState.awaitingMessages`: a push
 * connection's first message, off-thread work of the browser, a worker's answer), a clicked download has not
 * begun, a request the page started has not been heard of yet, or before `load`; nor while the
 * page has rendered nothing (`SettleState.blank`) and has a timer pending: a timeout due soon or
 * later, or a short interval (an app that starts after a delay, or once a poll finds what it
 * waits for): the settle cap ends that wait.
 * - **Full window**: network quiet and no DOM mutation at all for `quietMs`, no body being read.
 *   Holds whatever the page has scheduled.
 * - **Early window**: the page is *idle* (no body held, no download pending, network quiet for
 *   `earlyMs` (less after events the page has acted on or only gets as an event), no DOM change
 *   other than `style`/`class` for `earlyMs`, or once its main thread has been idle since that
 *   change, no change to its links or title for `idleEarlyMs` (its content for `idleEarlyMs`
 *   when a screenshot, axe or vitals read it: `linksOnly` false)) and has nothing scheduled soon.
 *   An idle main thread with nothing scheduled and a quiet network has nothing left to run that
 *   could change the links: content it renders after them (code samples, charts) is not waited
 *   on once it is done.
 * - **Fast-forward**: the page is idle, has painted, and all it has scheduled are timeouts due
 *   within `SOON_TIMER_MS`: the timeouts are run now instead of waited for (once they ran, the
 *   page is what it would be when they come due: nothing else can happen before them). Each timer
 *   that changes the page makes it busy again, and the early window starts over.
 */
export function judgeSettle(inp: SettleInputs, win: SettleWindows): SettleVerdict {
  const { state } = inp;
  if (state.awaitingMessages > 0 || !state.loaded) return { kind: 'wait', nextCheckMs: BUSY_CHECK_MS };
  if (inp.unheardCall) return { kind: 'wait', nextCheckMs: MIN_CHECK_MS };
  // Nothing rendered yet, and a timer pending (an app that starts after a delay or a poll): wait for it.
  if (state.blank && state.timerDueInMs !== Infinity) return { kind: 'wait', nextCheckMs: Math.max(MIN_CHECK_MS, Math.min(BUSY_CHECK_MS, state.timerDueInMs)) };
  if (!inp.reading && !inp.downloadPending && state.quietForMs >= win.quietMs && inp.netQuietMs >= win.quietMs) return { kind: 'settled', early: false };
  // How much longer the network and the content must stay quiet for the early window.
  // Idle since the last change: the idle window, on the links' quiet when only they are read.
  const contentWindow = state.idleSinceChange ? win.idleEarlyMs : win.earlyMs;
  const quietFor = state.idleSinceChange && win.linksOnly ? state.linkQuietForMs : state.contentQuietForMs;
  const due = Math.max(inp.earlyNetWaitMs, contentWindow - quietFor);
  const idle = inp.heldBodies === 0 && !inp.downloadPending;
  if (idle && due <= 0) {
    if (state.scheduled === 0) return { kind: 'settled', early: true };
    if (inp.mayFastForward && state.painted && state.scheduled === state.timers) return { kind: 'fast-forward' };
  }
  // Only time stands between the page and its early window: come back when it has passed.
  if (idle && (state.scheduled === 0 || (inp.mayFastForward && state.painted && state.scheduled === state.timers))) return { kind: 'wait', nextCheckMs: Math.max(MIN_CHECK_MS, due) };
  return { kind: 'wait', nextCheckMs: BUSY_CHECK_MS };
}
