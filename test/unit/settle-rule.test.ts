/**
 * The settle rule as a pure function (see test/settle.test.ts for it on real pages).
 */
import { describe, expect, it } from 'vitest';
import type { SettleState } from '../../src/browser/settle-scripts.js';
import { BUSY_CHECK_MS, judgeSettle, MIN_CHECK_MS, type SettleInputs } from '../../src/browser/visit/settle-rule.js';

const WINDOWS = { quietMs: 500, earlyMs: 100, idleEarlyMs: 50, linksOnly: false };
const LINKS_ONLY = { ...WINDOWS, linksOnly: true };

/** A loaded page, quiet for `quiet` ms (all of it, its content and its links), nothing scheduled, not idle-checked. */
function state(quiet: number, over: Partial<SettleState> = {}): SettleState {
  return { loaded: true, loadAt: 0, painted: true, quietForMs: quiet, contentQuietForMs: quiet, linkQuietForMs: quiet, idleSinceChange: false, scheduled: 0, timers: 0, downloadClicks: 0, sinceDownloadClickMs: Infinity, callsStarted: 0, sinceCallMs: Infinity, bodyReads: 0, requests: 0, awaitingMessages: 0, timerDueInMs: Infinity, blank: false, ...over };
}

function inputs(st: SettleState, over: Partial<Omit<SettleInputs, 'state'>> = {}): SettleInputs {
  return { state: st, netQuietMs: 1000, earlyNetWaitMs: -900, heldBodies: 0, reading: false, downloadPending: false, unheardCall: false, mayFastForward: true, ...over };
}

describe('judgeSettle', () => {
  it('settles early after the early window with nothing scheduled, and after the idle window once the main thread was idle', () => {
    expect(judgeSettle(inputs(state(100)), WINDOWS)).toEqual({ kind: 'settled', early: true });
    expect(judgeSettle(inputs(state(60)), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: 40 });
    expect(judgeSettle(inputs(state(60, { idleSinceChange: true })), WINDOWS)).toEqual({ kind: 'settled', early: true });
    expect(judgeSettle(inputs(state(40, { idleSinceChange: true })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: MIN_CHECK_MS });
  });

  it('with only links and title read, an idle page waits for the quiet of its links, not of its content', () => {
    // Content rendered 5 ms ago (a code sample after the links), links quiet 120 ms, idle since: settled.
    expect(judgeSettle(inputs(state(5, { linkQuietForMs: 120, idleSinceChange: true })), LINKS_ONLY)).toEqual({ kind: 'settled', early: true });
    // The same when the content is read too (a screenshot): the content's idle window.
    expect(judgeSettle(inputs(state(5, { linkQuietForMs: 120, idleSinceChange: true })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: 45 });
    // Links changed 20 ms ago: 30 ms more.
    expect(judgeSettle(inputs(state(5, { linkQuietForMs: 20, idleSinceChange: true })), LINKS_ONLY)).toEqual({ kind: 'wait', nextCheckMs: 30 });
    // Not idle since the last change: the content's early window, whatever the links do.
    expect(judgeSettle(inputs(state(60, { linkQuietForMs: 900 })), LINKS_ONLY)).toEqual({ kind: 'wait', nextCheckMs: 40 });
    // Something scheduled: never early.
    expect(judgeSettle(inputs(state(5, { linkQuietForMs: 900, idleSinceChange: true, scheduled: 1 })), LINKS_ONLY)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
  });

  it('style and class changes do not hold the early window: the content clock does', () => {
    expect(judgeSettle(inputs(state(150, { quietForMs: 5 })), WINDOWS)).toEqual({ kind: 'settled', early: true });
    expect(judgeSettle(inputs(state(5, { quietForMs: 150 })), WINDOWS).kind).toBe('wait');
  });

  it('never settles before load or while a push connection awaits its first message, even after the full window', () => {
    expect(judgeSettle(inputs(state(9000, { loaded: false })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
    expect(judgeSettle(inputs(state(9000, { awaitingMessages: 1 })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
  });

  it('a page that has rendered nothing waits for a pending timeout, even past the full window; with none pending, or once it has rendered, the windows decide', () => {
    // A timeout due in 1.2 s (an app that starts after a delay): checked again in at most BUSY_CHECK_MS.
    expect(judgeSettle(inputs(state(9000, { blank: true, timerDueInMs: 1200 })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
    expect(judgeSettle(inputs(state(9000, { blank: true, timerDueInMs: 0 })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: MIN_CHECK_MS });
    expect(judgeSettle(inputs(state(9000, { blank: true, timerDueInMs: Infinity })), WINDOWS)).toEqual({ kind: 'settled', early: false });
    expect(judgeSettle(inputs(state(100, { blank: false, timerDueInMs: 1200 })), WINDOWS)).toEqual({ kind: 'settled', early: true });
  });

  it('fast-forwards when only timeouts are pending, and waits when other work is (or fast-forwards are used up)', () => {
    expect(judgeSettle(inputs(state(200, { scheduled: 2, timers: 2 })), WINDOWS)).toEqual({ kind: 'fast-forward' });
    expect(judgeSettle(inputs(state(200, { scheduled: 2, timers: 2 }), { mayFastForward: false }), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
    expect(judgeSettle(inputs(state(200, { scheduled: 3, timers: 2 })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
    // Not before the first paint: in a browser the timeouts would come due after it.
    expect(judgeSettle(inputs(state(200, { scheduled: 2, timers: 2, painted: false })), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: BUSY_CHECK_MS });
    // The full window holds whatever is scheduled.
    expect(judgeSettle(inputs(state(500, { scheduled: 3, timers: 0 })), WINDOWS)).toEqual({ kind: 'settled', early: false });
  });

  it('a held body, a pending download or a busy network keep the early window closed', () => {
    expect(judgeSettle(inputs(state(200), { heldBodies: 1 }), WINDOWS).kind).toBe('wait');
    expect(judgeSettle(inputs(state(200), { downloadPending: true }), WINDOWS).kind).toBe('wait');
    expect(judgeSettle(inputs(state(200), { netQuietMs: 30, earlyNetWaitMs: 70 }), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: 70 });
    // A body being read holds even the full window.
    expect(judgeSettle(inputs(state(900), { heldBodies: 1, reading: true }), WINDOWS).kind).toBe('wait');
    // So does a download clicked but not begun (its request is the browser's, not the page's).
    expect(judgeSettle(inputs(state(900), { downloadPending: true }), WINDOWS).kind).toBe('wait');
    expect(judgeSettle(inputs(state(900)), WINDOWS)).toEqual({ kind: 'settled', early: false });
    // And a call the page started whose request has not been heard of yet: look again soon.
    expect(judgeSettle(inputs(state(900), { unheardCall: true }), WINDOWS)).toEqual({ kind: 'wait', nextCheckMs: MIN_CHECK_MS });
  });
});
