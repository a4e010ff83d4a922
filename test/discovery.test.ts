import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import {
  HASH_PAGES,
  startClickSite,
  startClientRedirectSite,
  startFrameSite,
  startHashRouterSite,
  startHomeFallbackSite,
  startScrollSite,
  startSoft404Site,
} from '../fixtures/sites/spa.js';
import { sharedBrowser } from './helpers/browser.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

let browser: Browser;
const servers: FixtureServer[] = [];
const keep = (s: FixtureServer): FixtureServer => (servers.push(s), s);

beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function run(opts: Omit<CrawlOptions, 'browser'>): Promise<{ recs: PageRecord[]; crawler: Crawler }> {
  const crawler = new Crawler({ settleTimeoutMs: 2000, ...opts, browser });
  const recs: PageRecord[] = [];
  for await (const r of crawler.records()) recs.push(r);
  return { recs, crawler };
}

/** Path + hash of the URLs of visited pages (records with skipped: null), sorted. */
const visited = (recs: PageRecord[]): string[] =>
  recs
    .filter((r) => r.skipped === null)
    .map((r) => {
      const u = new URL(r.url);
      return u.pathname + u.search + u.hash;
    })
    .sort();

describe('hash routes and learned duplicate parameters', () => {
  it('finds every route of a hash-router app; heading anchors #/page?id=x stop after the parameter is learned', async () => {
    const s = keep(await startHashRouterSite());
    const { recs, crawler } = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const titles = new Set(recs.filter((r) => r.skipped === null).map((r) => r.title));
    expect([...titles].sort()).toEqual(Object.values(HASH_PAGES).map((t) => `${t} — docs`).sort());
    // Visit order at concurrency 1 is breadth-first: the home page's own heading variants are
    // the three identical renderings that teach the crawler that `id` does not matter. `/#/`
    // (the nav's home link) was queued before that and is visited too.
    expect(visited(recs)).toEqual(
      ['/', '/#/', '/#/?id=one', '/#/?id=two', '/#/?id=three', ...Object.keys(HASH_PAGES).filter((p) => p !== '/').map((p) => `/#${p}`)].sort(),
    );
    const pages = Object.keys(HASH_PAGES).length;
    expect(s.documents().length).toBeLessThanOrEqual(Math.floor(pages * 1.5));
    expect(crawler.result().learnedParams).toEqual([`${s.origin}: #?id`]);
    const dup = recs.find((r) => r.url.endsWith('#/guide?id=two'))!;
    expect(dup).toMatchObject({ skipped: 'duplicate', duplicateOf: `${s.origin}/#/guide` });
    expect(recs.find((r) => r.url === `${s.origin}/#/?id=four`)).toMatchObject({ skipped: 'duplicate', duplicateOf: `${s.origin}/#/` });
  });

  it('--hash-routes drop treats the app as one page', async () => {
    const s = keep(await startHashRouterSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], hashRoutes: 'drop', soft404: false });
    expect(visited(recs)).toEqual(['/']);
    expect(s.documents()).toHaveLength(1);
  });
});

describe('clickable navigation without href', () => {
  it('finds pages behind buttons, role=link spans, collapsed div groups and nested reveals — once per site', async () => {
    const s = keep(await startClickSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    expect(visited(recs)).toEqual(['/', '/projects', '/projects/alpha', '/projects/beta', '/reports', '/settings', '/team']);
    const home = recs.find((r) => r.url === `${s.origin}/`)!;
    expect(home.linkSources.click).toBe(6);
    // Each page is rendered once: the shell is requested once per visited route.
    for (const p of ['/', '/team', '/projects', '/projects/alpha', '/projects/beta', '/settings', '/reports']) expect([p, s.count(p)]).toEqual([p, 1]);
    // Safety: nothing a click triggered changed server state, and nobody was logged out.
    expect(s.log.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(s.count('/logout')).toBe(0);
    expect(s.count('/logged-out')).toBe(0);
    expect(s.count('/submit')).toBe(0);
    // The POST the guard aborted is spacrawl's doing, not a failure of the site.
    expect(recs.flatMap((r) => r.failedRequests)).toEqual([]);
  });

  it('--click all clicks on every page; --click off finds only anchors', async () => {
    const s = keep(await startClickSite());
    const off = await run({ seeds: [`${s.origin}/`], click: 'off', soft404: false });
    expect(visited(off.recs)).toEqual(['/']);
    const all = await run({ seeds: [`${s.origin}/`], click: 'all', concurrency: 2, soft404: false });
    expect(visited(all.recs)).toEqual(['/', '/projects', '/projects/alpha', '/projects/beta', '/reports', '/settings', '/team']);
    for (const r of all.recs.filter((x) => x.skipped === null)) expect([r.url, r.linkSources.click ?? 0]).toEqual([r.url, 6]);
    expect(s.log.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('--click-exclude keeps matching controls unclicked', async () => {
    const s = keep(await startClickSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], clickExclude: ['^team$', 'reports'], soft404: false });
    expect(visited(recs)).toEqual(['/', '/projects', '/projects/alpha', '/projects/beta', '/settings']);
  });
});

describe('client-side redirects', () => {
  it('a location change during load is a client hop; the target is not rendered twice', async () => {
    const s = keep(await startClientRedirectSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const start = recs.find((r) => r.url === `${s.origin}/`)!;
    expect(start).toMatchObject({ finalUrl: `${s.origin}/home`, title: 'Home', redirectChain: [{ url: `${s.origin}/`, status: null, kind: 'client' }] });
    expect(visited(recs)).toEqual(['/', '/about']);
    expect(s.count('/home')).toBe(1);
  });
});

describe('lazy content and frames', () => {
  it('--scroll finds links an infinite list renders on scroll; without it they are missed', async () => {
    const s = keep(await startScrollSite());
    const items = Array.from({ length: 30 }, (_, i) => `/item/${i + 10}`);
    const without = await run({ seeds: [`${s.origin}/`], maxDepth: 1, soft404: false, click: 'off' });
    expect(visited(without.recs)).toEqual(['/']);
    const withScroll = await run({ seeds: [`${s.origin}/`], maxDepth: 1, scroll: true, soft404: false, click: 'off', concurrency: 4 });
    expect(visited(withScroll.recs)).toEqual(['/', ...items].sort());
    expect(withScroll.recs.find((r) => r.url === `${s.origin}/`)!.linkSources.scroll).toBe(30);
  });

  it('reads same-origin iframes against the frame\'s URL, crawls their src, and lists cross-origin frames without entering them', async () => {
    const other = keep(await startFixtureServer(() => ({ body: html('Widget', '<a href="/inside">inside</a>') })));
    const s = keep(await startFrameSite(other.origin));
    const { recs } = await run({ seeds: [`${s.origin}/`], soft404: false });
    expect(visited(recs)).toEqual(['/', '/frames/nav.html', '/frames/one.html', '/two.html']);
    const home = recs.find((r) => r.url === `${s.origin}/`)!;
    expect(home.linkSources).toEqual({ frame: 2, 'frame-src': 2 });
    expect(home.frames).toEqual([`${other.origin}/widget`]);
    expect(other.count('/inside')).toBe(0);
  });
});

describe('soft 404s', () => {
  it('flags routes that render the app\'s not-found screen with 200, and titles that say 404', async () => {
    const s = keep(await startSoft404Site());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    const soft = recs.filter((r) => r.soft404).map((r) => new URL(r.url).pathname).sort();
    expect(soft).toEqual(['/gone', '/old-page', '/typo']);
    expect(recs.filter((r) => r.skipped === null && !r.soft404).map((r) => new URL(r.url).pathname).sort()).toEqual(['/', '/docs', '/pricing']);
    // The probe is one request and produces no record.
    expect(s.log.filter((r) => r.path.includes('spacrawl-probe'))).toHaveLength(1);
    expect(recs.some((r) => r.url.includes('spacrawl-probe'))).toBe(false);
  });

  it('switches fingerprint matching off where unknown routes render the home page, and says so', async () => {
    const s = keep(await startHomeFallbackSite());
    const { recs, crawler } = await run({ seeds: [`${s.origin}/`] });
    expect(recs.filter((r) => r.soft404)).toEqual([]);
    expect(visited(recs)).toEqual(['/', '/about', '/missing']);
    expect(crawler.result().notes).toHaveLength(1);
    expect(crawler.result().notes[0]).toContain('fingerprint matching is off');
  });
});
