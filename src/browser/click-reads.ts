/**
 * Click discovery's calls into the page, folded: one call makes the click (with what must be
 * known from before it), one reads what it did once the page settled (its result as JSON text:
 * see `json-result.ts`). Each call into a page
 * waits for the renderer's main thread, which on a busy machine is most of its cost (75-115 ms
 * median at concurrency 4 on 2 cores); a click used to make seven calls (scan, history length,
 * mutation clock, click, navigations, DOM, scan), it now makes two, plus the settle's own.
 * @module
 */
import type { Page } from 'playwright';
import { clickCandidate, historyLength, lastMutation, scanClickables, takeNavigations, type ClickCandidate } from './click-scripts.js';
import { extractPage, type ExtractResult } from './page-scripts.js';
import { asJsonExpression, evaluateExpressionJson } from './json-result.js';
import { withTimeout } from './timeout.js';

/** What {@link clickWithContext} returns. */
export interface ClickMade {
  /** `false` when the clickable was gone or the call failed (nothing was clicked). */
  clicked: boolean;
  /** `history.length` right before the click (0 when unknown). */
  historyBefore: number;
  /** The page's mutation clock right before the click (see `lastMutation`; 0 when unknown). */
  changedBefore: number;
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
 * Click the clickable at `index` of the last scan, reading the history length and the mutation
 * clock first, in one call. Never throws: a failed call is "not clicked".
 * @param timeoutMs - the call's timeout (ms)
 */
export async function clickWithContext(page: Page, index: number, timeoutMs = 5_000): Promise<ClickMade> {
  const expression = `(() => {
    const orZero = (f) => { try { return f(); } catch { return 0; } };
    const historyBefore = orZero(${historyLength.toString()});
    const changedBefore = orZero(${lastMutation.toString()});
    return { historyBefore, changedBefore, clicked: (${clickCandidate.toString()})(${JSON.stringify(index)}) };
  })()`;
  return withTimeout(page.evaluate(expression) as Promise<ClickMade>, timeoutMs, 'clicking').catch(() => ({ clicked: false, historyBefore: 0, changedBefore: 0 }));
}

/**
 * After a click settled: the navigations it made, the DOM, the mutation clock and the
 * clickables, in one call. Never throws: a failed call gives no navigations, no DOM (`null`),
 * a clock of 0 and no clickables.
 * @param exclude - the accessible-name pattern never clicked (see `scanClickables`)
 * @param timeoutMs - the call's timeout (ms)
 */
export async function readAfterClick(page: Page, exclude: string, timeoutMs = 10_000): Promise<AfterClick> {
  const expression = asJsonExpression(`(() => {
    const navigations = (${takeNavigations.toString()})();
    let page = null;
    try { page = (${extractPage.toString()})(); } catch {}
    let changed = 0;
    try { changed = (${lastMutation.toString()})(); } catch {}
    let clickables = [];
    try { clickables = (${scanClickables.toString()})(${JSON.stringify(exclude)}); } catch {}
    return { navigations, page, changed, clickables };
  })()`);
  return withTimeout(evaluateExpressionJson<AfterClick>(page, expression), timeoutMs, 'reading the page after a click').catch(() => ({ navigations: [], page: null, changed: 0, clickables: [] }));
}
