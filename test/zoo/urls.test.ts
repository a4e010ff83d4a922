/**
 * Zoo cases Z01–Z08: a link is requested exactly as the browser spells it (see README.md).
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../../fixtures/server.js';
import { startUrlSite } from '../../fixtures/zoo/urls.js';
import { type PageRecord } from '../../src/index.js';
import { sharedBrowser } from '../helpers/browser.js';
import { expectWellFormed } from '../helpers/records.js';
import { summary, targets, zooCrawl } from './helpers.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startUrlSite();
});
afterAll(async () => {
  await site?.close();
});

async function run(prefix: string, opts: Parameters<typeof zooCrawl>[2] = {}): Promise<PageRecord[]> {
  const records = await zooCrawl(browser, `${site.origin}${prefix}`, opts);
  expectWellFormed(records);
  return records;
}

describe('zoo: URL spelling', () => {
  it('Z01 a non-ASCII or spaced path is sent as UTF-8 escapes and both pages load', async () => {
    const records = await run('/z01/');
    expect(summary(records)).toEqual([
      { path: '/z01/', status: 200, title: 'Z01 index', skipped: null, error: null },
      { path: '/z01/caf%C3%A9-men%C3%BC.html', status: 200, title: 'Menu page', skipped: null, error: null },
      { path: '/z01/item%20one.html', status: 200, title: 'Item one', skipped: null, error: null },
    ]);
    expect(targets(site, '/z01/').sort()).toEqual(['/z01/', '/z01/caf%C3%A9-men%C3%BC.html', '/z01/item%20one.html']);
  });

  it('Z02 escapes of reserved characters (%2F %3F %28 %2B) and %7E are requested as written', async () => {
    const records = await run('/z02/');
    expect(records.map((r) => [r.requestedUrl?.slice(site.origin.length), r.status, r.title]).sort()).toEqual([
      ['/z02/%7Eowner', 200, 'Encoded tilde'],
      ['/z02/', 200, 'Z02 index'],
      ['/z02/c%2B%2B', 200, 'Encoded plus'],
      ['/z02/item%28one%29', 200, 'Encoded parentheses'],
      ['/z02/pkg%2Fitem', 200, 'Encoded slash'],
      ['/z02/what%3F', 200, 'Encoded question mark'],
    ]);
    // No decoded spelling ever reached the server.
    expect(targets(site, '/z02/').sort()).toEqual(['/z02/', '/z02/%7Eowner', '/z02/c%2B%2B', '/z02/item%28one%29', '/z02/pkg%2Fitem', '/z02/what%3F']);
  });

  it('Z03 the query is sent in the order it was linked (the canonical key may sort it)', async () => {
    const records = await run('/z03/');
    expect(records.map((r) => [r.requestedUrl?.slice(site.origin.length), r.status, r.title]).sort()).toEqual([
      ['/z03/', 200, 'Z03 index'],
      ['/z03/list?sort=new&page=3', 200, 'List sort page'],
      ['/z03/view?b=2&a=1', 200, 'View b a'],
    ]);
    expect(targets(site, '/z03/').sort()).toEqual(['/z03/', '/z03/list?sort=new&page=3', '/z03/view?b=2&a=1']);
  });

  it('Z04 /a//b is its own URL: requested as linked and reported with its own 404', async () => {
    const records = await run('/z04/');
    expect(summary(records)).toEqual([
      { path: '/z04/', status: 200, title: 'Z04 index', skipped: null, error: null },
      { path: '/z04//item', status: 404, title: 'Not found', skipped: null, error: null },
      { path: '/z04/item', status: 200, title: 'Single slash item', skipped: null, error: null },
    ]);
    expect(targets(site, '/z04/').sort()).toEqual(['/z04/', '/z04//item', '/z04/item']);
  });

  it('Z05 in an ISO-8859-1 page the query is encoded in the page encoding, the path in UTF-8', async () => {
    const records = await run('/z05/');
    expect(summary(records)).toEqual([
      { path: '/z05/', status: 200, title: 'Z05 index', skipped: null, error: null },
      { path: '/z05/%C3%BC', status: 200, title: 'Path in UTF-8', skipped: null, error: null },
      { path: '/z05/find?q=%FC', status: 200, title: 'Query in the document encoding', skipped: null, error: null },
    ]);
  });

  it('Z06 an internationalized host is an off-site link in punycode, with no record and no error', async () => {
    const records = await run('/z06/');
    expect(summary(records)).toEqual([
      { path: '/z06/', status: 200, title: 'Z06 index', skipped: null, error: null },
      { path: '/z06/next', status: 200, title: 'Z06 next', skipped: null, error: null },
    ]);
    const index = records.find((r) => r.url === `${site.origin}/z06/`)!;
    expect(index.externalLinks).toEqual(['http://xn--bcher-kva.example/shelf', 'http://xn--bcher-kva.example/desk']);
  });

  it('Z07 hrefs that are not URLs are dropped; the page and its good link are still crawled', async () => {
    const records = await run('/z07/');
    expect(summary(records)).toEqual([
      { path: '/z07/', status: 200, title: 'Z07 index', skipped: null, error: null },
      { path: '/z07/next', status: 200, title: 'Z07 next', skipped: null, error: null },
    ]);
    const index = records.find((r) => r.url === `${site.origin}/z07/`)!;
    expect(index.links).toEqual([`${site.origin}/z07/next`]);
    expect(index.pageErrors).toEqual([]);
  });

  for (const fold of [false, true]) {
    it(`Z08 a trailing slash is requested as linked, never the other spelling (foldTrailingSlash: ${fold})`, async () => {
      site.reset();
      const records = await run('/z08/', { foldTrailingSlash: fold });
      expect(records.map((r) => [r.requestedUrl?.slice(site.origin.length), r.status, r.title, r.redirectChain.length]).sort()).toEqual([
        ['/z08/', 200, 'Z08 index', 0],
        ['/z08/about/', 200, 'About', 0],
        ['/z08/docs', 200, 'Docs', 0],
      ]);
      expect(targets(site, '/z08/').sort()).toEqual(['/z08/', '/z08/about/', '/z08/docs']);
    });
  }
});
