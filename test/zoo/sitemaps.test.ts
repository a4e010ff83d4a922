/**
 * Zoo cases Z28–Z32: sitemaps as generators write them, read with `sitemap: true` (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { SITEMAP_PAGES, startSitemapSite } from '../../fixtures/zoo/sitemaps.js';
import { type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;
let records: PageRecord[];

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startSitemapSite();
  records = await zooCrawl(browser, `${site.origin}/`, { sitemap: true });
  expectWellFormed(records);
}, 120_000);
afterAll(async () => {
  await site?.close();
});

/** The record requested at raw target `target`: `status title`, or `missing`. */
function outcome(target: string): string {
  const r = records.find((x) => x.requestedUrl === `${site.origin}${target}`);
  return r ? `${r.status} ${r.title}` : 'missing';
}

describe('zoo: sitemaps', () => {
  it('every sitemap page, and nothing else, is crawled; each page request goes out once, as listed', () => {
    expect(records.map((r) => r.requestedUrl?.slice(site.origin.length)).sort()).toEqual(['/', ...Object.values(SITEMAP_PAGES).map((p) => p.target)].sort());
    const pages = site.documents().map((d) => d.target);
    expect(pages.sort()).toEqual(['/', ...Object.values(SITEMAP_PAGES).map((p) => p.target)].sort());
  });

  for (const [id, what] of [
    ['z28', 'whitespace and newlines around the URL in <loc> are trimmed'],
    ['z29', '&amp; in <loc> is "&"'],
    ['z30', 'a <loc> in CDATA is read'],
    ['z31', 'a prefixed sitemap namespace (next to an image extension) is read; image URLs are not pages'],
    ['z32', 'a BOM and blank lines before the XML declaration do not lose the file'],
  ] as const) {
    it(`${id.toUpperCase()} ${what}`, () => {
      const p = SITEMAP_PAGES[id]!;
      expect(outcome(p.target)).toBe(`200 ${p.title}`);
    });
  }
});
