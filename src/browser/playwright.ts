/**
 * Playwright's runtime values (`chromium`, `devices`, `errors`), loaded with `require()`. The
 * package is CommonJS: imported from an ES module, Node 20 runs its CommonJS export scanner
 * (cjs-module-lexer) over every file the package requires, its 3.6 MB core bundle included.
 * Measured here: `import('playwright')` took 340–430 ms, `require('playwright')` 260–300 ms, and
 * a crawl's browser launch starts that much sooner. The values are the same objects either way
 * (an `import` after the `require` gets the module cache's), so `instanceof errors.TimeoutError`
 * holds for errors from code that imports Playwright itself. Types are imported as types, as before.
 * @module
 */
import { createRequire } from 'node:module';
import type * as Playwright from 'playwright';

const require = createRequire(import.meta.url);

/** Playwright's `chromium`, `devices` and `errors` (see the module comment for why `require`). */
export const { chromium, devices, errors } = require('playwright') as typeof Playwright;
