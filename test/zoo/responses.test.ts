/**
 * Zoo cases Z35–Z36: responses a headless browser does not simply render (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { startResponseSite } from '../../fixtures/zoo/responses.js';
import { audit, type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { summary, zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startResponseSite();
});
afterAll(async () => {
  await site?.close();
});

async function run(prefix: string): Promise<PageRecord[]> {
  const records = await zooCrawl(browser, `${site.origin}${prefix}`);
  expectWellFormed(records);
  return records;
}

describe('zoo: responses', () => {
  it('Z35 a page that reloads itself for ever (meta refresh 0, no URL) is read once: 200, its title, its links, no reload storm', async () => {
    site.reset();
    const records = await run('/z35/');
    expect(summary(records)).toEqual([
      { path: '/z35/', status: 200, title: 'Z35 index', skipped: null, error: null },
      { path: '/z35/board', status: 200, title: 'Live board', skipped: null, error: null },
      { path: '/z35/detail', status: 200, title: 'Board detail', skipped: null, error: null },
    ]);
    // The first reload is followed (pages that set a cookie and reload once); the second is refused
    // when its answer arrives, and the page is read as it is: three requests, not a storm.
    expect(site.documents().filter((d) => d.target === '/z35/board').length).toBe(3);
  });

  it('Z36 a 401 with a Basic or Digest challenge is status 401 with error null: a broken link, not a network failure', async () => {
    const records = await run('/z36/');
    expect(summary(records).map((r) => `${r.path} ${r.status} ${r.error}`)).toEqual(['/z36/ 200 null', '/z36/basic 401 null', '/z36/digest 401 null', '/z36/open 200 null']);
    const broken = audit(records).issues.filter((i) => i.rule === 'broken-link').map((i) => `${i.url.slice(site.origin.length)} ${i.message}`);
    expect(broken).toEqual(['/z36/basic HTTP 401', '/z36/digest HTTP 401']);
  });
});
