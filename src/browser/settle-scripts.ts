/**
 * Code that runs inside the page for the settle rule: the reading of the page's clock
 * (`clock-scripts.ts`) with the scheduled work that `installScheduleWatch` counts, and the wait
 * inside the page for it to go quiet. Each function is serialized by Playwright and must not close
 * over anything outside its own body.
 * @module
 */
import { emptyRootOf } from './spa-scripts.js';

/** What {@link settleState} reads from a page. Times in ms. */
export interface SettleState {
  /** The load event has fired. */
  loaded: boolean;
  /**
   * When the main document's load event started (ms since the epoch, `performance.timeOrigin`
   * based, comparable with `Date.now()`), `null` before it (or when unknown).
   */
  loadAt: number | null;
  /**
   * The page has painted (a `first-paint` or `first-contentful-paint` entry). Timeouts are not
   * fast-forwarded before: in a browser they would come due after the first frame, and what the
   * page does then (a long task, a layout shift) would be measured after it.
   */
  painted: boolean;
  /** Time since the last DOM mutation (0 when the clock is missing). */
  quietForMs: number;
  /** Time since the last DOM mutation other than a `style`/`class` change (see `ClockState.content`; 0 when the clock is missing). */
  contentQuietForMs: number;
  /** Time since the last change to the links or the title (see `ClockState.linkChange`; 0 when the clock is missing). */
  linkQuietForMs: number;
  /**
   * `true` when the page's main thread has had an idle period (`requestIdleCallback`: no task
   * waiting to run) since that mutation: nothing the page already received (a response, a
   * loaded script, an event) is still waiting to be handled.
   */
  idleSinceChange: boolean;
  /** Timers, intervals, animation frames, idle callbacks, channel messages and posts a worker has not answered, scheduled soon (see `installScheduleWatch`, `installAsyncWatch`; 1 when unknown). */
  scheduled: number;
  /** Of {@link scheduled}: one-shot timers only (`setTimeout` due within `SOON_TIMER_MS`). */
  timers: number;
  /** Clicks on `download` links so far that start a download (see `ClockState.downloadClicks`). */
  downloadClicks: number;
  /** Time since the last such click (`Infinity` for none). */
  sinceDownloadClickMs: number;
  /**
   * fetch() and XMLHttpRequest calls to `http:`/`https:` URLs the document has started so far
   * (0 when unknown). The crawler compares it with the requests it has heard of: a call whose
   * network event has not reached it yet is still a request the page waits on.
   */
  callsStarted: number;
  /** Time since the last of those calls started (`Infinity` for none). */
  sinceCallMs: number;
  /** fetch() body reads in progress, body streams being read included (1 when unknown). */
  bodyReads: number;
  /**
   * fetch() and XMLHttpRequest calls of the document under way (1 when unknown): a fetch() until
   * its promise settles, an XMLHttpRequest until its `loadend` (see `installScheduleWatch`).
   */
  requests: number;
  /**
   * What the page awaits that holds both settle windows until it ends (0 when unknown):
   * WebSockets and EventSources awaiting their first message, WebSockets that have owed the page
   * an answer to a message it sent for less than 2 s (`installStreamWatch`), operations
   * the browser runs for the page off its main thread (IndexedDB, WebAssembly compilation …,
   * `installAsyncWatch`), and workers that have owed an answer for less than 2 s (the same).
   */
  awaitingMessages: number;
  /**
   * Time until the page's earliest pending timer comes due: a `setTimeout` due soon or later
   * (within `LATER_TIMER_MS` of being set), or the next run of a `setInterval` of at most
   * `SOON_TIMER_MS` (see `installScheduleWatch`); `Infinity` for none or when unknown.
   */
  timerDueInMs: number;
  /**
   * The page has rendered nothing yet: its app root (`#root`, `#app`, `#__next` …), or its body
   * when it has none, holds no text, no link and no media, as the `empty-render` rule reads it,
   * or only a loading placeholder ("Loading…" beside a spinner; `emptyRootOf` with
   * `placeholders`). Only looked at while a timer is pending ({@link timerDueInMs} finite);
   * `false` otherwise. Such a page waits for its timers: an app that starts after a delay (a
   * timeout, or an interval polling for what it needs) has not rendered yet, it has not rendered
   * nothing.
   */
  blank: boolean;
}

/**
 * Init script, run in every frame after `installMutationClock`, `installScheduleWatch` and
 * `installStreamWatch`: puts on `window.__spacrawl` the reading of the settle state (`read`, see
 * {@link settleState}) and a wait inside the page (`awaitQuiet`, see {@link awaitQuiet}), which
 * checks the page on its own timers (not the page's: they are not counted as its work) instead
 * of being asked again and again across the process boundary. Installed as
 * {@link SETTLE_PROBE_SCRIPT}, which hands it `emptyRootOf`.
 * @param emptyRoot - `emptyRootOf` (`spa-scripts.ts`); without it no page counts as blank
 */
export function installSettleProbe(emptyRoot?: () => string | null): void {
  type Probe = {
    last: number;
    content?: number;
    linkChange?: number;
    pending?: Set<{ kind: string; due?: number; ticking?: boolean }>;
    later?: Set<{ due: number }>;
    downloadClicks?: Array<{ event: Event; at: number }>;
    messages?: { posted: number; handled: number };
    bodyReads?: number;
    callsStarted?: number;
    lastCallAt?: number;
    fastForward?: () => number;
    setTimer?: (f: () => void, ms: number) => unknown;
    onIdle?: (f: (d: IdleDeadline) => void, timeout: number) => unknown;
    idleAt?: number;
    read?: () => SettleState;
    requests?: number;
    awaitQuiet?: (req: QuietRequest) => Promise<QuietReport>;
    offThread?: number;
    workersOwing?: (now: number) => number;
  };
  const w = window as unknown as { __spacrawl?: Probe; __spacrawlStreams?: { awaiting: number; asking?: (now: number) => number } };
  const s = w.__spacrawl;
  if (!s || s.read) return;
  const setTimer = s.setTimer ?? ((f: () => void, ms: number) => window.setTimeout(f, ms));
  // Both are read at every look at the state and never change back once known (a document loads
  // once; a paint entry stays): each look no longer builds the timeline's entry lists again.
  let loadAt: number | null = null;
  const loadStartedAt = (): number | null => {
    if (loadAt !== null) return loadAt;
    try {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      if (nav && nav.loadEventStart > 0) loadAt = performance.timeOrigin + nav.loadEventStart;
    } catch {
      // no timeline: not known
    }
    return loadAt;
  };
  let painted = false;
  const hasPainted = (): boolean => {
    if (painted) return true;
    try {
      painted = performance.getEntriesByType('paint').length > 0;
      return painted;
    } catch {
      return true;
    }
  };
  // Whether the page shows nothing (see `SettleState.blank`): `emptyRoot` (`emptyRootOf`, handed
  // in by the script that installs the probe) read again only after the content changed.
  let blankFor = Number.NaN;
  let blankWas = false;
  const blankNow = (): boolean => {
    if (!emptyRoot) return false;
    const changed = s.content ?? s.last;
    if (changed !== blankFor) {
      blankFor = changed;
      try {
        blankWas = emptyRoot() !== null;
      } catch {
        blankWas = false;
      }
    }
    return blankWas;
  };
  const read = (): SettleState => {
    const now = performance.now();
    let timers = 0;
    let nextDue = Infinity;
    // Repeating work that changed no link or title for a while (see `installScheduleWatch`).
    let ticking = 0;
    if (s.pending) {
      for (const k of s.pending) {
        if (k.ticking) ticking++;
        if (k.kind === 'timeout') timers++;
        else if (k.kind !== 'interval') continue;
        if (k.due !== undefined && k.due < nextDue) nextDue = k.due;
      }
    }
    if (s.later) for (const k of s.later) if (k.due < nextDue) nextDue = k.due;
    const timerDueInMs = nextDue === Infinity ? Infinity : Math.max(0, nextDue - now);
    // Download clicks a handler did not cancel (read now: the click's dispatch is over).
    let downloadClicks = 0;
    let downloadAt = -Infinity;
    for (const c of s.downloadClicks ?? []) {
      if (c.event.defaultPrevented) continue;
      downloadClicks++;
      downloadAt = c.at;
    }
    return {
      loaded: document.readyState === 'complete',
      loadAt: loadStartedAt(),
      painted: hasPainted(),
      quietForMs: now - s.last,
      contentQuietForMs: now - (s.content ?? s.last),
      linkQuietForMs: now - (s.linkChange ?? s.last),
      idleSinceChange: (s.idleAt ?? -1) > (s.content ?? s.last),
      // Unknown (no watch installed) counts as scheduled work: no early settle.
      scheduled: s.pending ? s.pending.size - ticking + (s.messages ? Math.max(0, s.messages.posted - s.messages.handled) : 0) : 1,
      timers,
      downloadClicks,
      sinceDownloadClickMs: now - downloadAt,
      callsStarted: s.callsStarted ?? 0,
      sinceCallMs: s.lastCallAt ? now - s.lastCallAt : Infinity,
      bodyReads: s.bodyReads ?? 1,
      requests: s.requests ?? 1,
      awaitingMessages: (w.__spacrawlStreams?.awaiting ?? 0) + (w.__spacrawlStreams?.asking?.(now) ?? 0) + (s.offThread ?? 0) + (s.workersOwing?.(now) ?? 0),
      timerDueInMs,
      blank: timerDueInMs !== Infinity && blankNow(),
    };
  };
  s.read = read;
  s.awaitQuiet = (req) => {
    const t0 = performance.now();
    let fastForwarded = 0;
    return new Promise<QuietReport>((resolve) => {
      let idleAsked = false;
      const check = (): void => {
        const st = read();
        const waited = performance.now() - t0;
        // The network wait owed to the page's own calls is over once its script has had every answer.
        const answered = st.requests === 0 && st.bodyReads === 0;
        const minWaitMs = answered ? req.minWaitMs : Math.max(req.minWaitMs, req.callsWaitMs);
        const left = req.maxMs - waited;
        const calm = st.loaded && st.awaitingMessages === 0 && (st.scheduled === 0 || st.scheduled === st.timers);
        const quietFor = st.idleSinceChange ? req.idleEarlyMs : req.earlyMs;
        // What must have been quiet that long: the content, or once the page has been idle since
        // its last change and only links and title are read, the links and title.
        const quietNow = (idle: boolean): number => (idle && req.linksOnly ? st.linkQuietForMs : st.contentQuietForMs);
        const quiet = calm && quietNow(st.idleSinceChange) >= quietFor && waited >= minWaitMs;
        // Idle but for timeouts, and no fetch() or XMLHttpRequest of the page under way (a timeout
        // may be racing one): run them now, then look again once they have run.
        if (quiet && st.timers > 0 && st.painted && fastForwarded < req.fastForwards && (s.requests ?? 1) === 0 && s.fastForward) {
          s.fastForward();
          fastForwarded++;
          setTimer(check, 0);
          return;
        }
        // The full window met (the DOM quiet for `quietMs`): the caller decides with the network.
        const fullWindow = st.quietForMs >= req.quietMs && waited >= minWaitMs;
        // Quiet but for timeouts that may not run early yet, for a reason the page will see pass
        // (no first paint yet, a fetch() or XMLHttpRequest under way): wait for it here rather
        // than answer a state the caller can only wait on (each new question waits its turn on a
        // busy main thread). Without fast-forwards left, the caller decides.
        if (quiet && st.scheduled > 0 && fastForwarded < req.fastForwards && !fullWindow && left > 0) {
          setTimer(check, Math.min(left, 20));
          return;
        }
        // A page that has rendered nothing waits here for its timers (the next may start the
        // app); the caller waits on after this wait (see `judgeSettle`), up to its cap.
        if ((quiet || fullWindow) && st.blank && left > 0) {
          setTimer(check, Math.min(left, Math.max(5, st.timerDueInMs + 5)));
          return;
        }
        if (quiet || fullWindow || left <= 0) return resolve({ ...st, fastForwarded, quiet: quiet && st.scheduled === 0 });
        // Quiet long enough for an idle page: see whether it is idle (once per change), but only until the
        // plain early window is met (a renderer shared with busy tabs may have no idle period for 1 s).
        if (calm && !st.idleSinceChange && !idleAsked && quietNow(true) >= req.idleEarlyMs && s.onIdle) {
          idleAsked = true;
          const asked = performance.now();
          const untilEarly = Math.max(req.earlyMs - st.contentQuietForMs, minWaitMs - waited);
          s.onIdle((d) => {
            if (!d.didTimeout) s.idleAt = Math.max(asked, performance.now() - 1);
            idleAsked = false;
            check();
          }, Math.max(1, Math.min(left, untilEarly)));
          return;
        }
        if (idleAsked) return;
        // While a call is under way, look again soon: its answer may end the wait owed to it.
        const due = calm ? Math.max((st.idleSinceChange || !s.onIdle ? quietFor : req.idleEarlyMs) - quietNow(st.idleSinceChange || !!s.onIdle), answered ? minWaitMs - waited : Math.min(20, minWaitMs - waited)) : 20;
        setTimer(check, Math.min(left, Math.max(5, due)));
      };
      check();
    });
  };
}

/**
 * The init script of the settle probe: {@link installSettleProbe} handed `emptyRootOf` reading
 * loading placeholders as not rendered (one in-page function cannot call another of another
 * module: each is sent as its own text).
 */
export const SETTLE_PROBE_SCRIPT = `(${installSettleProbe.toString()})(() => (${emptyRootOf.toString()})(true))`;

/**
 * The page's settle state (see {@link SettleState}), from the clock and counters
 * {@link installMutationClock}, `installScheduleWatch` and `installStreamWatch` keep. Without
 * them (the probe is not installed) nothing is known: not loaded, work scheduled.
 */
export function settleState(): SettleState {
  const read = (window as unknown as { __spacrawl?: { read?: () => SettleState } }).__spacrawl?.read;
  if (read) return read();
  return { loaded: false, loadAt: null, painted: false, quietForMs: 0, contentQuietForMs: 0, linkQuietForMs: 0, idleSinceChange: false, scheduled: 1, timers: 0, downloadClicks: 0, sinceDownloadClickMs: Infinity, callsStarted: 0, sinceCallMs: Infinity, bodyReads: 1, requests: 1, awaitingMessages: 0, timerDueInMs: Infinity, blank: false };
}

/** What {@link awaitQuiet} is asked. Times in ms. */
export interface QuietRequest {
  /** The early window (see `judgeSettle`): how long the content must have been quiet. */
  earlyMs: number;
  /** The same once the page has been idle since its last change (see {@link SettleState.idleSinceChange}). */
  idleEarlyMs: number;
  /**
   * Only the links and the title are read (no screenshot, axe or vitals): once the page has been
   * idle since its last change, `idleEarlyMs` counts the quiet of its links and title, not of
   * its content (see `judgeSettle`).
   */
  linksOnly: boolean;
  /**
   * Wait at least this long (until the network has been quiet for the early window too), not
   * counting the events of the document's own calls (see `PageActivity.earlyNetWaitMs`).
   */
  minWaitMs: number;
  /**
   * The same counting those events: waited for instead of `minWaitMs` while one of the page's
   * calls is under way or a response body is being read (its script has not had every answer).
   */
  callsWaitMs: number;
  /** The full window (see `judgeSettle`): once the DOM has been quiet this long, the state is returned. */
  quietMs: number;
  /** Longest wait inside the page; the state is returned then, whatever it is. */
  maxMs: number;
  /** How many times the page's pending timeouts may be fast-forwarded (see `fastForwardTimers`); 0 for none. */
  fastForwards: number;
}

/** What {@link awaitQuiet} answers: the settle state at the end of the wait, and how often timeouts were fast-forwarded. */
export interface QuietReport extends SettleState {
  /** Times (rounds) the pending timeouts were fast-forwarded during the wait. */
  fastForwarded: number;
  /**
   * `true` when the wait ended in the early window with nothing scheduled: nothing the page has
   * planned or started can still change it (the network is still the caller's to judge), so it
   * may be read in the same task. Also after timeouts were run early: the window is looked at again
   * in a later task once they ran, and what they started that comes in a later task still is
   * scheduled work by then (a `history.back()`'s `popstate`, a fragment navigation's
   * `hashchange`: see `clock-scripts.ts`; a timer, a frame, a message, a call). `false` when it
   * ended otherwise: `maxMs` ran out; the full window, which holds whatever is scheduled (a
   * timeout due now runs only after this task: a link it adds would be missed).
   */
  quiet: boolean;
}

/**
 * Wait inside the page until it is quiet: calm (loaded, no push connection awaiting its first
 * message, nothing scheduled but timeouts), its content unchanged for `earlyMs`, and `minWaitMs`
 * passed (`callsWaitMs` while one of its calls is under way or a body is being read). While it
 * is quiet but for timeouts, and none of its fetch() or XMLHttpRequest calls is under way, the
 * timeouts are fast-forwarded (at most `fastForwards` times) and the wait goes on.
 * Returns the state when quiet, or after `maxMs` whatever it is. The network is the caller's to
 * judge. Without the probe: the unknown state at once.
 */
export function awaitQuiet(req: QuietRequest): Promise<QuietReport> | QuietReport {
  const s = (window as unknown as { __spacrawl?: { awaitQuiet?: (r: QuietRequest) => Promise<QuietReport> } }).__spacrawl;
  if (s?.awaitQuiet) return s.awaitQuiet(req);
  return { loaded: false, loadAt: null, painted: false, quietForMs: 0, contentQuietForMs: 0, linkQuietForMs: 0, idleSinceChange: false, scheduled: 1, timers: 0, downloadClicks: 0, sinceDownloadClickMs: Infinity, callsStarted: 0, sinceCallMs: Infinity, bodyReads: 1, requests: 1, awaitingMessages: 0, timerDueInMs: Infinity, blank: false, fastForwarded: 0, quiet: false };
}

/**
 * Fast-forward the page's pending timeouts (see `installScheduleWatch`): each `setTimeout` due
 * within `SOON_TIMER_MS` runs now, in the order they were due, each in its own task, as if its
 * time had come; the page's ids keep working with `clearTimeout`. Returns how many there were.
 */
export function fastForwardTimers(): number {
  const s = (window as unknown as { __spacrawl?: { fastForward?: () => number } }).__spacrawl;
  return s?.fastForward ? s.fastForward() : 0;
}
