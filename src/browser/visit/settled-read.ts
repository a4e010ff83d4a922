/**
 * The read of a settled page in one call into it: the link clock (`lastLinkChangeAt`), the DOM
 * (`extractPage`) and the SPA signals (`readSpaSignals`). Each call into a page waits for the
 * renderer's main thread, which on a busy machine is most of its cost (75-115 ms median on
 * TypeDoc at concurrency 4 on 2 cores); three reads made one after the other paid it three times.
 * @module
 */
import type { Page } from 'playwright';
import { extractPage, type ExtractResult } from '../page-scripts.js';
import { lastLinkChangeAt } from '../settle-scripts.js';
import { readSpaSignals, type SpaReading } from '../spa-scripts.js';

/** What {@link readSettledPage} returns. */
export interface SettledReading {
  /** When the page's links or title last changed (ms since epoch, the page's clock), or `null` when it could not be read. */
  lastChange: number | null;
  /** The DOM as `extractPage` reads it. */
  main: ExtractResult;
  /** The SPA signals, or `null` when they could not be read. */
  spa: SpaReading | null;
}

/**
 * The three page functions, run in order in one evaluation. Their source is embedded as the
 * compiled functions' text, the way `page.evaluate(fn)` sends a function. A failure of the link
 * clock or the SPA signals is `null` (as when each was read alone); a failure of `extractPage`
 * fails the read.
 */
const EXPRESSION = `(() => {
  const orNull = (f) => { try { return f(); } catch { return null; } };
  const lastChange = orNull(${lastLinkChangeAt.toString()});
  const main = (${extractPage.toString()})();
  return { lastChange, main, spa: orNull(${readSpaSignals.toString()}) };
})()`;

/**
 * Read the settled page in one call (see the module comment).
 * @throws what `page.evaluate` throws (the page went away, the document was replaced)
 */
export async function readSettledPage(page: Page): Promise<SettledReading> {
  return (await page.evaluate(EXPRESSION)) as SettledReading;
}
