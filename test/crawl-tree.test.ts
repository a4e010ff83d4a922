import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTreeSite,
  TREE_MAILTO,
  TREE_MISSING_PATH,
  TREE_OFFSITE_PATH,
  TREE_PRIVATE_PATH,
  TREE_SIZE,
  treeDepth,
  treeId,
  treeIdsToDepth,
  treePath,
  treeVisitedPaths,
  type TreeSite,
} from '../fixtures/sites/tree.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { watchRenderers } from './helpers/processes.js';
import { collect, detailsOf, expectWellFormed, pagesOf, pathOf, sorted } from './helpers/records.js';

let browser: Browser;

beforeAll(async () => {
  browser = await sharedBrowser();
});

afterAll(async () => {
});

/** Crawl `site` from `/` (unless seeds are given) with the shared browser. */
async function crawlTree(site: TreeSite, opts: Partial<CrawlOptions> = {}): Promise<PageRecord[]> {
  return collect(
    crawl({
      seeds: [site.url('/')],
      // The quiet window at its floor keeps 60-page crawls short; the tree's links appear
      // right after a 20 ms API answer, well inside it.
      quietMs: 300,
      ...opts,
      browser,
    }),
  );
}

/** Document requests (Sec-Fetch-Dest: document) per path, as the server saw them. */
function documentCounts(site: TreeSite): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of site.server.documents()) m.set(r.path, (m.get(r.path) ?? 0) + 1);
  return m;
}

const byPath = (records: readonly PageRecord[]): Map<string, PageRecord> => new Map(records.map((r) => [pathOf(r.url), r]));

describe.each([1, 4, 8])('the 63-page client-rendered tree at concurrency %i', (concurrency) => {
  let site: TreeSite;
  let records: PageRecord[];
  let renderers: number;

  beforeAll(async () => {
    site = await startTreeSite();
    const watch = watchRenderers();
    records = await crawlTree(site, { concurrency });
    renderers = watch.stop();
  }, 240_000);

  afterAll(async () => {
    await site?.close();
  });

  it('requests every page document exactly once, and nothing else as a document', () => {
    const expected = new Map(treeVisitedPaths().map((p) => [p, 1]));
    expect(Object.fromEntries(documentCounts(site))).toEqual(Object.fromEntries(expected));
    expect(site.server.documents()).toHaveLength(TREE_SIZE + 1);
  });

  it('keeps a few renderer processes for its tabs, not one per page', () => {
    // The c tabs share one context (src/browser/pool.ts), where tabs of one site may share a
    // renderer: at most one per tab, plus the start page's and a recycled tab's. Chromium's spare
    // renderer used to add ~2 per page with several contexts, and its preloaded omnibox popup one
    // more per context (src/browser/launch.ts).
    console.log(`concurrency ${concurrency}: ${renderers} renderer processes started for ${TREE_SIZE} pages`);
    expect(renderers).toBeGreaterThanOrEqual(1);
    expect(renderers).toBeLessThanOrEqual(concurrency + 2);
  });

  it('never exceeds the concurrency in documents in flight', () => {
    const peak = site.server.peakDocumentsInFlight();
    expect(peak).toBeGreaterThanOrEqual(1);
    expect(peak).toBeLessThanOrEqual(concurrency);
  });

  it('records exactly the 63 pages (200), the missing page (404, no error) and the robots-skipped URL', () => {
    const paths = records.map((r) => pathOf(r.url));
    // One record per URL: no duplicates.
    expect(new Set(paths).size).toBe(records.length);
    expect(sorted(paths)).toEqual(sorted([...treeVisitedPaths(), TREE_PRIVATE_PATH]));
    expect(records).toHaveLength(TREE_SIZE + 2);

    const m = byPath(records);
    for (let i = 0; i < TREE_SIZE; i++) {
      const r = m.get(treePath(i))!;
      expect({ path: treePath(i), status: r.status, error: r.error, skipped: r.skipped, title: r.title, depth: r.depth }).toEqual({
        path: treePath(i),
        status: 200,
        error: null,
        skipped: null,
        title: `Page ${i}`,
        depth: treeDepth(i),
      });
      expect(r.finalUrl).toBe(site.url(treePath(i)));
      expect(r.redirectChain).toEqual([]);
      expect(r.contentType).toMatch(/^text\/html/);
      expect(r.referrer).toBe(i === 0 ? null : site.url(treePath(Math.floor((i - 1) / 2))));
    }
    const missing = m.get(TREE_MISSING_PATH)!;
    expect(missing).toMatchObject({ status: 404, error: null, skipped: null, title: 'Not found', depth: treeDepth(TREE_SIZE - 1) + 1 });
    expect(missing.referrer).toBe(site.url(treePath(TREE_SIZE - 1)));
    expect(missing.links).toEqual([]);

    const priv = m.get(TREE_PRIVATE_PATH)!;
    expect(priv).toMatchObject({ skipped: 'robots', status: null, finalUrl: null, error: null, depth: 2, referrer: site.url('/p/1') });
  });

  it('counts as DESIGN.md says: 64 pages, 63 ok, 1 error, 1 robots-skipped', () => {
    const pages = pagesOf(records);
    expect(pages).toHaveLength(64);
    expect(pages.filter((r) => r.status !== null && r.status >= 200 && r.status < 300)).toHaveLength(63);
    expect(pages.filter((r) => r.error !== null || (r.status !== null && r.status >= 400)).map((r) => pathOf(r.url))).toEqual([TREE_MISSING_PATH]);
    expect(records.filter((r) => r.skipped === 'robots')).toHaveLength(1);
  });

  it('renders links only after the API answers, and records them', () => {
    const m = byPath(records);
    for (let i = 0; i < TREE_SIZE; i++) {
      const kids = [2 * i + 1, 2 * i + 2].filter((c) => c < TREE_SIZE).map((c) => site.url(treePath(c)));
      const expected = i === 1 ? [...kids, site.url(TREE_PRIVATE_PATH)] : i === TREE_SIZE - 1 ? [site.url('/'), site.url(TREE_MISSING_PATH)] : kids;
      expect({ i, links: m.get(treePath(i))!.links }).toEqual({ i, links: expected });
    }
  });

  it('keeps mailto: and the off-site link out of the records, in linkDetails/externalLinks only, and never contacts the off-site server', () => {
    const offsiteUrl = `${site.offsite.origin}${TREE_OFFSITE_PATH}`;
    expect(records.some((r) => r.url.startsWith('mailto:') || r.url.startsWith(site.offsite.origin))).toBe(false);
    const last = byPath(records).get(treePath(TREE_SIZE - 1))!;
    expect(last.externalLinks).toEqual([offsiteUrl]);
    expect(detailsOf(last)).toEqual([
      { url: site.url('/'), text: 'Home', source: 'anchor' },
      { url: site.url(TREE_MISSING_PATH), text: 'Missing', source: 'anchor' },
      { url: offsiteUrl, text: 'Elsewhere', source: 'anchor' },
      { url: TREE_MAILTO, text: 'Mail us', source: 'anchor' },
    ]);
    expect(site.offsite.log).toHaveLength(0);
  });

  it('never requests the robots-disallowed URL, and fetches robots.txt once', () => {
    expect(site.server.log.filter((r) => r.path.startsWith('/private'))).toEqual([]);
    expect(site.server.count('/robots.txt')).toBe(1);
  });

  it('fetches each page API exactly once (one render per page)', () => {
    for (let i = 0; i < TREE_SIZE; i++) expect({ i, n: site.server.count(`/api/p/${i}`) }).toEqual({ i, n: 1 });
    expect(site.server.count('/api/p/999')).toBe(1);
  });

  it('gives every record every PageRecord field with the right type', () => {
    expectWellFormed(records);
  });
});

describe('budgets on the tree', () => {
  let site: TreeSite;

  beforeAll(async () => {
    site = await startTreeSite();
  });

  afterAll(async () => {
    await site?.close();
  });

  it('maxDepth 2 visits exactly the 7 pages of depth <= 2; depth-3 links get skipped:"budget"', async () => {
    site.server.reset();
    const records = await crawlTree(site, { maxDepth: 2 });
    const want = treeIdsToDepth(2).map(treePath);
    expect(want).toHaveLength(7);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted(want));
    expect(sorted(site.server.documents().map((r) => r.path))).toEqual(sorted(want));
    const budget = records.filter((r) => r.skipped === 'budget');
    expect(sorted(budget.map((r) => pathOf(r.url)))).toEqual(sorted(treeIdsToDepth(3).filter((i) => treeDepth(i) === 3).map(treePath)));
    for (const r of budget) expect(r.depth).toBe(3);
    // /private/secret is at depth 2: within the budget, so robots.txt decides it.
    expect(records.filter((r) => r.skipped === 'robots').map((r) => pathOf(r.url))).toEqual([TREE_PRIVATE_PATH]);
    expect(records).toHaveLength(7 + 8 + 1);
    expectWellFormed(records);
  });

  it('maxDepth 0 visits only the seed', async () => {
    site.server.reset();
    const records = await crawlTree(site, { maxDepth: 0 });
    expect(pagesOf(records).map((r) => pathOf(r.url))).toEqual(['/']);
    expect(site.server.documents().map((r) => r.path)).toEqual(['/']);
    expect(sorted(records.filter((r) => r.skipped === 'budget').map((r) => pathOf(r.url)))).toEqual(['/p/1', '/p/2']);
    expect(records).toHaveLength(3);
  });

  it('maxPages 10 at concurrency 4: exactly 10 navigations; every discovered, unvisited URL is skipped:"budget"', async () => {
    site.server.reset();
    const records = await crawlTree(site, { maxPages: 10, concurrency: 4 });
    const docs = site.server.documents().map((r) => r.path);
    expect(docs).toHaveLength(10);
    expect(new Set(docs).size).toBe(10);
    const pages = pagesOf(records);
    expect(sorted(pages.map((r) => pathOf(r.url)))).toEqual(sorted(docs));
    for (const p of docs) expect(treeId(p)).not.toBeNull();
    // Breadth-first: the seed, then both depth-1 pages, before anything deeper.
    expect(docs[0]).toBe('/');
    expect(sorted(docs.slice(1, 3))).toEqual(['/p/1', '/p/2']);
    // Every in-scope link of a visited page has exactly one record: visited, robots or budget.
    const discovered = new Set(pages.flatMap((r) => r.links.map(pathOf)));
    discovered.add('/');
    const visited = new Set(docs);
    const expectBudget = [...discovered].filter((p) => !visited.has(p) && p !== TREE_PRIVATE_PATH);
    expect(sorted(records.filter((r) => r.skipped === 'budget').map((r) => pathOf(r.url)))).toEqual(sorted(expectBudget));
    expect(expectBudget.length).toBeGreaterThan(0);
    expect(new Set(records.map((r) => r.url)).size).toBe(records.length);
    expect(records).toHaveLength(discovered.size);
  });
});

describe('high concurrency', () => {
  it('concurrency 16: 16 navigations at once, every page once, and no MaxListenersExceededWarning for the visits listening for cancellation', async () => {
    // The 16 pages of depth 4 are the seeds, so all 16 slots can fill at the start. Each document
    // waits (at most 25 s, under the 30 s navigation timeout) until 16 are in flight at once:
    // reaching the cap does not depend on how fast a loaded machine opens pages (CI once saw 10
    // with 400 ms documents and no barrier).
    const site = await startTreeSite({ docDelayMs: 100, docBarrier: 16, barrierTimeoutMs: 25_000 });
    const warnings: string[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w.name);
    };
    process.on('warning', onWarning);
    try {
      const depth4 = treeIdsToDepth(4).filter((i) => treeDepth(i) === 4);
      expect(depth4).toHaveLength(16);
      const records = await crawlTree(site, { seeds: depth4.map((i) => site.url(treePath(i))), concurrency: 16, maxDepth: 1 });
      // The 16 seeds and their 32 children (depth 5), each requested once.
      const want = treeIdsToDepth(5).filter((i) => treeDepth(i) >= 4).map(treePath);
      expect(want).toHaveLength(48);
      expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted(want));
      expect(sorted(site.server.documents().map((d) => d.path))).toEqual(sorted(want));
      expect(site.server.peakDocumentsInFlight()).toBe(16);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await site.close();
    }
  });
});

describe('context recycling', () => {
  it('--recycle-after 10 at concurrency 2: tabs and contexts are replaced, every page is visited once, and no more renderers are alive than tabs and one exiting', async () => {
    const site = await startTreeSite();
    try {
      const watch = watchRenderers();
      const records = await crawlTree(site, { concurrency: 2, recycleAfter: 10, soft404: false });
      const started = watch.stop();
      expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted(treeVisitedPaths()));
      expect([...documentCounts(site).values()].every((n) => n === 1)).toBe(true);
      // 64 visits, 10 per tab. A context is retired when its first tab reaches 10 visits, and the
      // other tab's next tab joins the context that replaced it, so a context serves 10 to 20
      // visits: 4 to 7 contexts, one renderer each (contexts never share a process; the first
      // tab's start page may add one). Without recycling there would be 1. (The bound was 7 while
      // the User-Agent was read in a throwaway context of its own, one more renderer.)
      expect(started).toBeGreaterThanOrEqual(4);
      expect(started).toBeLessThanOrEqual(10);
      // Two tabs, and a recycled tab's renderer that is still exiting while its successor starts.
      expect(watch.peakLive()).toBeLessThanOrEqual(3);
    } finally {
      await site.close();
    }
  });
});

describe('concurrency is a hard cap, and is used', () => {
  let site: TreeSite;

  beforeAll(async () => {
    // 300 ms documents; the first documents also wait (at most 5 s) until 3 are in flight at
    // once, so that reaching the cap does not depend on how fast a loaded machine opens pages.
    // A crawler that never runs 3 navigations at once leaves the peak below 3 and fails.
    site = await startTreeSite({ docDelayMs: 300, docBarrier: 3 });
  });

  afterAll(async () => {
    await site?.close();
  });

  it('with 300 ms documents and concurrency 3, the server sees exactly 3 documents in flight at the peak', async () => {
    // Three seeds are ready at once, so all three slots can fill at the start; depth 1 then
    // keeps more URLs queued (4) than there are slots, and the cap must hold throughout.
    const records = await crawlTree(site, {
      seeds: [site.url('/'), site.url('/p/1'), site.url('/p/2')],
      concurrency: 3,
      maxDepth: 1,
    });
    expect(site.server.peakDocumentsInFlight()).toBe(3);
    // Seeds 0..2 at depth 0 and their children 3..6 at depth 1: each requested once.
    const want = [0, 1, 2, 3, 4, 5, 6].map(treePath);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted(want));
    expect(sorted(site.server.documents().map((d) => d.path))).toEqual(sorted(want));
  });
});
