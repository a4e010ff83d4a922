/**
 * The read of a settled page in one call into it: the link clock (`lastLinkChangeAt`), the DOM
 * (`extractPage`), the SPA signals (`SPA_SIGNALS_EXPRESSION`), the page's longest task (`longestTaskOf`)
 * and, when the visit clicks, the clickables (`scanClickables`, click discovery's first scan). Each call into a page waits for the
 * renderer's main thread, which on a busy machine is most of its cost (75-115 ms median on
 * TypeDoc at concurrency 4 on 2 cores); three reads made one after the other paid it three times.
 * The result comes back as JSON text (see `json-result.ts`).
 * @module
 */
import type { CDPSession } from 'playwright';
import type { ExtractResult } from '../page-scripts.js';
import type { ClickCandidate } from '../click-scripts.js';
import { asJsonExpression, evaluateInTab, fromJson } from '../json-result.js';
import { evaluateWithLibrary, libraryExpression, type LibraryExpression } from '../page-library.js';
import type { SpaReading } from '../spa-scripts.js';
import { clickExcludePattern } from '../explore.js';
import type { VisitOptions } from './types.js';

/** What {@link readSettledPage} returns. */
export interface SettledReading {
  /** When the page's links or title last changed (ms since epoch, the page's clock), or `null` when it could not be read. */
  lastChange: number | null;
  /** The DOM as `extractPage` reads it. */
  main: ExtractResult;
  /** The SPA signals, or `null` when they could not be read. */
  spa: SpaReading | null;
  /** The clickables (see `scanClickables`), or `null` when not asked for or they could not be read. */
  clickables: ClickCandidate[] | null;
  /** The page's longest task so far (ms, see `hang-watch.ts`), or `null` without the watch. */
  longestTask: number | null;
}

/**
 * The read, for the accessible-name pattern never clicked (`null`: no scan), in the two forms of
 * a library call (see `page-library.ts`): the page functions run in order in one evaluation. A
 * failure of the link clock, the SPA signals or the scan is `null` (as when each was read
 * alone); a failure of `extractPage` fails the read. The result comes back as JSON text
 * (`asJsonExpression`).
 */
function expression(clickExclude: string | null): LibraryExpression {
  return libraryExpression((fn) =>
    asJsonExpression(`(() => {
  const orNull = (f) => { try { return f(); } catch { return null; } };
  const lastChange = orNull(${fn('lastLinkChangeAt')});
  const main = ${fn('extractPage')}();
  const clickables = ${clickExclude === null ? 'null' : `orNull(() => ${fn('scanClickables')}(${JSON.stringify(clickExclude)}))`};
  return { lastChange, main, spa: orNull(${fn('spaSignals')}), clickables, longestTask: orNull(${fn('longestTaskOf')}) };
})()`),
  );
}

/** The read without a scan, and the last one with (a crawl has one exclude pattern). */
const PLAIN = expression(null);
let withScan: { exclude: string; expression: LibraryExpression } | null = null;

/**
 * The accessible-name pattern the read's scan takes for a visit (see `clickExcludePattern`), or
 * `null` when the visit does not click (then the read makes no scan).
 */
export function scanExcludeOf(opts: Pick<VisitOptions, 'click'>): string | null {
  return opts.click ? clickExcludePattern(opts.click.exclude) : null;
}

/**
 * The read (see {@link readSettledPage}) as a library expression whose value is JSON text, for a
 * call that reads the page in its own evaluation (the settle stage's last question: see
 * `settle.ts`); parse its value with {@link parseSettledReading}.
 * @param clickExclude - as for {@link readSettledPage}
 */
export function settledReadExpression(clickExclude: string | null): LibraryExpression {
  if (clickExclude === null) return PLAIN;
  if (withScan?.exclude !== clickExclude) withScan = { exclude: clickExclude, expression: expression(clickExclude) };
  return withScan.expression;
}

/**
 * The reading from the JSON text {@link settledReadExpression}'s value is.
 * @throws `SyntaxError` when `json` is not the read's JSON text
 */
export function parseSettledReading(json: string): SettledReading {
  return fromJson<SettledReading>(json);
}

/**
 * Read the settled page in one call (see the module comment), through the tab's own CDP session
 * (`evaluateInTab`: the read runs on every page), calling the page library's functions.
 * @param cdp - the tab's CDP session (see `VisitTab.cdp`)
 * @param clickExclude - the accessible-name pattern never clicked (see `scanClickables`), or
 *   `null` for no scan (the visit does not click)
 * @throws what `evaluateInTab` throws (the page went away, the document was replaced, the read threw)
 */
export async function readSettledPage(cdp: CDPSession, clickExclude: string | null = null): Promise<SettledReading> {
  return fromJson<SettledReading>(await evaluateWithLibrary((x) => evaluateInTab<unknown>(cdp, x), settledReadExpression(clickExclude)));
}
