/**
 * Telling a page that hangs its renderer from the pages it stalls. The tabs of a context render
 * in one renderer process (see `pool.ts`), and so run on one main thread: a page whose script
 * never returns (an endless loop) stalls every call into every tab of that renderer, not only
 * its own. Whichever visit's call goes unanswered first stops the script that holds the main
 * thread (CDP `Runtime.terminateExecution` acts on the renderer's V8 isolate, whatever page the
 * script belongs to), and only the page whose own task held the thread is recorded
 * `unresponsive`; the others carry on.
 *
 * Which page held it: each page keeps its longest task (the Long Tasks API, `longtask` entries
 * of the W3C Long Tasks spec; Chromium reports a task to the page whose script ran it, also when
 * the task was terminated, and to no other page). Measured: a page looping in a timer callback,
 * terminated through its sibling's session after 2.5 s, had one `longtask` entry of 2,773 ms; the
 * sibling, in the same renderer, had none.
 * @module
 */
import type { CDPSession } from 'playwright';
import { CallTimeoutError, withTimeout } from './timeout.js';

/**
 * A page whose longest task (ms) reached this, in a visit during which a script was stopped,
 * is the one that hung its renderer. A page's own script tasks, even on a starved machine, stay
 * under it (the Elements site's 2 MB bundle: ~350 ms of CPU); a hang is stopped only after a call
 * waited over 10 s (see `settle.ts`), which a looping page's task spans.
 */
export const HUNG_TASK_MS = 5_000;

/**
 * Least wait (ms) for a call into a page before the script holding its renderer is stopped
 * (see {@link answerOrStopHang}): a sibling's hang is stopped by whichever call of the renderer's
 * tabs waits this long first, so a shorter wait of another call would fail that visit instead.
 */
export const STOP_AFTER_MS = 10_000;

/** Longest wait (ms) for a page to say its longest task once the script holding its renderer was stopped. */
const ASK_AFTER_STOP_MS = 5_000;

/** How many times a browser's scripts were stopped (see {@link stopScripts}); shared by the tabs of a pool. */
export interface ScriptStops {
  count: number;
}

/** What of a visit tab (`tab.ts`) the watch uses: its CDP session and the pool's count of stopped scripts. */
export interface WatchedTab {
  cdp: CDPSession;
  stops: ScriptStops;
  /** `stops.count` right after this tab's last stop, or `undefined` before any. */
  stoppedAt?: number;
}

/**
 * Init script (top frame): records on `window.__spacrawl.longestTask()` the longest task (ms) of
 * the document so far (a `longtask` observer; a task that is still running has no entry yet).
 * Needs `installMutationClock` first (it creates `window.__spacrawl`).
 */
export function installLongTaskWatch(): void {
  const state = (window as unknown as { __spacrawl?: Record<string, unknown> }).__spacrawl;
  if (!state || state.longestTask || window !== window.top || typeof PerformanceObserver !== 'function') return;
  let longest = 0;
  const take = (entries: PerformanceEntryList): void => {
    for (const e of entries) if (e.duration > longest) longest = e.duration;
  };
  try {
    const observer = new PerformanceObserver((list) => take(list.getEntries()));
    observer.observe({ type: 'longtask' });
    // The entry of a task that just ended may still wait for the observer's callback.
    state.longestTask = () => {
      take(observer.takeRecords());
      return Math.round(longest);
    };
  } catch {
    // No Long Tasks API: a stalled call is then always the page's own.
  }
}

/** Runs in the page: its longest task so far (ms), or `null` without the watch. */
export function longestTaskOf(): number | null {
  const f = (window as unknown as { __spacrawl?: { longestTask?: () => number } }).__spacrawl?.longestTask;
  return typeof f === 'function' ? f() : null;
}

/**
 * Stop the script running in `tab`'s renderer now (CDP `Runtime.terminateExecution`, which
 * Chromium carries out even while that script holds the main thread: an endless loop,
 * `for (;;) alert()`), and count it in `tab.stops`. The script may be another tab's: the tabs of
 * a context share a renderer process. Never throws.
 */
export function stopScripts(tab: WatchedTab): void {
  tab.stoppedAt = ++tab.stops.count;
  tab.cdp.send('Runtime.terminateExecution').catch(() => {});
}

/**
 * `true` when `longestTask` (ms, from {@link longestTaskOf}) says the page itself hung its
 * renderer: a script was stopped since the visit began (`stopsAtStart` is `tab.stops.count` then)
 * and one of the page's tasks lasted {@link HUNG_TASK_MS} or more.
 */
export function hungItself(tab: WatchedTab, stopsAtStart: number, longestTask: number | null): boolean {
  return tab.stops.count !== stopsAtStart && longestTask !== null && longestTask >= HUNG_TASK_MS;
}

/**
 * Stop the script holding `tab`'s renderer ({@link stopScripts}) only if the page does not answer
 * a trivial call within `ms`, and not when this tab made the last stop (its hang was stopped
 * already): a stop acts on whatever script runs in the renderer at that moment, which, once the
 * renderer is free again, may be a sibling's (its call fails, or the page's own script ends).
 * Never throws.
 */
export function stopIfStalled(tab: WatchedTab, ms = 5_000): void {
  if (tab.stoppedAt === tab.stops.count) return;
  withTimeout(tab.cdp.send('Runtime.evaluate', { expression: '0' }), ms, 'a trivial call').catch((err: unknown) => {
    if (err instanceof CallTimeoutError) stopScripts(tab);
  });
}

/**
 * Wait up to `ms` (at least {@link STOP_AFTER_MS}) for `ask()`, a call into `tab`'s page. When it
 * does not answer: stop the script that holds the renderer ({@link stopScripts}) and ask the page
 * for its longest task. The page that held the thread itself (a task of {@link HUNG_TASK_MS} or
 * more), or that still does not answer, fails the call; a page that was only stalled by another
 * tab's script is waited for again, as long once more. A call during whose wait another tab
 * already stopped the renderer's script is first waited for once more (a second stop at once
 * would end whatever the renderer runs next). A call that fails while a stop (this tab's or a
 * sibling's) was made is asked once more: the stop may have ended the call's own script.
 * Every call of a visit that can fail it goes through here (see `VisitContext.call`): a call with
 * a shorter timeout of its own would fail a visit that a sibling's hang only stalled.
 * @throws CallTimeoutError as `withTimeout(ask(), max(ms, STOP_AFTER_MS), what)` when the page hung
 * (or never answers); what `ask()` throws
 */
export async function answerOrStopHang<T>(tab: WatchedTab, ask: () => Promise<T>, ms: number, what: string): Promise<T> {
  const wait = Math.max(ms, STOP_AFTER_MS);
  const stops = tab.stops.count;
  const call = ask();
  // The call answers, or, when it failed while a stop was made (the stop may have ended it), once more.
  const answered = (p: Promise<T>, since: number): Promise<T> =>
    withTimeout(p, wait, what).catch((err: unknown) => {
      if (err instanceof CallTimeoutError || tab.stops.count === since) throw err;
      return withTimeout(ask(), wait, what);
    });
  try {
    return await answered(call, stops);
  } catch (err) {
    if (!(err instanceof CallTimeoutError)) throw err;
    // Another tab of the renderer stopped its script while this call waited: the call answers
    // now, unless the renderer hangs again. A second stop at once would end whatever runs next
    // in the renderer: a sibling's call as likely as the hang.
    if (tab.stops.count !== stops) {
      const again = tab.stops.count;
      const late = await answered(call, again).then(
        (value) => ({ value }),
        (e: unknown) => {
          if (!(e instanceof CallTimeoutError)) throw e;
          return null;
        },
      );
      if (late) return late.value;
    }
    stopScripts(tab);
    const asked = tab.cdp.send('Runtime.evaluate', { expression: `(${longestTaskOf.toString()})()`, returnByValue: true }) as Promise<{ result: { value?: unknown } }>;
    const longest = await withTimeout(asked, ASK_AFTER_STOP_MS, 'asking for the longest task').then(
      (r) => (typeof r.result.value === 'number' ? r.result.value : null),
      () => undefined,
    );
    // No answer even now, or the page's own task: it is the one that hung.
    if (longest === undefined || (longest !== null && longest >= HUNG_TASK_MS)) throw err;
    // A sibling's script held the renderer: the call answers now, or, if the stop ended it, once more.
    return answered(call, stops);
  }
}
