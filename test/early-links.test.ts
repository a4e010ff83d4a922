/**
 * Links offered while discovery goes on (src/crawl/early-links.ts): the anchors a page shows, and
 * the links each click found, are in the frontier while the page is still clicking, so another
 * tab visits them meanwhile.
 *
 * The site proves it from the server's side: the seed's button fetches `/api/more`, which the
 * server answers only once `/a` (an anchor of the seed) has been requested, and its answer
 * renders the link to `/b`. If `/a` waited for the seed's visit to end, the click's waits would
 * run out first and `/b` would never be found. `/menu` does the same with the links of a click:
 * its first button reveals `/x`, and its second button's answer waits for `/x` to be requested.
 *
 * The second site is the other side of it: a link a page finds late (by a click) that a deeper
 * page, visited meanwhile, reported first. Its depth and referrer are the nearer page's, and with
 * `maxDepth` it is visited, not skipped for the budget (depth is the fewest link steps from a seed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisServerPath, startRedis, type RedisServer } from '../fixtures/redis-server.js';
import { startFixtureServer, type FixtureResponse } from '../fixtures/server.js';
import { crawlKeyOf } from '../src/crawl/crawl-key.js';
import { crawl } from '../src/crawl/crawler.js';
import type { Frontier } from '../src/store/frontier.js';
import { RedisFrontier } from '../src/store/redis/frontier.js';
import { SqliteFrontier } from '../src/store/sqlite/frontier.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { sharedBrowser } from './helpers/browser.js';
import { expectWellFormed, pagesOf, pathOf, sorted } from './helpers/records.js';

/** Longest hold (ms) of `/api/more` when `/a` never comes: far past the click's waits (1 s + 2 s). */
const HOLD_MS = 15_000;

const SEED = `<!doctype html><title>Seed</title><a href="/a">A</a><button id="more">More</button><div id="out"></div>
<script>document.getElementById('more').addEventListener('click', () => {
  fetch('/api/more').then((r) => r.text()).then((href) => {
    const a = document.createElement('a'); a.href = href; a.textContent = 'B'; document.getElementById('out').append(a);
  });
});</script>`;

const MENU = `<!doctype html><title>Menu</title><button id="one">Group one</button><button id="two">Group two</button><div id="out"></div>
<script>
const out = document.getElementById('out');
const add = (href) => { if (out.querySelector('a[href="' + href + '"]')) return; const a = document.createElement('a'); a.href = href; a.textContent = href; out.append(a); };
document.getElementById('one').addEventListener('click', () => add('/x'));
document.getElementById('two').addEventListener('click', () => { fetch('/api/more2').then((r) => r.text()).then(add); });
</script>`;

interface Site {
  origin: string;
  /** What the server saw, in order: `GET <path>` per request, `answered /api/more (…)` when it answered. */
  events: string[];
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const events: string[] = [];
  /** A held answer: released by a request for `path` (or after {@link HOLD_MS}). */
  const gate = (): { release: (why: string) => void; opened: Promise<string> } => {
    let release: (why: string) => void = () => {};
    const opened = new Promise<string>((resolve) => (release = resolve));
    return { release, opened };
  };
  const gates: Record<string, ReturnType<typeof gate>> = { '/a': gate(), '/x': gate() };
  const hold = async (api: string, by: string, answer: string): Promise<FixtureResponse> => {
    const g = gates[by]!;
    const timer = setTimeout(() => g.release('timed out'), HOLD_MS);
    const why = await g.opened;
    clearTimeout(timer);
    events.push(`answered ${api} (${why})`);
    return { headers: { 'content-type': 'text/plain' }, body: answer };
  };
  const server = await startFixtureServer((_req, url) => {
    const path = url.pathname;
    events.push(`GET ${path}`);
    if (path === '/') return { body: SEED };
    if (path === '/menu') return { body: MENU };
    gates[path]?.release(`after ${path}`);
    if (['/a', '/b', '/x', '/y'].includes(path)) return { body: `<!doctype html><title>${path}</title><a href="/">home</a>` };
    if (path === '/api/more') return hold(path, '/a', '/b');
    if (path === '/api/more2') return hold(path, '/x', '/y');
    return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
  });
  return { origin: server.origin, events, close: () => server.close() };
}

let browser: Browser;
let site: Site;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startSite();
});

afterAll(async () => {
  await site?.close();
});

describe('links offered while discovery goes on', () => {
  it("a page's anchors are visited while it is still clicking: the click's answer, held until then, reveals one more page", async () => {
    const records: PageRecord[] = [];
    for await (const r of crawl({ seeds: [`${site.origin}/`], concurrency: 2, maxDepth: 1, soft404: false, browser })) records.push(r);
    expectWellFormed(records);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url))), site.events.join(', ')).toEqual(['/', '/a', '/b']);
    const seed = records.find((r) => pathOf(r.url) === '/')!;
    // Clicked again because its first click revealed a link (as a "Load more" is); the second revealed nothing new.
    expect(seed.clickDiscovery?.made).toBe(2);
    expect(sorted(seed.links.map(pathOf))).toEqual(['/a', '/b']);
    // `/a` was requested before the click's request was answered (while it was held, or, on a busy
    // machine, even before the click was made: the anchors are offered before the first click),
    // and that is what released it.
    expect(site.events).toContain('answered /api/more (after /a)');
    expect(site.events.indexOf('GET /a')).toBeLessThan(site.events.indexOf('answered /api/more (after /a)'));
    // Each page was requested once; the button's request once per click.
    for (const p of ['/', '/a', '/b']) expect(site.events.filter((e) => e === `GET ${p}`), p).toHaveLength(1);
    expect(site.events.filter((e) => e === 'GET /api/more')).toHaveLength(2);
  });

  it('the links of a click are visited while the page goes on clicking: the next click\'s answer, held until then, reveals one more page', async () => {
    const records: PageRecord[] = [];
    for await (const r of crawl({ seeds: [`${site.origin}/menu`], concurrency: 2, maxDepth: 1, soft404: false, browser })) records.push(r);
    expectWellFormed(records);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url))), site.events.join(', ')).toEqual(['/menu', '/x', '/y']);
    const menu = records.find((r) => pathOf(r.url) === '/menu')!;
    expect(sorted(menu.links.map(pathOf))).toEqual(['/x', '/y']);
    expect(site.events).toContain('answered /api/more2 (after /x)');
    expect(site.events.indexOf('GET /x')).toBeGreaterThan(site.events.indexOf('GET /menu'));
    expect(site.events.indexOf('GET /x')).toBeLessThan(site.events.indexOf('answered /api/more2 (after /x)'));
    for (const p of ['/menu', '/x', '/y']) expect(site.events.filter((e) => e === `GET ${p}`), p).toHaveLength(1);
  });
});

/**
 * `/` links to `/a.html` and has a button whose answer (`/api/more`, 1.2 s or more) renders a link
 * to `/b.html`; `/a.html` links to `/b.html` too, and `/b.html` to `/c.html`. The first answer also
 * waits (at most 2.4 s, within the click's waits of 1 s + 2 s) until the test has read the record
 * of `/a.html`: the deeper page has then reported `/b.html` (at depth 2) before the seed does (at
 * depth 1), whatever the machine's speed.
 */
async function startLateSite(aRecorded: Promise<void>): Promise<Site> {
  const events: string[] = [];
  const page = (title: string, body: string): string => `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;
  const home = page(
    'Home',
    `<a href="/a.html">A</a> <button id="b">Show more</button><div id="o"></div>
<script>document.getElementById('b').onclick=async()=>{const j=await (await fetch('/api/more')).json();document.getElementById('o').innerHTML='<a href="'+j+'">B</a>';}</script>`,
  );
  let answers = 0;
  const server = await startFixtureServer(async (_req, url) => {
    const path = url.pathname;
    events.push(`GET ${path}`);
    if (path === '/') return { body: home };
    if (path === '/api/more') {
      const first = ++answers === 1;
      await Promise.all([new Promise((r) => setTimeout(r, 1_200)), first ? Promise.race([aRecorded, new Promise((r) => setTimeout(r, 2_400))]) : null]);
      events.push('answered /api/more');
      return { headers: { 'content-type': 'application/json' }, body: '"/b.html"' };
    }
    if (path === '/a.html') return { body: page('A', '<a href="/b.html">B</a>') };
    if (path === '/b.html') return { body: page('B', '<a href="/c.html">C</a>') };
    if (path === '/c.html') return { body: page('C', '') };
    return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
  });
  return { origin: server.origin, events, close: () => server.close() };
}

/** A frontier store for one crawl of the late-link site, and how to read back what it stored. */
interface LateStore {
  name: string;
  /** Not run here (no redis-server). */
  skipped: boolean;
  /** The store for a crawl of `seed` (`undefined`: the crawl's own memory store). */
  open(seed: string): Promise<Frontier | undefined>;
  /** The records the store kept, once the crawl closed it (none for memory). */
  stored(): Promise<PageRecord[]>;
}

/** redis-server is missing here (and not required): the Redis case is skipped, loudly (as test/store/helpers.ts does). */
const noRedis = redisServerPath() === null && !process.env.CI && !process.env.SPACRAWL_REQUIRE_REDIS;
if (noRedis) process.stderr.write('\n*** test/early-links.test.ts: the Redis case is SKIPPED: redis-server is not installed ***\n\n');
let redis: RedisServer | undefined;
let stateDir: string | undefined;
const collect = async (f: Frontier): Promise<PageRecord[]> => {
  const out: PageRecord[] = [];
  try {
    for await (const r of f.records()) out.push(r);
  } finally {
    await f.close();
  }
  return out;
};
const LATE_STORES: LateStore[] = [
  { name: 'memory', skipped: false, open: async () => undefined, stored: async () => [] },
  {
    name: 'SQLite',
    skipped: false,
    open: async (seed) => {
      stateDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-late-'));
      return SqliteFrontier.open(path.join(stateDir, 'late.db'), { crawlKey: crawlKeyOf({ seeds: [seed] }) });
    },
    stored: async () => collect(SqliteFrontier.open(path.join(stateDir!, 'late.db'), { crawlKey: { seeds: [], scope: '' }, keepKey: true })),
  },
  {
    name: 'Redis',
    skipped: noRedis,
    open: async (seed) => {
      redis ??= await startRedis();
      return RedisFrontier.open(redis.url, { crawlId: `late-${process.pid}`, crawlKey: crawlKeyOf({ seeds: [seed] }), heartbeat: false });
    },
    stored: async () => collect(await RedisFrontier.open(redis!.url, { crawlId: `late-${process.pid}`, crawlKey: null, heartbeat: false })),
  },
];

afterAll(async () => {
  await redis?.dispose();
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true });
});

/** Crawl the late-link site from `/`; the records, and what its server saw (`record /a.html` where the test read that record). */
async function crawlLateSite(extra: Partial<CrawlOptions>, store?: LateStore): Promise<{ records: PageRecord[]; events: string[]; origin: string }> {
  let recordedA: () => void = () => {};
  const late = await startLateSite(new Promise<void>((r) => (recordedA = r)));
  const records: PageRecord[] = [];
  try {
    const frontier = await store?.open(`${late.origin}/`);
    for await (const r of crawl({ seeds: [`${late.origin}/`], concurrency: 2, soft404: false, browser, ...(frontier ? { frontier } : {}), ...extra })) {
      records.push(r);
      if (pathOf(r.url) === '/a.html') {
        late.events.push('record /a.html');
        recordedA();
      }
    }
  } finally {
    await late.close();
  }
  return { records, events: late.events, origin: late.origin };
}

describe('a link found late on a page keeps the depth and referrer of the nearest page that reports it', () => {
  it.each(LATE_STORES.filter((s) => !s.skipped))('maxDepth 1 ($name frontier): /b.html, reported first by the deeper /a.html, is visited at depth 1 from the seed; /c.html is skipped for the budget, never requested', async (store) => {
    const { records, events, origin } = await crawlLateSite({ maxDepth: 1 }, store);
    expectWellFormed(records);
    // The deeper page reported /b.html before the seed's click found it.
    expect(events.indexOf('record /a.html'), events.join(', ')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('record /a.html')).toBeLessThan(events.indexOf('answered /api/more'));
    const byPath = new Map(records.map((r) => [pathOf(r.url), r]));
    expect(sorted(byPath.keys())).toEqual(['/', '/a.html', '/b.html', '/c.html']);
    expect(records).toHaveLength(4);
    const b = byPath.get('/b.html')!;
    expect({ depth: b.depth, referrer: b.referrer, status: b.status, title: b.title, skipped: b.skipped }).toEqual({ depth: 1, referrer: `${origin}/`, status: 200, title: 'B', skipped: null });
    expect(byPath.get('/')!.links.map(pathOf)).toEqual(['/a.html', '/b.html']);
    expect(byPath.get('/a.html')).toMatchObject({ depth: 1, referrer: `${origin}/`, status: 200, links: [`${origin}/b.html`] });
    const c = byPath.get('/c.html')!;
    expect({ depth: c.depth, referrer: c.referrer, status: c.status, skipped: c.skipped }).toEqual({ depth: 2, referrer: `${origin}/b.html`, status: null, skipped: 'budget' });
    expect(events).not.toContain('GET /c.html');
    expect(events.filter((e) => e === 'GET /b.html')).toHaveLength(1);
    // A store that keeps records kept the same ones.
    if (store.name !== 'memory') expect(sorted((await store.stored()).map((r) => `${pathOf(r.url)} ${r.depth} ${r.referrer === null ? '-' : pathOf(r.referrer)} ${r.skipped ?? r.status}`))).toEqual(['/ 0 - 200', '/a.html 1 / 200', '/b.html 1 / 200', '/c.html 2 /b.html budget']);
  });

  it('no maxDepth: a free tab visits /b.html as soon as /a.html reports it (depth 2); the seed\'s later report changes nothing, nothing is requested twice', async () => {
    const { records, events, origin } = await crawlLateSite({});
    expectWellFormed(records);
    expect(events.indexOf('record /a.html'), events.join(', ')).toBeLessThan(events.indexOf('answered /api/more'));
    const byPath = new Map(records.map((r) => [pathOf(r.url), r]));
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/', '/a.html', '/b.html', '/c.html']);
    expect(records).toHaveLength(4);
    // Visits do not wait for the seed, which still clicks: /b.html keeps the depth it was visited at.
    expect(byPath.get('/b.html')).toMatchObject({ depth: 2, referrer: `${origin}/a.html`, status: 200, title: 'B' });
    expect(byPath.get('/c.html')).toMatchObject({ depth: 3, referrer: `${origin}/b.html`, status: 200, title: 'C' });
    for (const p of ['/', '/a.html', '/b.html', '/c.html']) expect(events.filter((e) => e === `GET ${p}`), p).toHaveLength(1);
  });
});
