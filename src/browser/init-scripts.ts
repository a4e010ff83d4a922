/**
 * How spacrawl's init scripts are handed to a browser context: under a name of their own, so that
 * their frames in a page's error stack are told from the page's.
 * @module
 */

/**
 * The name (`//# sourceURL=`) spacrawl's init scripts run under. Their wrappers of the page's
 * APIs (timers, `crypto.subtle`, `postMessage` …) can be in the stack of an error the page
 * causes; a page error's location is its first frame that is not under this name
 * (`observe.ts`).
 */
export const INJECTED_SOURCE_URL = 'spacrawl-injected.js';

/**
 * An init script for `BrowserContext.addInitScript` that runs `script` (an in-page function,
 * called without arguments, or the source of a script) under {@link INJECTED_SOURCE_URL}.
 */
export function initScript(script: (() => void) | string): { content: string } {
  const body = typeof script === 'string' ? script : `(${script.toString()})();`;
  return { content: `${body}\n//# sourceURL=${INJECTED_SOURCE_URL}\n` };
}
