import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer } from '../fixtures/server.js';
import { startOffThreadSite } from '../fixtures/sites/off-thread.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { pathOf, sorted } from './helpers/records.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startOffThreadSite();
});

afterAll(async () => {
  await site?.close();
});

/** The record of `path`, crawled alone (no link followed). */
async function recordOf(path: string, opts: Partial<CrawlOptions> = {}): Promise<PageRecord> {
  const records: PageRecord[] = [];
  for await (const r of crawl({ seeds: [`${site.origin}${path}`], maxDepth: 0, ...opts, browser })) records.push(r);
  return records.find((r) => pathOf(r.url) === path)!;
}

describe('work the browser does for a page off its main thread', () => {
  it('a page that renders the links a Web Worker answers 300 ms after it asked is read after the answer', async () => {
    const r = await recordOf('/worker-answer');
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'Worker answer' });
    expect(sorted(r.links.map(pathOf))).toEqual(['/a', '/b']);
  });

  it('a worker\'s answer 1.2 s after the question, longer than the full quiet window, is waited for', async () => {
    const r = await recordOf('/worker-slow');
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'Slow worker' });
    expect(sorted(r.links.map(pathOf))).toEqual(['/a', '/b']);
    expect(r.timings.settledMs).toBeGreaterThanOrEqual(1_200);
  });

  it('a worker that never answers holds the page 2 s, then the full quiet window reads it, not the cap', async () => {
    const r = await recordOf('/worker-silent', { settleTimeoutMs: 10_000 });
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'Silent worker' });
    expect(r.links.map(pathOf)).toEqual(['/a']);
    expect(r.timings.settledMs).toBeGreaterThanOrEqual(2_000);
    expect(r.timings.settledMs).toBeLessThan(10_000);
  });

  it('a click that asks a Web Worker, which answers 300 ms later, reveals the links rendered from the answer', async () => {
    const r = await recordOf('/worker-click', { click: 'auto' });
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'Worker click' });
    expect(sorted(r.links.map(pathOf))).toEqual(['/a', '/b']);
    expect(r.clickDiscovery?.made).toBeGreaterThanOrEqual(1);
  });

  it('counting posts to workers leaves the page\'s Worker behaviour alone (transfer lists, answers, terminate); a post to a terminated worker holds nothing', async () => {
    // A full window of 4 s: a post counted as unanswered would hold the page to it.
    const r = await recordOf('/worker-transfer', { quietMs: 4_000 });
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'Worker 8 true' });
    expect(r.timings.settledMs).toBeLessThan(4_000);
  });

  it('a page that fills an IndexedDB store for longer than the full quiet window, then renders its links from it, is read after them', async () => {
    const r = await recordOf('/idb');
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'IndexedDB' });
    expect(sorted(r.links.map(pathOf))).toEqual(['/a', '/b']);
  });

  it('a page that renders its links once a 16 MB WebAssembly module has compiled is read after them; the module is fetched once', async () => {
    const r = await recordOf('/wasm');
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'WebAssembly', pageErrors: [] });
    expect(sorted(r.links.map(pathOf))).toEqual(['/a', '/b']);
    expect(site.log.filter((l) => l.path === '/big.wasm')).toHaveLength(1);
  });

  it('a rejection of a watched browser call is still the page\'s: the one it handles is handled, the one it leaves is a page error', async () => {
    const r = await recordOf('/async-errors');
    expect(r).toMatchObject({ status: 200, settled: true, error: null, title: 'handled' });
    expect(r.pageErrors).toHaveLength(1);
    // Located at the page's own line, not in spacrawl's wrapper of crypto.subtle.
    expect(r.pageErrors[0]).toMatch(/^NotSupportedError: .*\(at http:\/\/127\.0\.0\.1:\d+\/async-errors:\d+:\d+\)$/);
  });
});
