import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import type { FixtureServer } from '../fixtures/server.js';
import { startRobotsAgentSite, startRoutedAppSite, startSlowSite } from '../fixtures/sites/judge.js';
import { sharedBrowser } from './helpers/browser.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import { audit } from '../src/report/audit.js';
import type { PageRecord } from '../src/model/record.js';
import { expectWellFormed } from './helpers/records.js';

// What the crawl judges about a page, in real Chromium against real local servers: robots
// rules addressed to named agents (issue 14 point 4), soft 404s (point 6), slow pages (point 12).

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
  const crawler = new Crawler({ settleTimeoutMs: 2000, click: 'off', ...opts, browser });
  const recs: PageRecord[] = [];
  for await (const r of crawler.records()) recs.push(r);
  return { recs, crawler };
}

const visited = (recs: PageRecord[]): string[] =>
  recs
    .filter((r) => r.skipped === null)
    .map((r) => new URL(r.url).pathname)
    .sort();
const byPath = (recs: PageRecord[], path: string): PageRecord => {
  const r = recs.find((x) => new URL(x.url).pathname === path);
  if (!r) throw new Error(`no record for ${path}`);
  return r;
};

describe('robots rules addressed to another agent are not ours', () => {
  it('X-Robots-Tag: otherbot: nofollow leaves links followed; spacrawl: nofollow stops them; <meta name> likewise', async () => {
    const s = keep(await startRobotsAgentSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], soft404: false });
    expect(visited(recs)).toEqual(
      ['/', '/from-general-noindex', '/from-hdr-lines', '/from-hdr-other', '/from-meta-other', '/general-noindex', '/hdr-lines', '/hdr-other', '/hdr-ours', '/meta-other', '/meta-ours'].sort(),
    );
    for (const p of ['/from-hdr-ours', '/from-meta-ours']) expect(s.count(p), p).toBe(0);
    const flags = (p: string) => ({ noindex: byPath(recs, p).noindex, nofollow: byPath(recs, p).nofollow });
    expect(flags('/hdr-other')).toEqual({ noindex: false, nofollow: false });
    expect(flags('/hdr-ours')).toEqual({ noindex: false, nofollow: true });
    expect(flags('/hdr-lines')).toEqual({ noindex: false, nofollow: false });
    expect(flags('/meta-other')).toEqual({ noindex: false, nofollow: false });
    expect(flags('/meta-ours')).toEqual({ noindex: false, nofollow: true });
    // General noindex and our own "all": the more restrictive applies.
    expect(flags('/general-noindex')).toEqual({ noindex: true, nofollow: false });
    // The links of a nofollow page are still recorded.
    expect(byPath(recs, '/hdr-ours').links).toEqual([`${s.origin}/from-hdr-ours`]);
  });

  it('"ours" is the --robots-agent token: with otherbot, otherbot\'s rules apply and spacrawl\'s do not', async () => {
    const s = keep(await startRobotsAgentSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], soft404: false, robotsAgent: 'OtherBot' });
    expect(visited(recs)).toEqual(
      ['/', '/from-general-noindex', '/from-hdr-ours', '/from-meta-ours', '/general-noindex', '/hdr-lines', '/hdr-other', '/hdr-ours', '/meta-other', '/meta-ours'].sort(),
    );
    expect({ noindex: byPath(recs, '/hdr-lines').noindex, nofollow: byPath(recs, '/hdr-lines').nofollow }).toEqual({ noindex: true, nofollow: true });
    expect({ noindex: byPath(recs, '/meta-other').noindex, nofollow: byPath(recs, '/meta-other').nofollow }).toEqual({ noindex: true, nofollow: true });
    expect(byPath(recs, '/general-noindex').noindex).toBe(true);
  });
});

describe('soft 404s: evidence that a page is the site\'s not-found screen', () => {
  it('learns the not-found screen of an app mounted at /app/ by probing there; a guide about 404 errors is not a soft 404', async () => {
    const s = keep(await startRoutedAppSite());
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    expectWellFormed(recs);
    expect(visited(recs)).toEqual(['/', '/app/', '/app/reports', '/app/reports/old', '/app/reports/q3', '/guide/fixing-404', '/old-promo']);
    const soft = recs.filter((r) => r.soft404).map((r) => [new URL(r.url).pathname, r.soft404Reason]);
    expect(soft.sort()).toEqual([
      ['/app/reports/old', 'fingerprint'],
      ['/old-promo', 'not-found-heading'],
    ]);
    // Every record has the field; null when not a soft 404.
    for (const r of recs) expect(r.soft404Reason, r.url).toBe(r.soft404 ? r.soft404Reason : null);
    expect(Object.keys(byPath(recs, '/guide/fixing-404'))).toContain('soft404Reason');
    // One probe per route prefix of the pages found: / (an HTML 404 page), /app/ (the app's
    // screen), /guide/ (the same 404 page); none produces a record. Each probe request: its
    // prefix, and whether the browser made it (a navigation) or the plain request. After the
    // root's 404 page was rendered, later probes ask over plain HTTP first: /guide/ answers with
    // the same 404 document, so it is not rendered again; /app/ answers with its shell (a 200),
    // which only rendering tells.
    const probes = s.log.filter((r) => r.path.includes('spacrawl-probe')).map((r) => `${r.path.replace(/spacrawl-probe-[a-z0-9]+$/, '*')} ${r.dest === 'document' ? 'rendered' : 'plain'}`);
    expect(probes.sort()).toEqual(['/* rendered', '/app/* plain', '/app/* rendered', '/guide/* plain']);
    expect(recs.some((r) => r.url.includes('spacrawl-probe'))).toBe(false);
  });

  it('on a server that answers unknown paths with no page (text/plain), later probes ask over plain HTTP first and render only what answers with a page: the app\'s screen is still learned', async () => {
    const s = keep(await startRoutedAppSite('text'));
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    expect(visited(recs)).toEqual(['/', '/app/', '/app/reports', '/app/reports/old', '/app/reports/q3', '/guide/fixing-404', '/old-promo']);
    const soft = recs.filter((r) => r.soft404).map((r) => [new URL(r.url).pathname, r.soft404Reason]);
    expect(soft.sort()).toEqual([
      ['/app/reports/old', 'fingerprint'],
      ['/old-promo', 'not-found-heading'],
    ]);
    // Each probe request: its prefix, and whether the browser made it (a navigation) or the plain request.
    const probes = s.log.filter((r) => r.path.includes('spacrawl-probe')).map((r) => `${r.path.replace(/spacrawl-probe-[a-z0-9]+$/, '*')} ${r.dest === 'document' ? 'rendered' : 'plain'}`);
    // The root probe is rendered (nothing is known of the server yet) and answers text/plain;
    // /guide/ then costs one plain request and no tab; /app/ answers with a page, so it is
    // rendered after its plain request.
    expect(probes.sort()).toEqual(['/* rendered', '/app/* plain', '/app/* rendered', '/guide/* plain']);
  });

  it('a 404 page that differs from path to path (it names the path) is rendered for each probe, after its plain request', async () => {
    const s = keep(await startRoutedAppSite('html-path'));
    const { recs } = await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    expect(visited(recs)).toEqual(['/', '/app/', '/app/reports', '/app/reports/old', '/app/reports/q3', '/guide/fixing-404', '/old-promo']);
    expect(recs.filter((r) => r.soft404).map((r) => new URL(r.url).pathname).sort()).toEqual(['/app/reports/old', '/old-promo']);
    const probes = s.log.filter((r) => r.path.includes('spacrawl-probe')).map((r) => `${r.path.replace(/spacrawl-probe-[a-z0-9]+$/, '*')} ${r.dest === 'document' ? 'rendered' : 'plain'}`);
    expect(probes.sort()).toEqual(['/* rendered', '/app/* plain', '/app/* rendered', '/guide/* plain', '/guide/* rendered']);
  });
});

describe('slow-page: what the servers did, not how busy the crawler was', () => {
  it('flags the page that waited for a slow API, not the one whose own script kept the CPU busy', async () => {
    const s = keep(await startSlowSite(2500, 3000));
    const { recs } = await run({ seeds: [`${s.origin}/`], settleTimeoutMs: 8000, soft404: false, concurrency: 1 });
    expect(visited(recs)).toEqual(['/', '/busy', '/fast', '/slow-api']);
    const slowApi = byPath(recs, '/slow-api');
    const busy = byPath(recs, '/busy');
    expect(slowApi.timings.serverWaitMs!).toBeGreaterThanOrEqual(2500);
    // The busy page settled late (its script ran for 3 s) but hardly waited for its server.
    expect(busy.timings.settledMs!).toBeGreaterThan(3000);
    expect(busy.timings.serverWaitMs!).toBeLessThan(2000);
    const issues = audit(recs, { slowMs: 2000 }).issues.filter((i) => i.rule === 'slow-page');
    expect(issues.map((i) => new URL(i.url).pathname)).toEqual(['/slow-api']);
    expect(issues[0]!.message).toMatch(/^waited \d+ ms for servers to answer \(threshold 2000 ms/);
  });
});
