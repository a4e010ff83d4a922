import { describe, expect, it } from 'vitest';
import { NOT_FOUND_TEXT } from '../src/crawl/soft404.js';

// Found by `npm run bench`: page 404 of the benchmark tree, titled "Page 404", was a soft 404.
describe('NOT_FOUND_TEXT: titles and headings that say "not found"', () => {
  const says = ['404', '404 Not Found', '404 | Example', 'Error 404', 'error: 404', '404 - Page not found', '404 page', 'Page not found', 'Oops! Page Not Found', 'This page could not be found', 'No such page'];
  const doesNot = ['Page 404', 'Node 404', 'Flight 404 to Paris', 'HTTP 404 errors explained', 'Top 10 pages', 'Found it', 'Pricing'];
  for (const t of says) it(`"${t}" says not found`, () => expect(NOT_FOUND_TEXT.test(t)).toBe(true));
  for (const t of doesNot) it(`"${t}" does not`, () => expect(NOT_FOUND_TEXT.test(t)).toBe(false));
});
