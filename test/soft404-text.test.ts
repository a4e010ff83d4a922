import { describe, expect, it } from 'vitest';
import { NOT_FOUND_TEXT, notFoundByText } from '../src/crawl/soft404.js';

// Found by `npm run bench`: page 404 of the benchmark tree, titled "Page 404", was a soft 404.
describe('NOT_FOUND_TEXT: titles and headings that say "not found"', () => {
  const says = [
    '404', '404 Not Found', '404 | Example', 'Error 404', 'error: 404', '404 - Page not found', '404 page', 'Page not found', 'Oops! Page Not Found',
    'This page could not be found', 'No such page', "Sorry, we couldn't find it", 'We can’t find that page', 'This page doesn’t exist', 'The page no longer exists',
  ];
  const doesNot = ['Page 404', 'Node 404', 'Flight 404 to Paris', 'HTTP 404 errors explained', 'Top 10 pages', 'Found it', 'Pricing', 'Find it fast', 'Existing customers'];
  for (const t of says) it(`"${t}" says not found`, () => expect(NOT_FOUND_TEXT.test(t)).toBe(true));
  for (const t of doesNot) it(`"${t}" does not`, () => expect(NOT_FOUND_TEXT.test(t)).toBe(false));
});

const words = (n: number): string => Array.from({ length: n }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}`).join(' ');

describe('notFoundByText: only a near-empty page whose heading or title says "not found"', () => {
  it('a near-empty page whose only heading says so', () => {
    expect(notFoundByText({ title: 'Acme', headings: ['Page not found'], text: 'acme page not found go back home' })).toBe('not-found-heading');
    expect(notFoundByText({ title: 'Acme', headings: ["Sorry, we couldn't find it"], text: "acme sorry, we couldn't find it. home" })).toBe('not-found-heading');
  });
  it('a near-empty page whose title says so', () => {
    expect(notFoundByText({ title: '404 — Shop', headings: ['Gone'], text: '404 — shop gone' })).toBe('not-found-title');
  });
  it('a troubleshooting guide titled "Fixing 404 Not Found errors" (long text, several headings) is not', () => {
    const text = `fixing 404 not found errors ${words(600)}`;
    expect(notFoundByText({ title: 'Fixing 404 Not Found errors', headings: ['Fixing 404 Not Found errors', 'Causes', 'Fixes'], text })).toBeNull();
    expect(notFoundByText({ title: 'Fixing 404 Not Found errors', headings: ['Fixing 404 Not Found errors'], text })).toBeNull();
  });
  it('a short page with many headings is not; a near-empty page that says nothing of the kind is not', () => {
    expect(notFoundByText({ title: 'Not found?', headings: ['Not found?', 'Step 1', 'Step 2'], text: 'not found? step 1 step 2' })).toBeNull();
    expect(notFoundByText({ title: 'Contact', headings: ['Contact'], text: 'contact write to us' })).toBeNull();
  });
  it('the limit is 80 words besides the title', () => {
    expect(notFoundByText({ title: '404', headings: ['Not found'], text: `404 ${words(80)}` })).toBe('not-found-heading');
    expect(notFoundByText({ title: '404', headings: ['Not found'], text: `404 ${words(81)}` })).toBeNull();
  });
});
