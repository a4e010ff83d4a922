import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PAGES, DEMO_REDIRECTS, startDemoSite } from '../src/demo/site.js';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { crawl, Crawler, type PageRecord } from '../src/index.js';
import { sharedBrowser } from './helpers/browser.js';
import { collect, expectWellFormed, pagesOf, pathOf, redirectsOf, sorted } from './helpers/records.js';

let browser: Browser;
let site: FixtureServer;
let records: PageRecord[];

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startDemoSite();
  records = await collect(crawl({ seeds: [`${site.origin}/`], browser }));
}, 120_000);

afterAll(async () => {
  await site?.close();
});

const rec = (path: string): PageRecord | undefined => records.find((r) => pathOf(r.url) === path);

describe('crawl() on the demo site', () => {
  it('visits exactly the pages of DEMO_PAGES, once each', () => {
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted(DEMO_PAGES));
    expect(new Set(records.map((r) => r.url)).size).toBe(records.length);
    // One navigation per page, /pricing included: /old-pricing's 301 to it is stopped at the hop.
    for (const p of DEMO_PAGES) {
      expect({ p, n: site.documents().filter((d) => d.path === p).length }).toEqual({ p, n: 1 });
    }
    expect(site.documents()).toHaveLength(DEMO_PAGES.length + Object.keys(DEMO_REDIRECTS).length);
  });

  it('has exactly one skipped record: /admin, skipped for robots.txt and never requested', () => {
    expect(records.filter((r) => r.skipped !== null).map((r) => ({ path: pathOf(r.url), skipped: r.skipped }))).toEqual([
      { path: '/admin', skipped: 'robots' },
    ]);
    expect(site.log.filter((l) => l.path === '/admin')).toEqual([]);
  });

  it('reports /blog/missing-post as status 404 with error null, found on /blog/hello', () => {
    expect(rec('/blog/missing-post')).toMatchObject({ status: 404, error: null, skipped: null, referrer: `${site.origin}/blog/hello` });
    const errors = pagesOf(records).filter((r) => r.error !== null || (r.status !== null && r.status >= 400));
    expect(errors.map((r) => pathOf(r.url))).toEqual(['/blog/missing-post']);
  });

  it('records /old-pricing as a redirect record to /pricing (one HTTP 301 hop), not a second copy of /pricing', () => {
    expect(redirectsOf(records).map((r) => [pathOf(r.url), pathOf(r.finalUrl!)])).toEqual(Object.entries(DEMO_REDIRECTS));
    const r = rec('/old-pricing')!;
    expect(r).toMatchObject({ finalUrl: `${site.origin}/pricing`, status: 301, redirect: true, skipped: null, title: null, links: [], linkDetails: [] });
    expect(r.redirectChain).toEqual([{ url: `${site.origin}/old-pricing`, status: 301, kind: 'http' }]);
    expect(site.count('/old-pricing')).toBe(1);
    expect(pagesOf(records).filter((x) => x.title === rec('/pricing')!.title).map((x) => pathOf(x.url))).toEqual(['/pricing']);
  });

  it('lists the off-site profile in externalLinks of /about and gives it no record', () => {
    expect(rec('/about')!.externalLinks).toEqual(['https://example.com/acme']);
    expect(records.some((r) => !r.url.startsWith(site.origin))).toBe(false);
  });

  it('reads the polling /live page at the settle cap without an error', () => {
    expect(rec('/live')).toMatchObject({ status: 200, settled: false, error: null });
    const quiet = pagesOf(records).filter((r) => pathOf(r.url) !== '/live');
    expect(quiet.filter((r) => !r.settled).map((r) => pathOf(r.url))).toEqual([]);
  });

  it('gives every record every PageRecord field with the right type', () => {
    expectWellFormed(records);
  });
});

describe('Crawler.result()', () => {
  it('is there once records() is exhausted: why the crawl ended, whether a seed answered, notes, sitemap URLs, learned parameters', async () => {
    const s = await startFixtureServer((_req, url) => {
      if (url.pathname === '/robots.txt') return { status: 500, body: 'down' };
      return { body: html('Page', '<a href="/a">a</a> <a href="/b">b</a>') };
    });
    try {
      const blocked = new Crawler({ seeds: [`${s.origin}/`], browser, settleTimeoutMs: 500 });
      expect(() => blocked.result()).toThrow('has not ended');
      const recs = await collect(blocked.records());
      expect(recs.map((r) => r.skipped)).toEqual(['robots']);
      expect(blocked.result()).toEqual({
        endReason: 'done',
        seedVisited: false,
        notes: [`robots.txt of ${s.origin} unusable (HTTP 500): treating the whole origin as disallowed`],
        sitemapUrls: new Set(),
        learnedParams: [],
      });

      const budget = new Crawler({ seeds: [`${s.origin}/`], browser, settleTimeoutMs: 500, ignoreRobots: true, soft404: false, click: 'off', maxPages: 1 });
      const pages = await collect(budget.records());
      expect(pages.map((r) => [pathOf(r.url), r.skipped])).toEqual([
        ['/', null],
        ['/a', 'budget'],
        ['/b', 'budget'],
      ]);
      expect(budget.result()).toEqual({ endReason: 'max-pages', seedVisited: true, notes: [], sitemapUrls: new Set(), learnedParams: [] });
    } finally {
      await s.close();
    }
  });
});
