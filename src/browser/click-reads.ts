/**
 * Click discovery's calls into the page, folded: one call makes the click (with what must be
 * known from before it), one reads what it did once the page settled (its result as JSON text:
 * see `json-result.ts`). Each call into a page waits for the renderer's main thread, which on a
 * busy machine is most of its cost (75-115 ms median at concurrency 4 on 2 cores); a click used
 * to make seven calls (scan, history length, mutation clock, click, navigations, DOM, scan), then
 * two plus the settle's own and a fixed 50 ms wait (`CLICK_REACTION_MS`). A click that starts
 * nothing that can still change the page (a disclosure whose content is there already, a
 * checkbox, a theme switch: 10 of the 12 learning clicks of a TypeDoc crawl) now takes one call,
 * which waits in the page until its main thread is idle and reads there (see {@link clickWithContext}).
 * @module
 */
import type { Page } from 'playwright';
import type { ClickCandidate } from './click-scripts.js';
import { historyLength, lastMutation, takeNavigations } from './click-hooks.js';
import type { ExtractResult } from './page-scripts.js';
import { asJsonExpression } from './json-result.js';
import { evaluateLibraryJson, libraryExpression, type LibraryRef } from './page-library.js';
import { withTimeout } from './timeout.js';

/** What {@link clickWithContext} returns. */
export interface ClickMade {
  /** `false` when the clickable was gone or the call failed (nothing was clicked). */
  clicked: boolean;
  /** `history.length` right before the click (0 when unknown). */
  historyBefore: number;
  /** The page's mutation clock right before the click (see `lastMutation`; 0 when unknown). */
  changedBefore: number;
  /**
   * The read after the click (see {@link readAfterClick}), made in the same call when the click
   * started nothing that can still change the page (see {@link clickWithContext}); `null` when it
   * did, or may have: the caller waits for the page to settle and reads then.
   */
  after: AfterClick | null;
}

/** What {@link readAfterClick} returns; `null` fields when the read failed. */
export interface AfterClick {
  /** Client-side navigations the page made or tried since the last read (see `takeNavigations`). */
  navigations: string[];
  /** The DOM as `extractPage` reads it. */
  page: ExtractResult | null;
  /** The page's mutation clock now (0 when unknown). */
  changed: number;
  /** The clickables now (see `scanClickables`); the indexes are valid for the next click. */
  clickables: ClickCandidate[];
}

/**
 * The longest wait (ms) in the page after a click for its main thread to fall idle (see
 * {@link clickWithContext}); a page still busy then gets the settle wait.
 */
export const CLICK_IDLE_WAIT_MS = 200;

/** The in-page read of {@link AfterClick}, as an expression (the value is a plain object) naming the page library's functions by `fn`. */
function afterClickExpression(exclude: string, fn: LibraryRef): string {
  return `(() => {
    const navigations = (${takeNavigations.toString()})();
    let page = null;
    try { page = ${fn('extractPage')}(); } catch {}
    let changed = 0;
    try { changed = (${lastMutation.toString()})(); } catch {}
    let clickables = [];
    try { clickables = ${fn('scanClickables')}(${JSON.stringify(exclude)}); } catch {}
    return { navigations, page, changed, clickables };
  })()`;
}

/**
 * Click the clickable at `index` of the last scan, reading the history length and the mutation
 * clock first, in one call. The call then waits in the page for its main thread to fall idle
 * (`requestIdleCallback`: the click's handlers, the tasks and microtasks they queued, the events
 * the click caused, such as a `<details>` toggle, have all run; at most {@link CLICK_IDLE_WAIT_MS}).
 * When by then the click started nothing that can still change what the page shows, the read
 * after it is made in the same call (`after`), so the caller neither waits for the page to settle
 * nor calls again. That takes, from the settle probe (`settle-scripts.ts`) and the navigation
 * recorder (`recordNavigations`): no navigation started (`navigate` events; a browser without the
 * Navigation API never gets here), no `window.open`, no download, no fetch() or XMLHttpRequest
 * started or under way, no body read, nothing awaited (a socket's first message, work off the
 * main thread) and nothing scheduled (timers due soon, animation frames, idle callbacks, channel
 * messages), and the links and title unchanged since the click. What such a click changed
 * (a class, an attribute, text) has all happened. Anything else, or a page without the probe:
 * `after` is `null`. Never throws: a failed call is "not clicked".
 * @param exclude - the accessible-name pattern never clicked (see `scanClickables`), for the read
 * @param timeoutMs - the call's timeout (ms)
 */
export async function clickWithContext(page: Page, index: number, exclude: string, timeoutMs = 5_000): Promise<ClickMade> {
  const expression = libraryExpression((fn) => `(async () => {
    const orZero = (f) => { try { return f(); } catch { return 0; } };
    const historyBefore = orZero(${historyLength.toString()});
    const changedBefore = orZero(${lastMutation.toString()});
    const w = window;
    const s = w.__spacrawl;
    const probe = !!s && typeof s.read === 'function' && typeof s.onIdle === 'function' && typeof w.__spacrawlNavigates === 'number';
    const read = () => { try { return s.read(); } catch { return null; } };
    const counts = () => [w.__spacrawlNavigates, s.opened ? s.opened.length : -1];
    const before = probe ? read() : null;
    const countsBefore = probe ? counts() : null;
    const at = performance.now();
    const clicked = ${fn('clickCandidate')}(${JSON.stringify(index)});
    let after = null;
    if (clicked && before) {
      const idle = await new Promise((resolve) => { try { s.onIdle((d) => resolve(!d.didTimeout), ${CLICK_IDLE_WAIT_MS}); } catch { resolve(false); } });
      const since = performance.now() - at;
      const now = idle ? read() : null;
      const c = counts();
      const inert = !!now && c[0] === countsBefore[0] && c[1] === countsBefore[1] && now.scheduled === 0 && now.requests === 0 && now.bodyReads === 0 &&
        now.awaitingMessages === 0 && now.callsStarted === before.callsStarted && now.downloadClicks === before.downloadClicks && now.linkQuietForMs >= since;
      if (inert) after = ${afterClickExpression(exclude, fn)};
    }
    const made = { historyBefore, changedBefore, clicked, after };
    return ${asJsonExpression('made')};
  })()`);
  return withTimeout(evaluateLibraryJson<ClickMade>(page, expression), timeoutMs, 'clicking').catch(() => ({ clicked: false, historyBefore: 0, changedBefore: 0, after: null }));
}

/**
 * After a click settled: the navigations it made, the DOM, the mutation clock and the
 * clickables, in one call. Never throws: a failed call gives no navigations, no DOM (`null`),
 * a clock of 0 and no clickables.
 * @param exclude - the accessible-name pattern never clicked (see `scanClickables`)
 * @param timeoutMs - the call's timeout (ms)
 */
export async function readAfterClick(page: Page, exclude: string, timeoutMs = 10_000): Promise<AfterClick> {
  return withTimeout(evaluateLibraryJson<AfterClick>(page, libraryExpression((fn) => asJsonExpression(afterClickExpression(exclude, fn)))), timeoutMs, 'reading the page after a click').catch(() => ({
    navigations: [],
    page: null,
    changed: 0,
    clickables: [],
  }));
}
