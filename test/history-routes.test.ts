import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_ROUTES, startHistoryAppSite } from '../fixtures/sites/history-app.js';
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
  site = await startHistoryAppSite();
});

afterAll(async () => {
  await site?.close();
});

/** Crawl the app at `base` (its routes and their /doc pages): the records, how often the app booted, and how often each path was requested as a document. */
async function crawlApp(base: string, opts: Partial<CrawlOptions> = {}): Promise<{ records: PageRecord[]; boots: number; documents: Map<string, number>; notices: string[] }> {
  site.reset();
  const records: PageRecord[] = [];
  const notices: string[] = [];
  const onEvent: CrawlOptions['onEvent'] = (e) => {
    if (e.type === 'notice') notices.push(e.message);
  };
  for await (const r of crawl({ seeds: [`${site.origin}${base}`], concurrency: 1, soft404: false, maxDepth: 2, historyRouteReuse: true, onEvent, ...opts, browser })) records.push(r);
  expectWellFormed(records);
  const documents = new Map<string, number>();
  for (const d of site.documents()) documents.set(d.path, (documents.get(d.path) ?? 0) + 1);
  return { records, boots: site.count(`${base}app.js`), documents, notices };
}

/** A record without what differs between two visits of the same page (timings). */
function comparable(r: PageRecord): string {
  const { timings: _t, ...rest } = r;
  return JSON.stringify(rest);
}

describe('history routes of an app shell', () => {
  it('are reached by routing the running app once two loads show the shell and two checks agree; records equal full loads', async () => {
    const routed = await crawlApp('/app/');
    const full = await crawlApp('/app/', { historyRouteReuse: false });
    // Loads: `/app/` and r1 (the shell is known once two paths answered it), r2 and r3 (each routed,
    // then checked by a load), and `gone` (its request answered 404: loaded). r4 … r12 are routed.
    expect(routed.boots).toBe(5);
    expect(full.boots).toBe(14);
    // One request per path, and a second for the two checks and for `gone`.
    const twice = [...routed.documents].filter(([, n]) => n === 2).map(([path]) => path);
    expect(sorted(twice)).toEqual(['/app/gone', '/app/r2', '/app/r3']);
    expect([...routed.documents].every(([, n]) => n <= 2)).toBe(true);
    expect([...full.documents].every(([, n]) => n === 1)).toBe(true);
    const urls = ['', ...HISTORY_ROUTES, 'gone'].map((r) => `${site.origin}/app/${r}`);
    expect(sorted(routed.records.filter((r) => r.url.includes('/app/')).map((r) => r.url))).toEqual(sorted(urls));
    const at = (route: string): PageRecord => routed.records.find((r) => r.url === `${site.origin}/app/${route}`)!;
    expect(at('r7').title).toBe('Route seven');
    expect(at('r8')).toMatchObject({ title: 'History app', status: 200, redirectChain: [], finalUrl: `${site.origin}/app/r8` });
    expect(at('r8').links).toContain(`${site.origin}/doc/r8`);
    expect(at('r8').links).not.toContain(`${site.origin}/doc/r7`);
    expect(at('gone').status).toBe(404);
    // The user is told once that the shell was found, and nothing else about routes.
    const shellNotes = routed.notices.filter((m) => m.includes('app shell') || m.includes('routed in place'));
    expect(shellNotes).toEqual([
      `${site.origin} answers ${site.origin}/app/ and ${site.origin}/app/r1 with the same app shell: its other paths are routed in place when the server sends that shell for them (--history-route-reuse)`,
    ]);
    expect(full.notices.filter((m) => m.includes('app shell'))).toEqual([]);
    const byUrl = new Map(full.records.map((r) => [r.url, r]));
    expect(sorted(routed.records.map((r) => r.url))).toEqual(sorted(full.records.map((r) => r.url)));
    for (const r of routed.records) expect(comparable(r), r.url).toBe(comparable(byUrl.get(r.url)!));
  });

  it('are loaded again once a route reads differently from a load (an app that keeps state across routes), or when the app has no popstate listener', async () => {
    for (const base of ['/leaky/', '/static/']) {
      const routed = await crawlApp(base);
      const full = await crawlApp(base, { historyRouteReuse: false });
      expect(routed.boots, base).toBe(14);
      expect(full.boots, base).toBe(14);
      // The leaky app: its first route was checked by a load (two requests), then nothing was routed.
      // The app without a popstate listener: no route was requested before it was found out.
      expect([...routed.documents].filter(([, n]) => n > 1).map(([path]) => path), base).toEqual(base === '/leaky/' ? ['/leaky/r2'] : []);
      expect(routed.records.length, base).toBe(full.records.length);
      const why =
        base === '/leaky/'
          ? `${site.origin}: ${site.origin}/leaky/r2 routed in place read differently from a load of it (status, title or links); its paths are loaded from now on`
          : `${site.origin}: its app shell has no popstate listener; its paths are loaded`;
      expect(routed.notices.filter((m) => m.startsWith(`${site.origin}:`)), base).toEqual([why]);
      const byUrl = new Map(full.records.map((r) => [r.url, r]));
      for (const r of routed.records) expect(comparable(r), r.url).toBe(comparable(byUrl.get(r.url)!));
    }
  });
});
