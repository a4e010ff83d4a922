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
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureResponse } from '../fixtures/server.js';
import { crawl } from '../src/crawl/crawler.js';
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
