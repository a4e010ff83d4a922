import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { launchBrowser } from '../src/browser/launch.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlEvent } from '../src/crawl/events.js';
import type { PageRecord } from '../src/model/record.js';

/** The retries a crawl announced, as `path attempt reason: message` (a failed expectation shows why each retry was made). */
function retriesOf(events: CrawlEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'retry' ? [`${new URL(e.url).pathname} ${e.attempt} ${e.reason}: ${e.message}`] : []));
}

let browser: Browser;
let server: FixtureServer;

beforeAll(async () => {
  browser = (await launchBrowser()).browser;
  server = await startFixtureServer((_req, url) => {
    if (url.pathname === '/') return { body: html('Home', '<a href="/hang">h</a> <a href="/fine">f</a>') };
    // Its document arrives and loads; then its main thread never returns, so the crawler's calls
    // into the page (the settle state, reading the DOM) get no answer.
    if (url.pathname === '/hang') return { body: html('Hang', '<a href="/never">n</a><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 20))</script>') };
    if (url.pathname === '/fine') return { body: html('Fine', '') };
    // Loops 300 ms after it loaded, while its settle wait watches a 4 s request instead of asking the page: the
    // sibling below, whose settle reads are under way then, is the first to find the renderer stalled.
    if (url.pathname === '/busy-home') return { body: html('Busy home', '<a href="/hang-late">h</a> <a href="/changing">c</a>') };
    if (url.pathname === '/hang-late') return { body: html('Hang late', '<a href="/never">n</a><script>addEventListener("load", () => { fetch("/slow-api"); setTimeout(() => { for (;;) {} }, 300); })</script>') };
    if (url.pathname === '/slow-api') return { delayMs: 4000, body: '{}' };
    // Changes its DOM every 50 ms for 2 s.
    if (url.pathname === '/changing') return { body: html('Changing', '<p id="n">0</p><script>let n = 0; const t = setInterval(() => { document.getElementById("n").textContent = String(++n); if (n >= 40) clearInterval(t); }, 50)</script>') };
    // Loops 100 ms after it loaded; the crawl's rate starts the visit of /later 700 ms after it, in the stalled renderer.
    if (url.pathname === '/gap-home') return { body: html('Gap home', '<a href="/hang-now">h</a> <a href="/later">l</a>') };
    if (url.pathname === '/hang-now') return { body: html('Hang now', '<a href="/never">n</a><script>addEventListener("load", () => setTimeout(() => { for (;;) {} }, 100))</script>') };
    if (url.pathname === '/later') return { body: html('Later', '<a href="/gap-home">g</a>') };
    if (url.pathname === '/slow-home') return { body: html('Slow home', '<a href="/silent">s</a>') };
    if (url.pathname === '/silent') return { hang: true };
    return { status: 404, body: html('Not found', '') };
  });
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

describe('a page whose main thread hangs after it loaded', () => {
  it('is recorded as unresponsive after one retry, and the crawl goes on', async () => {
    const recs: PageRecord[] = [];
    const events: CrawlEvent[] = [];
    for await (const r of crawl({ seeds: [`${server.origin}/`], browser, concurrency: 2, settleTimeoutMs: 1000, retryBaseMs: 100, onEvent: (e) => events.push(e) })) recs.push(r);
    // The retry is announced with the attempt's error.
    expect(retriesOf(events)).toEqual([expect.stringMatching(/^\/hang 1 browser unresponsive: the browser did not answer \(\w+\): .+ did not finish within \d+ ms$/)]);
    const byPath = new Map(recs.map((r) => [new URL(r.url).pathname, r]));
    expect([...byPath.keys()].sort()).toEqual(['/', '/fine', '/hang']);
    const hang = byPath.get('/hang')!;
    // The answer arrived: its status is kept; the failure is the crawler's calls going unanswered,
    // not a navigation failure, and it was tried twice (a starved browser answers the second time).
    expect(hang.status).toBe(200);
    expect(hang.error?.code).toBe('unresponsive');
    expect(hang.error?.message).toMatch(/^the browser did not answer \(\w+\): .+ did not finish within \d+ ms$/);
    expect(hang.attempts).toBe(2);
    expect(server.count('/hang')).toBe(2);
    expect(server.count('/never')).toBe(0);
    expect(byPath.get('/fine')).toMatchObject({ status: 200, title: 'Fine', error: null, attempts: 1 });
  });
});

describe('a page that hangs the renderer it shares with a sibling', () => {
  it('is the one recorded unresponsive; the sibling stalled behind it is read once, unharmed', async () => {
    const recs: PageRecord[] = [];
    // Concurrency 2: both tabs of one context, one renderer process (see pool.ts), one main thread.
    const events: CrawlEvent[] = [];
    for await (const r of crawl({ seeds: [`${server.origin}/busy-home`], browser, concurrency: 2, settleTimeoutMs: 3000, retryBaseMs: 100, onEvent: (e) => events.push(e) })) recs.push(r);
    expect(retriesOf(events).filter((r) => !r.startsWith('/hang-late 1 '))).toEqual([]);
    const byPath = new Map(recs.map((r) => [new URL(r.url).pathname, r]));
    expect([...byPath.keys()].sort()).toEqual(['/busy-home', '/changing', '/hang-late']);
    expect(byPath.get('/changing')).toMatchObject({ status: 200, title: 'Changing', error: null, attempts: 1 });
    expect(server.count('/changing')).toBe(1);
    const hang = byPath.get('/hang-late')!;
    expect(hang.status).toBe(200);
    expect(hang.error?.code).toBe('unresponsive');
    expect(hang.attempts).toBe(2);
    expect(server.count('/hang-late')).toBe(2);
    expect(server.count('/never')).toBe(0);
  });
});

describe('a visit that begins while a sibling tab already hangs the renderer', () => {
  it('waits for the stop like the calls that read the page: read once, unharmed', async () => {
    const recs: PageRecord[] = [];
    // Every call of that visit waits on the stalled main thread: resuming the paused tab or the
    // navigation, then its settle and DOM reads (a 5 s timeout on resuming failed it, on CI).
    const events: CrawlEvent[] = [];
    for await (const r of crawl({ seeds: [`${server.origin}/gap-home`], browser, concurrency: 2, rate: 1.4, settleTimeoutMs: 3000, retryBaseMs: 100, onEvent: (e) => events.push(e) })) recs.push(r);
    expect(retriesOf(events).filter((r) => !r.startsWith('/hang-now 1 '))).toEqual([]);
    const byPath = new Map(recs.map((r) => [new URL(r.url).pathname, r]));
    expect([...byPath.keys()].sort()).toEqual(['/gap-home', '/hang-now', '/later']);
    expect(byPath.get('/later')).toMatchObject({ status: 200, title: 'Later', error: null, attempts: 1 });
    expect(server.count('/later')).toBe(1);
    expect(byPath.get('/hang-now')).toMatchObject({ status: 200, error: { code: 'unresponsive' }, attempts: 2 });
    expect(server.count('/never')).toBe(0);
  });
});

describe('a document that never answers', () => {
  it('is a navigation timeout, retried as --retries says', async () => {
    const recs: PageRecord[] = [];
    for await (const r of crawl({ seeds: [`${server.origin}/slow-home`], browser, timeoutMs: 1500, retries: 1, retryBaseMs: 100 })) recs.push(r);
    const silent = recs.find((r) => new URL(r.url).pathname === '/silent');
    expect(silent).toMatchObject({ status: null, error: { code: 'timeout', message: 'navigation timed out after 1500 ms' }, attempts: 2 });
    expect(server.count('/silent')).toBe(2);
  });
});
