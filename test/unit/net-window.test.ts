// The early settle window's network part (PageActivity.earlyNetWaitMs): which network events
// hold it, and for how long. Pure bookkeeping over the browser's request timings.
import { describe, expect, it } from 'vitest';
import { HANDLER_NET_MS, NET_EVENTS_KEPT_MS, PageActivity, type NetRequest } from '../../src/browser/visit/activity.js';

const EARLY = 100;
const T = 1_000_000; // a moment, ms since epoch

/** A request of `type` that started at `start` and finished `endAfter` ms later (-1: not finished). */
function request(type: string, start: number, endAfter: number): NetRequest {
  const timing = { startTime: start, domainLookupStart: -1, domainLookupEnd: -1, connectStart: -1, secureConnectionStart: -1, connectEnd: -1, requestStart: -1, responseStart: -1, responseEnd: endAfter };
  return { resourceType: () => type, timing: () => timing };
}

describe('PageActivity.earlyNetWaitMs', () => {
  it('a script that finished before the load event holds nothing once the page has loaded', () => {
    const act = new PageActivity();
    act.noteNet(request('script', T - 50, 40), T);
    // Load started 5 ms after the script finished (T - 10): the page ran it before loading.
    expect(act.earlyNetWaitMs(T + 10, T - 5, EARLY)).toBeLessThanOrEqual(0);
    // Before the page says it has loaded, the whole window holds.
    expect(act.earlyNetWaitMs(T + 10, null, EARLY)).toBe(90);
  });

  it('a script that finished after the load event started holds the whole window', () => {
    const act = new PageActivity();
    act.noteNet(request('script', T - 50, 40), T);
    expect(act.earlyNetWaitMs(T + 10, T - 20, EARLY)).toBe(90);
  });

  it('fetch() and unfinished load-blocking requests hold the whole window, whatever the load time', () => {
    for (const r of [request('fetch', T - 50, 40), request('xhr', T - 50, 40), request('script', T - 50, -1), request('document', T - 50, -1)]) {
      const act = new PageActivity();
      act.noteNet(r, T);
      expect(act.earlyNetWaitMs(T + 30, T + 1_000, EARLY)).toBe(70);
    }
  });

  it('an image, font or other response after the load event holds the handler window only', () => {
    for (const type of ['image', 'font', 'stylesheet', 'other']) {
      const act = new PageActivity();
      act.noteNet(request(type, T - 5, 4), T);
      expect(act.earlyNetWaitMs(T + 10, T - 100, EARLY)).toBe(HANDLER_NET_MS - 10);
      expect(act.earlyNetWaitMs(T + HANDLER_NET_MS, T - 100, EARLY)).toBe(0);
    }
  });

  it('the latest event that holds decides; events kept for NET_EVENTS_KEPT_MS only', () => {
    const act = new PageActivity();
    act.noteNet(request('fetch', T - 200, 100), T - 100); // holds until T
    act.noteNet(request('image', T - 10, 5), T - 5); // finished after load started (T - 8): holds until T + 20
    act.noteNet(request('script', T - 60, 50), T); // finished before load: holds nothing
    expect(act.earlyNetWaitMs(T + 5, T - 8, EARLY)).toBe(15);
    expect(act.earlyNetWaitMs(T + 30, T - 8, EARLY)).toBe(-10);
    // Nothing in the last second: the window is long met.
    expect(act.earlyNetWaitMs(T + NET_EVENTS_KEPT_MS + 10, T - 8, EARLY)).toBe(EARLY - NET_EVENTS_KEPT_MS);
  });

  it("the page's own calls hold nothing once its script has had every answer, other events still hold", () => {
    const act = new PageActivity();
    act.noteNet(request('fetch', T - 50, 40), T, true);
    act.noteNet(request('xhr', T - 40, 30), T, true);
    expect(act.earlyNetWaitMs(T + 10, T - 100, EARLY, true)).toBe(EARLY - NET_EVENTS_KEPT_MS);
    // Not handled yet: the whole window holds.
    expect(act.earlyNetWaitMs(T + 10, T - 100, EARLY, false)).toBe(90);
    // A fetch() of another frame, or a script, is not one of the document's calls.
    act.noteNet(request('fetch', T - 20, 10), T + 5, false);
    expect(act.earlyNetWaitMs(T + 10, T - 100, EARLY, true)).toBe(95);
  });
});

describe('PageActivity.callsHandled', () => {
  const page = (requests: number, bodyReads: number, callsStarted: number) => ({ requests, bodyReads, callsStarted });

  it('only when no call is under way, no body is being read, and every call heard of was started by then', () => {
    const act = new PageActivity();
    act.callsSeen = 2;
    expect(act.callsHandled(page(0, 0, 2))).toBe(true);
    expect(act.callsHandled(page(1, 0, 2))).toBe(false);
    expect(act.callsHandled(page(0, 1, 2))).toBe(false);
    // A call the crawler heard of after the page answered (it counted 1): its events keep their window.
    expect(act.callsHandled(page(0, 0, 1))).toBe(false);
    // A call the page started that the crawler has not heard of yet.
    expect(act.callsHandled(page(0, 0, 3))).toBe(false);
  });
});
