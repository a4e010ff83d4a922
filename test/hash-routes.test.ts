import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HASH_ROUTES, startHashAppSite } from '../fixtures/sites/hash-app.js';
import type { FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { expectWellFormed, sorted } from './helpers/records.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startHashAppSite();
});

afterAll(async () => {
  await site?.close();
});

/** Crawl the app at `base` (its routes and their /doc pages); the records, and how often the app's document was requested. */
async function crawlApp(base: string, opts: Partial<CrawlOptions> = {}): Promise<{ records: PageRecord[]; loads: number }> {
  site.reset();
  const records: PageRecord[] = [];
  for await (const r of crawl({ seeds: [`${site.origin}${base}#/`], concurrency: 1, soft404: false, settleTimeoutMs: 8_000, ...opts, browser })) records.push(r);
  expectWellFormed(records);
  return { records, loads: site.count(base) };
}

/** A record without what differs between two visits of the same page (timings, when the server HTML was read). */
function comparable(r: PageRecord): string {
  const { timings: _t, ...rest } = r;
  return JSON.stringify(rest);
}

const routeUrls = (base: string): string[] => [`${site.origin}${base}#/`, ...HASH_ROUTES.map((r) => `${site.origin}${base}#/${r}`)];

describe('hash routes of one document', () => {
  it("a route that fetches its view is not held for the calls of the document's earlier routes (they were heard in their own visits)", async () => {
    const { records, loads } = await crawlApp('/fetching/');
    expect(loads).toBe(2);
    const routes = records.filter((r) => r.url.startsWith(`${site.origin}/fetching/#/`));
    expect(routes).toHaveLength(HASH_ROUTES.length + 1);
    for (const r of routes) {
      expect(r.settled, r.url).toBe(true);
      // Read within the full 500 ms window of the route's last change, with room for a busy
      // machine; a page held for an unheard call (UNHEARD_CALL_WAIT_MS, 2 s from its fetch) is not.
      expect(r.timings.settledMs! - r.timings.lastChangeMs!, `${r.url} ${JSON.stringify(r.timings)}`).toBeLessThan(1_500);
    }
  });

  it('are visited by changing the hash: the document is loaded once, and again only after the route that threw; records equal full loads', async () => {
    const reused = await crawlApp('/app/');
    const full = await crawlApp('/app/', { hashRouteReuse: false });
    const urls = [...routeUrls('/app/'), ...HASH_ROUTES.map((r) => `${site.origin}/doc/${r}`)];
    expect(sorted(reused.records.map((r) => r.url))).toEqual(sorted(urls));
    expect(sorted(full.records.map((r) => r.url))).toEqual(sorted(urls));
    // Full loads: once per route. Reuse: the first route, and the route after the one that threw
    // (a visit with errors leaves nothing to reuse).
    expect(full.loads).toBe(21);
    expect(reused.loads).toBe(2);

    const byUrl = new Map(full.records.map((r) => [r.url, r]));
    for (const r of reused.records) expect(comparable(r), r.url).toBe(comparable(byUrl.get(r.url)!));

    const at = (route: string): PageRecord => reused.records.find((r) => r.url === `${site.origin}/app/#/${route}`)!;
    expect(at('r7').title).toBe('Route seven');
    expect(at('r8').title).toBe('Hash app');
    expect(at('r13').pageErrors).toEqual([expect.stringMatching(/^Error: route r13 failed to render/)]);
    expect(at('r13').consoleErrors).toEqual(['route r13: data missing']);
    expect(at('r12')).toMatchObject({ status: 200, pageErrors: [], consoleErrors: [], redirectChain: [] });
    expect(at('r12').links).toContain(`${site.origin}/doc/r12`);
    expect(at('r12').links).not.toContain(`${site.origin}/doc/r11`);
  });

  it('are loaded each time when the app does not react to hashchange, or has a beforeunload handler', async () => {
    for (const base of ['/static/', '/guarded/']) {
      const reused = await crawlApp(base, { maxDepth: 1 });
      const full = await crawlApp(base, { maxDepth: 1, hashRouteReuse: false });
      expect(reused.loads, base).toBe(21);
      expect(full.loads, base).toBe(21);
      const byUrl = new Map(full.records.map((r) => [r.url, r]));
      for (const r of reused.records) expect(comparable(r), r.url).toBe(comparable(byUrl.get(r.url)!));
      expect(reused.records.find((r) => r.url === `${site.origin}${base}#/r7`)!.title).toBe('Route seven');
    }
  });
});
