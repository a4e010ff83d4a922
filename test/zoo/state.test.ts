/**
 * Zoo case Z37: a crawl keeps one cookie jar, as a person's browser does (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { startStateSite, Z37_PAGES } from '../../fixtures/zoo/state.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { summary, zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startStateSite();
});
afterAll(async () => {
  await site?.close();
});

describe('zoo: browser state', () => {
  for (const [concurrency, recycleAfter] of [
    [4, 50],
    [1, 2],
  ] as const) {
    it(`Z37 a cookie the site set on one page is sent with every later page (concurrency ${concurrency}, contexts replaced after ${recycleAfter} pages)`, async () => {
      const records = await zooCrawl(browser, `${site.origin}/z37/`, { concurrency, recycleAfter });
      expectWellFormed(records);
      expect(summary(records).map((r) => `${r.path} ${r.status} ${r.title}`)).toEqual([
        '/z37/ 200 Z37 index',
        ...Z37_PAGES.map((p, i) => `${p} 200 Item ${i + 1}`),
      ]);
    });
  }
});
