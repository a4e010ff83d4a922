import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import type { FixtureServer } from '../fixtures/server.js';
import { API_TOGGLES, API_VIEWS, startApiReferenceSite } from '../fixtures/sites/api-reference.js';
import { PAGER_PAGE_SIZE, startPagerSite } from '../fixtures/sites/explore.js';
import { GROUP_LINKS, LOAD_MORE_LINKS, LOAD_MORE_STEPS, NAV_GROUPS, startNavGroupsSite } from '../fixtures/sites/nav-groups.js';
import { sharedBrowser } from './helpers/browser.js';
import { collect, expectWellFormed, pathOf as pathAndSearch } from './helpers/records.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { BARREN_CLICKS_IN_PAGE, BARREN_PAGES } from '../src/browser/click-memory.js';

// Clicks that pay for themselves (issue 31, point 3): controls of one template that revealed no
// link on two pages are not clicked on the rest; the budget never cuts short a chain of clicks
// that keeps revealing links.

let browser: Browser;
const servers: FixtureServer[] = [];
beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function run(opts: Omit<CrawlOptions, 'browser'>): Promise<PageRecord[]> {
  const recs = await collect(new Crawler({ settleTimeoutMs: 3000, soft404: false, ...opts, browser }).records());
  expectWellFormed(recs);
  return recs;
}
/** Path, search and hash route of a URL (the views of the app are hash routes). */
const pathOf = (u: string): string => pathAndSearch(u) + new URL(u).hash;
const range = (n: number, f: (i: number) => string): string[] => Array.from({ length: n }, (_, i) => f(i + 1));

describe('link-less toggles of one template (an API reference)', () => {
  const views = range(API_VIEWS, (i) => `/#/op/${i}`);
  const guides = range(API_VIEWS, (i) => `/guide/${i}`);

  it('are clicked on the first view, 3 of them on the second, then skipped as "template" (there too); the per-view link is still found on each', async () => {
    const s = await startApiReferenceSite();
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const pages = recs.filter((r) => r.skipped === null);
    expect(pages.map((r) => pathOf(r.url)).sort()).toEqual(['/', ...views, ...guides].sort());
    const opViews = pages.filter((r) => /#\/op\//.test(r.url));
    // Every view's own control ("Related to operation N") was clicked, and revealed its guide.
    for (const r of opViews) {
      const n = /op\/(\d+)$/.exec(r.url)![1];
      expect([n, r.links.filter((l) => l.endsWith(`/guide/${n}`)).length]).toEqual([n, 1]);
    }
    // The toggles: all clicked (each once: a toggle that says aria-expanded="true" is not
    // clicked again) on the first view, BARREN_CLICKS_IN_PAGE of them on the second, which then
    // counts as barren too: skipped as "template" from then on, there and on every other view.
    // "Related" is clicked twice on each view: once more after it revealed a link, which then
    // reveals nothing new.
    expect([BARREN_PAGES, BARREN_CLICKS_IN_PAGE]).toEqual([2, 3]);
    const skips = (n: number) => ({ chrome: 0, template: n, budget: 0, limit: 0, restore: 0 });
    expect(opViews.map((r) => [pathOf(r.url), r.clickDiscovery?.made, r.clickDiscovery?.skipped])).toEqual(
      opViews.map((r, i) => [pathOf(r.url), i === 0 ? API_TOGGLES + 2 : i === 1 ? BARREN_CLICKS_IN_PAGE + 2 : 2, skips(i === 0 ? 0 : i === 1 ? API_TOGGLES - BARREN_CLICKS_IN_PAGE : API_TOGGLES)]),
    );
    // A guide has nothing to click; a page that was not clicked on at all still says so.
    for (const r of pages.filter((p) => p.url.includes('/guide/'))) expect(r.clickDiscovery).toMatchObject({ made: 0, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
  });

  it('at concurrency 3, a view beyond the two that decide waits for their looks instead of clicking all of its own', async () => {
    const s = await startApiReferenceSite();
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 3 });
    const pages = recs.filter((r) => r.skipped === null);
    expect(pages.map((r) => pathOf(r.url)).sort()).toEqual(['/', ...views, ...guides].sort());
    const opViews = pages.filter((r) => /#\/op\//.test(r.url));
    const togglesOf = (r: PageRecord): number => (r.clickDiscovery?.made ?? 0) - 2;
    const toggleClicks = opViews.reduce((n, r) => n + togglesOf(r), 0);
    const skipped = opViews.reduce((n, r) => n + (r.clickDiscovery?.skipped.template ?? 0), 0);
    // The first view clicks all of its own, the second BARREN_CLICKS_IN_PAGE; the third view in
    // flight waits for their looks instead of clicking its own too. Before, every view learning
    // at once clicked all of its own: two or three views clicked all API_TOGGLES (12 or more).
    // Only the first does now.
    expect(opViews.filter((r) => togglesOf(r) === API_TOGGLES).length).toBe(1);
    // A busy machine adds a little: a look whose wait ran out is no evidence (another view looks
    // instead), and a view that waited CLAIM_WAIT_MS for the others' looks looks itself, three
    // clicks more (the full suite beside two CPU hogs once made 12, one over the old bound).
    expect(toggleClicks).toBeGreaterThanOrEqual(API_TOGGLES + BARREN_CLICKS_IN_PAGE);
    expect(toggleClicks).toBeLessThanOrEqual(API_TOGGLES + 2 * BARREN_CLICKS_IN_PAGE + 2);
    // Every toggle of every view was either clicked or skipped as "template".
    expect(toggleClicks + skipped).toBe(API_VIEWS * API_TOGGLES);
  });

  it('--click all clicks every toggle on every view (nothing remembered)', async () => {
    const s = await startApiReferenceSite(4, 4);
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 2, click: 'all' });
    const opViews = recs.filter((r) => r.skipped === null && /#\/op\//.test(r.url));
    expect(opViews.map((r) => r.clickDiscovery)).toMatchObject(range(4, () => 'x').map(() => ({ made: 6, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } })));
  });
});

describe('a chain of clicks that keeps revealing links', () => {
  const PAGES = 16;

  it(`"Next" over ${PAGES} pages is followed to its end past the click budget, also when steps answer slower than the click wait; what was not clicked yet when the budget ran out is not`, async () => {
    // Every fourth page answers in 1.4 s, more than the 1 s a click waits for the page to settle
    // (what a busy machine does to every step); the budget is 2.5 s, far less than the chain takes
    // (four 1.4 s steps alone), and enough for the page calls before the first click on a busy machine.
    const s = await startPagerSite(PAGES, (page) => (page % 4 === 0 ? 1_400 : 30));
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 0, clickRepeat: 20, clickBudgetMs: 2_500 });
    const home = recs.find((r) => pathOf(r.url) === '/')!;
    expect(home.links.filter((l) => l.includes('/article/')).length).toBe(PAGES * PAGER_PAGE_SIZE);
    for (let page = 1; page <= PAGES; page++) expect([page, s.count(`/api/articles?page=${page}`)]).toEqual([page, 1]);
    expect(s.count(`/api/articles?page=${PAGES + 1}`)).toBe(0);
    // "Next" was clicked once per page after the first; "Load more" and "Refresh" came after the
    // budget had run out: not clicked, and counted as skipped for it.
    expect(home.clickDiscovery).toMatchObject({ made: PAGES - 1, skipped: { chrome: 0, template: 0, budget: 2, limit: 0, restore: 0 } });
    expect([s.count('/api/posts?page=1'), s.count('/api/posts?page=2'), s.count('/api/refresh')]).toEqual([1, 0, 0]);
  });
});

describe('disclosures that do not say they are open (a sidebar of groups)', () => {
  it('a second click that closes the first group again makes the other groups of its template clicked once each; "Load more" still goes to its end', async () => {
    const s = await startNavGroupsSite();
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 1 });
    const home = recs.find((r) => pathOf(r.url) === '/')!;
    const groupPages = Array.from({ length: NAV_GROUPS }, (_, g) => range(GROUP_LINKS, (p) => `/g${g + 1}/p${p}`)).flat();
    const items = Array.from({ length: LOAD_MORE_STEPS }, (_, step) => range(LOAD_MORE_LINKS, (i) => `/item/${step + 1}-${i}`)).flat();
    expect(home.links.map(pathOf).filter((p) => p !== '/').sort()).toEqual([...groupPages, ...items].sort());
    expect(recs.filter((r) => r.skipped === null).map((r) => pathOf(r.url)).sort()).toEqual(['/', ...groupPages, ...items].sort());
    // The first group twice (open, then closed again: nothing new), every other group once, and
    // "Load more" once per step (gone after the last). Before: every group twice (2 x NAV_GROUPS).
    expect(home.clickDiscovery).toMatchObject({ made: 2 + (NAV_GROUPS - 1) + LOAD_MORE_STEPS, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
  });
});
