/**
 * The page library: the in-page functions that the visit and click discovery call on every
 * page (the DOM read, the clickables' scan, the click), defined once per document by an init
 * script instead of sent as source with every call.
 *
 * A call into the page that carries a function's source (the way `page.evaluate(fn)` sends it)
 * costs the crawler the protocol message's JSON, the pipe, and the browser and the renderer each
 * their parse and compile of it; the scan alone is ~25 KB. Measured in one tab, reads of the DOM
 * and the clickables (CPU of the crawler, the browser and the renderer together): 200 reads of
 * one TypeDoc class page (as click discovery reads one document again and again) 15 against 7.9
 * ms of CPU a read with the ~30 KB of source sent each time and with the functions defined once,
 * 10.8 against 7.4 ms of wall; one read on each of the 66 TypeDoc pages, loaded afresh (four
 * rounds), ~2 ms of CPU less a read and 20.0 against 16.7 ms of wall. A TypeDoc crawl sent 3.8
 * MB to the browser, now 0.8.
 *
 * The library is a frozen object under a `window` property the page can neither replace nor
 * delete (nor list: not enumerable), as `window.__spacrawl` is visible to it. A document without
 * it (a context not made by the pool, a document the browser made without running init scripts)
 * answers {@link MISSING}, and the call is made again with the sources inlined.
 * @module
 */
import type { Frame, Page } from 'playwright';
import { clickCandidate, scanClickables } from './click-scripts.js';
import { lastLinkChangeAt } from './clock-scripts.js';
import { longestTaskOf } from './hang-watch.js';
import { asJsonExpression, fromJson } from './json-result.js';
import { extractPage } from './page-scripts.js';
import { SPA_SIGNALS_EXPRESSION } from './spa-scripts.js';

/** The library's functions, by name, as source text. Each is self-contained (see `page.evaluate`). */
const SOURCES = {
  extractPage: extractPage.toString(),
  scanClickables: scanClickables.toString(),
  clickCandidate: clickCandidate.toString(),
  lastLinkChangeAt: lastLinkChangeAt.toString(),
  longestTaskOf: longestTaskOf.toString(),
  spaSignals: `() => ${SPA_SIGNALS_EXPRESSION}`,
} as const;

/** The name of a function of the library. */
export type LibraryFunction = keyof typeof SOURCES;

/** The `window` property the library is defined under. */
const GLOBAL = '__spacrawlLib';

/** The init script that defines the library (for `BrowserContext.addInitScript`, through `initScript`). */
export const PAGE_LIBRARY_SCRIPT = `Object.defineProperty(window, '${GLOBAL}', { value: Object.freeze({ ${Object.entries(SOURCES)
  .map(([name, source]) => `${name}: (${source})`)
  .join(', ')} }), writable: false, configurable: false, enumerable: false });`;

/**
 * What a call made with the library's names answers when the document has no library. No
 * library call answers it: their results are objects, or JSON text (see `json-result.ts`).
 */
export const MISSING = 0;

/** How an expression names a library function: an expression whose value is the function. */
export type LibraryRef = (name: LibraryFunction) => string;

/** One expression in the two forms {@link libraryExpression} makes. */
export interface LibraryExpression {
  /** The expression calling the library's functions; {@link MISSING} when the document has none. */
  lean: string;
  /** The same with the functions' sources inlined (made only when needed). */
  full: () => string;
}

/**
 * The expression `build` makes, in its two forms (see {@link LibraryExpression}).
 * @param build - the expression, given how to name each library function (`fn('extractPage')`
 *   is an expression whose value is `extractPage`)
 */
export function libraryExpression(build: (fn: LibraryRef) => string): LibraryExpression {
  return {
    lean: `(typeof window.${GLOBAL} === 'object' && window.${GLOBAL} !== null ? ${build((name) => `window.${GLOBAL}.${name}`)} : ${MISSING})`,
    full: () => build((name) => `(${SOURCES[name]})`),
  };
}

/**
 * Evaluate `e` with `evaluate`: its lean form, and its full form when the document has no library.
 * @param evaluate - evaluates one expression in the page and returns its value (a promise's value)
 * @throws what `evaluate` throws
 */
export async function evaluateWithLibrary(evaluate: (expression: string) => Promise<unknown>, e: LibraryExpression): Promise<unknown> {
  const value = await evaluate(e.lean);
  return value === MISSING ? evaluate(e.full()) : value;
}

/**
 * {@link evaluateWithLibrary} through Playwright's `evaluate` in `target`, for an expression whose
 * value is JSON text (see `json-result.ts`), parsed.
 * @throws what `evaluate` throws (the page went away, the document was replaced, a script error)
 */
export async function evaluateLibraryJson<T>(target: Page | Frame, e: LibraryExpression): Promise<T> {
  return fromJson<T>(await evaluateWithLibrary((x) => target.evaluate(x), e));
}

/** The DOM read (`extractPage`) as a library call whose value is JSON text, for {@link evaluateLibraryJson}. */
export const DOM_READ: LibraryExpression = libraryExpression((fn) => asJsonExpression(`${fn('extractPage')}()`));
