import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureResponse, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { chromiumChildren } from './helpers/processes.js';
import { DOCUMENT_FETCH_TITLE, gapsOf, NAVIGATION_START_TITLE, navigationStarts } from './helpers/navigation-start.js';
import { crawl } from '../src/crawl/crawler.js';
import { trapNote } from '../src/crawl/traps.js';
import { Politeness, RESERVATION_OPEN_MS } from '../src/crawl/politeness.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

let browser: Browser;
const servers: FixtureServer[] = [];

beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

type Route = FixtureResponse | ((s: FixtureServer, n: number) => FixtureResponse | Promise<FixtureResponse>);

/** A site of fixed routes; `n` is how many times the route was requested before (0 = first). */
async function site(routes: Record<string, Route>): Promise<FixtureServer> {
  const hits = new Map<string, number>();
  const s = await startFixtureServer((_req, url, self) => {
    const key = url.pathname + url.search;
    const r = routes[key] ?? routes[url.pathname];
    const n = hits.get(key) ?? 0;
    hits.set(key, n + 1);
    if (!r) return { status: 404, body: html('Not found', '') };
    return typeof r === 'function' ? r(self, n) : r;
  });
  servers.push(s);
  return s;
}

async function run(opts: Omit<CrawlOptions, 'browser'> & { ownBrowser?: boolean }): Promise<PageRecord[]> {
  const { ownBrowser, ...rest } = opts;
  const out: PageRecord[] = [];
  for await (const r of crawl({ settleTimeoutMs: 1500, retryBaseMs: 200, ...rest, ...(ownBrowser ? {} : { browser }) })) out.push(r);
  return out;
}

const byPath = (recs: PageRecord[], p: string): PageRecord => {
  const r = recs.find((x) => new URL(x.url).pathname + new URL(x.url).search === p);
  if (!r) throw new Error(`no record for ${p}`);
  return r;
};
const docTimes = (s: FixtureServer, p: string): number[] => s.log.filter((r) => r.target === p).map((r) => r.at);

// Cases marked `it.concurrent` share nothing but the worker's Chromium (each has its own site and
// crawl) and mostly wait (backoff, settle windows): each run of them goes at once. The others run
// alone: they crash or kill a renderer or browser that other tabs would share, block a renderer,
// or measure a time between requests where this process's server logs them (another case's work
// in this event loop could log one request late and shrink a gap: Retry-After, --rate, a poller's
// quiet window, the gap rule's own timing).

describe('retries with backoff', () => {
  it.concurrent('503, 503, 200 → three requests and an ok record with attempts 3', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/flaky">f</a>') },
      '/flaky': (_s, n) => (n < 2 ? { status: 503, body: html('Unavailable', '') } : { body: html('Flaky', '') }),
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(s.count('/flaky')).toBe(3);
    expect(byPath(recs, '/flaky')).toMatchObject({ status: 200, attempts: 3, error: null });
  });

  it.concurrent('a redirect whose target answers 503 is retried through to the target: the page is recorded, not a redirect to a page no one recorded', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/old">o</a>') },
      '/old': { status: 301, headers: { location: '/new' } },
      '/new': (_s, n) => (n === 0 ? { status: 503, body: html('Unavailable', '') } : { body: html('New', '') }),
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(s.count('/old')).toBe(2);
    expect(s.count('/new')).toBe(2);
    expect(byPath(recs, '/old')).toMatchObject({ status: 200, title: 'New', redirect: false, attempts: 2, finalUrl: `${s.origin}/new` });
    expect(recs).toHaveLength(2);
  });

  it.concurrent('--retries 0 → one request, the 503 is the record', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/flaky">f</a>') },
      '/flaky': { status: 503, body: html('Unavailable', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`], retries: 0 });
    expect(s.count('/flaky')).toBe(1);
    expect(byPath(recs, '/flaky')).toMatchObject({ status: 503, attempts: 1 });
  });

  it.concurrent('a document whose body never ends is read as far as it came: its title and links kept, its links followed, the timeout reported, no retry', async () => {
    const head = '<!doctype html><html><head><title>Half page</title></head><body><a href="/from-half">more</a>';
    const s = await site({
      '/': { body: html('Home', '<a href="/hang">hang</a>') },
      // The first half of the body, then nothing for 20 s (longer than the crawl waits).
      '/hang': { body: `${head}<!--${'x'.repeat(head.length)}-->`, bodyDelayMs: 20_000 },
      '/from-half': { body: html('From half', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`], timeoutMs: 1500, soft404: false });
    expect(byPath(recs, '/hang')).toMatchObject({ status: 200, title: 'Half page', attempts: 1, error: { code: 'timeout', message: 'DOMContentLoaded not reached within 1500 ms' } });
    expect(byPath(recs, '/hang').links).toEqual([`${s.origin}/from-half`]);
    expect(byPath(recs, '/from-half')).toMatchObject({ status: 200, title: 'From half', error: null });
    expect(s.count('/hang')).toBe(1);
  });

  it.concurrent('a document whose body fails after a good answer is that failure, not a timeout: an undecodable one at once and not retried, one whose connection is lost retried', async () => {
    const head = '<!doctype html><html><head><title>Lost</title></head><body><a href="/after-lost">more</a>';
    const s = await startFixtureServer((req, url) => {
      if (url.pathname === '/') return { body: html('Home', '<a href="/garbled">garbled</a> <a href="/lost">lost</a>') };
      // Says gzip, is not: Chromium cannot decode it.
      if (url.pathname === '/garbled') return { headers: { 'content-encoding': 'gzip' }, body: html('Garbled', '<a href="/never">never</a>') };
      // Half a page, then the connection is cut.
      if (url.pathname === '/lost') {
        setTimeout(() => req.socket.destroy(), 300);
        return { body: `${head}<!--${'x'.repeat(head.length)}-->`, bodyDelayMs: 20_000 };
      }
      return { body: html(`Page ${url.pathname}`, '') };
    });
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], timeoutMs: 20_000, soft404: false, retries: 1 });
    expect(byPath(recs, '/garbled')).toMatchObject({ status: 200, title: null, attempts: 1, error: { code: 'network', message: 'ERR_CONTENT_DECODING_FAILED' } });
    expect(byPath(recs, '/lost')).toMatchObject({ status: 200, title: 'Lost', attempts: 2, error: { code: 'network' } });
    expect(byPath(recs, '/lost').error?.message).toMatch(/^ERR_(CONTENT_LENGTH_MISMATCH|INCOMPLETE_CHUNKED_ENCODING|CONNECTION_RESET|CONNECTION_CLOSED)$/);
    expect(byPath(recs, '/after-lost')).toMatchObject({ status: 200, error: null });
    expect([s.count('/garbled'), s.count('/lost'), s.count('/never')]).toEqual([1, 2, 0]);
  });

  it.concurrent('network errors that repeat on every attempt are not retried: a redirect loop, a refused port', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/loop">l</a>') },
      '/loop': { status: 302, headers: { location: '/loop' }, body: '' },
    });
    const recs = await run({ seeds: [`${s.origin}/`, 'http://127.0.0.1:9/'], ignoreRobots: true });
    // Chromium gives up at its 20th redirect: 20 requests for one attempt (60 with the 2 retries).
    expect(s.count('/loop')).toBe(20);
    expect(byPath(recs, '/loop')).toMatchObject({ attempts: 1, error: { code: 'network', message: 'ERR_TOO_MANY_REDIRECTS' } });
    // Port 9 is on Chromium's list of restricted ports: the browser refuses it without a request.
    expect(byPath(recs, '/')).toBeDefined();
    const refused = recs.find((r) => r.url === 'http://127.0.0.1:9/')!;
    expect(refused).toMatchObject({ attempts: 1, error: { code: 'network', message: 'ERR_UNSAFE_PORT' } });
  });

  it.concurrent('an error status with an empty body is that status, not a network error: a 404 is final, a 503 is retried', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/empty404">a</a> <a href="/empty503">b</a>') },
      '/empty404': { status: 404, body: '' },
      '/empty503': { status: 503, body: '' },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(byPath(recs, '/empty404')).toMatchObject({ status: 404, error: null, attempts: 1, links: [] });
    expect(byPath(recs, '/empty503')).toMatchObject({ status: 503, error: null, attempts: 3 });
    expect([s.count('/empty404'), s.count('/empty503')]).toEqual([1, 3]);
  });

  it.concurrent('terminal statuses (404, 410) are not retried', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/gone">g</a> <a href="/missing">m</a>') },
      '/gone': { status: 410, body: html('Gone', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect([s.count('/gone'), s.count('/missing')]).toEqual([1, 1]);
    expect([byPath(recs, '/gone').status, byPath(recs, '/missing').status]).toEqual([410, 404]);
  });
  it('429 with Retry-After: 2 → the next request comes at least 1.9 s later, and the page succeeds', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/limited">l</a>') },
      '/limited': (_s, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '2' }, body: html('Slow down', '') } : { body: html('Limited', '') }),
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    const t = docTimes(s, '/limited');
    expect(t).toHaveLength(2);
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(1900);
    expect(byPath(recs, '/limited')).toMatchObject({ status: 200, title: 'Limited', attempts: 2, error: null });
  });

  it('Retry-After pauses the whole host, not only the URL that got it', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/limited">l</a> <a href="/slow">s</a>') },
      // Answered 300 ms after `/limited` was asked (its tab may start late on a busy machine), so
      // that `/after`, found here, is asked for after the 429 (within 5 s).
      '/slow': async (self) => {
        for (const t0 = Date.now(); self.count('/limited') === 0 && Date.now() - t0 < 5_000; ) await new Promise((r) => setTimeout(r, 20));
        return { body: html('Slow', '<a href="/after">a</a>'), delayMs: 300 };
      },
      '/after': { body: html('After', '') },
      '/limited': (_s, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '2' }, body: '' } : { body: html('Limited', '') }),
    });
    await run({ seeds: [`${s.origin}/`], concurrency: 2 });
    const limitedAt = docTimes(s, '/limited')[0]!;
    const afterAt = docTimes(s, '/after')[0]!;
    expect(afterAt - limitedAt).toBeGreaterThanOrEqual(1900);
  });

  it('a Retry-After reached through a redirect from another host pauses the host that answered', async () => {
    // A redirects every path to B (an apex or http: name of B); B's 429 asks B to wait, so B's
    // other pages wait too, and the URL on A is asked again only after the pause.
    let bOrigin = '';
    const a = await startFixtureServer((_req, url) => ({ status: 301, headers: { location: `${bOrigin}${url.pathname}` } }));
    servers.push(a);
    const b = await site({
      '/': { body: html('Home', `<a href="${a.origin}/limited">l</a> <a href="/slow">s</a>`) },
      // As in the case above: `/after` is found after the 429 (within 5 s).
      '/slow': async (self) => {
        for (const t0 = Date.now(); self.count('/limited') === 0 && Date.now() - t0 < 5_000; ) await new Promise((r) => setTimeout(r, 20));
        return { body: html('Slow', '<a href="/after">a</a>'), delayMs: 300 };
      },
      '/after': { body: html('After', '') },
      '/limited': (_s, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '2' }, body: '' } : { body: html('Limited', '') }),
    });
    bOrigin = b.origin;
    const recs = await run({ seeds: [`${a.origin}/`], concurrency: 2 });
    const limited = docTimes(b, '/limited');
    expect(limited).toHaveLength(2);
    expect(docTimes(a, '/limited')).toHaveLength(2);
    expect(limited[1]! - limited[0]!).toBeGreaterThanOrEqual(1900);
    expect(docTimes(b, '/after')[0]! - limited[0]!).toBeGreaterThanOrEqual(1900);
    expect(recs.find((r) => r.url === `${a.origin}/limited`)).toMatchObject({ status: 200, title: 'Limited', attempts: 2 });
  });
});

describe('per-host politeness', () => {
  for (const limit of [{ rate: 20 }, { perHostConcurrency: 1 }] as const) {
    it.concurrent(`--max-pages 3 holds at concurrency 4 with ${JSON.stringify(limit)}: URLs parked for their host count against the budget`, async () => {
      const links = Array.from({ length: 8 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
      const pages: Record<string, Route> = { '/': { body: html('Home', links) } };
      for (let i = 0; i < 8; i++) pages[`/p${i}`] = { body: html(`P${i}`, '') };
      const s = await site(pages);
      const recs = await run({ seeds: [`${s.origin}/`], ...limit, concurrency: 4, maxPages: 3, settleTimeoutMs: 500 });
      expect(s.documents()).toHaveLength(3);
      expect(recs.filter((r) => r.skipped === null)).toHaveLength(3);
      expect(recs.filter((r) => r.skipped === 'budget')).toHaveLength(6);
    });
  }

  it.concurrent('--per-host-concurrency 1 keeps one document in flight on the host (and reaches 1)', async () => {
    const links = Array.from({ length: 4 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
    const pages: Record<string, Route> = { '/': { body: html('Home', links) } };
    for (let i = 0; i < 4; i++) pages[`/p${i}`] = { body: html(`P${i}`, ''), delayMs: 300 };
    const s = await site(pages);
    await run({ seeds: [`${s.origin}/`], concurrency: 4, perHostConcurrency: 1, settleTimeoutMs: 400 });
    expect(s.documents()).toHaveLength(5);
    expect(s.peakDocumentsInFlight()).toBe(1);
  });
  it('--rate 2 starts a host\'s navigations >= 500 ms apart (by the browser\'s clock), and no further', async () => {
    const links = Array.from({ length: 5 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
    const pages: Record<string, Route> = { '/': { body: html('Home', links + NAVIGATION_START_TITLE) } };
    for (let i = 0; i < 5; i++) pages[`/p${i}`] = { body: html(`P${i}`, NAVIGATION_START_TITLE) };
    const s = await site(pages);
    const recs = await run({ seeds: [`${s.origin}/`], rate: 2, concurrency: 4, settleTimeoutMs: 500 });
    expect(recs.filter((r) => r.status === 200)).toHaveLength(6);
    expect(s.documents()).toHaveLength(6);
    const d = navigationStarts(recs);
    expect(d).toHaveLength(6);
    const gaps = gapsOf(d);
    // The crawler lets a navigation go 525 ms (the gap and its margin) after it heard that the one
    // before had sent its request, which that navigation started before. Without --rate they
    // start ~0-50 ms apart.
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(500);
    // The five children were all queued at once: with concurrency 4 they go out at the rate, not slower.
    const childGaps = gaps.slice(1);
    expect(Math.min(...childGaps)).toBeLessThan(800);
  });

  it('--rate on a two-host crawl holds per host: a waiting host does not hold back the other', async () => {
    const stamped = (title: string, body = ''): Route => ({ body: html(title, body + NAVIGATION_START_TITLE) });
    const nav = '<a href="/1">1</a> <a href="/2">2</a> <a href="/3">3</a>';
    const a = await site({ '/': stamped('A', nav), '/1': stamped('A1'), '/2': stamped('A2'), '/3': stamped('A3') });
    const b = await site({ '/': stamped('B', nav), '/1': stamped('B1'), '/2': stamped('B2'), '/3': stamped('B3') });
    const recs = await run({ seeds: [`${a.origin}/`, `${b.origin}/`], rate: 1, concurrency: 4, settleTimeoutMs: 400 });
    expect(recs.filter((r) => r.status === 200)).toHaveLength(8);
    for (const s of [a, b]) {
      expect(s.documents()).toHaveLength(4);
      const d = navigationStarts(recs.filter((r) => r.url.startsWith(s.origin)));
      expect(d).toHaveLength(4);
      for (const g of gapsOf(d)) expect(g).toBeGreaterThanOrEqual(1000);
    }
    // Interleaved: B's second page does not wait for A's last one.
    expect(b.documents()[1]!.at).toBeLessThan(a.documents()[3]!.at);
  });

  it('a redirect to another host passes that host\'s gap: pages B gets through a redirect from A and through its own links are spaced alike', async () => {
    // B's pages link to B both directly and through host A, which redirects every path to B (a
    // site whose links name the apex or http: while it is served from www or https). Every
    // document request B gets counts against B's gap, whichever host the link named.
    let bOrigin = '';
    const a = await startFixtureServer((_req, url) => ({ status: 301, headers: { location: `${bOrigin}${url.pathname}` } }));
    servers.push(a);
    const links = [0, 1, 2].flatMap((i) => [`<a href="${a.origin}/a${i}">a${i}</a>`, `<a href="/b${i}">b${i}</a>`]).join(' ');
    const routes: Record<string, Route> = { '/': { body: html('B', links + DOCUMENT_FETCH_TITLE) } };
    for (let i = 0; i < 3; i++) routes[`/a${i}`] = routes[`/b${i}`] = { body: html(`P${i}`, DOCUMENT_FETCH_TITLE) };
    const bSite = await site(routes);
    bOrigin = bSite.origin;
    // The seed is A's: where it lands (B) joins the scope.
    const recs = await run({ seeds: [`${a.origin}/`], rate: 2, concurrency: 4, settleTimeoutMs: 400 });
    expect(recs.filter((r) => r.status === 200 && r.skipped === null)).toHaveLength(7);
    expect(a.documents().map((d) => d.path).sort()).toEqual(['/', '/a0', '/a1', '/a2']);
    const docs = bSite.documents();
    expect(docs.map((d) => d.path).sort()).toEqual(['/', '/a0', '/a1', '/a2', '/b0', '/b1', '/b2']);
    // --rate 2: 525 ms with the margin, by the browser's clock (when it began fetching each of B's
    // documents, after any redirect). Before the hop passed B's gate, a page reached through A came
    // ~250 ms after one of B's own; while a hop counted as sent when its gate opened, not when its
    // request went out, the next page could come that round trip early (logged 424 ms apart in CI).
    const d = navigationStarts(recs);
    expect(d).toHaveLength(7);
    for (const g of gapsOf(d)) expect(g).toBeGreaterThanOrEqual(500);
  });

  it('the gap counts from the request that went out, not from its reserved time', async () => {
    const p = new Politeness({ ratePerSecond: 2, perHostConcurrency: null }); // 525 ms with the margin
    const t0 = Date.now();
    const first = await p.beforeNavigate('h:80');
    expect(Date.now() - t0).toBeLessThan(50);
    // The first request left 200 ms after its slot (a busy machine): the second waits for 200 + 525 ms.
    p.sent(first, t0 + 200);
    await p.beforeNavigate('h:80');
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(724);
    expect(took).toBeLessThan(1_500);
  });

  it('a later reservation waits for an earlier one whose request has not gone out yet, and not for one whose visit ended without it', async () => {
    const p = new Politeness({ ratePerSecond: 4, perHostConcurrency: null }); // 262.5 ms with the margin
    const first = await p.beforeNavigate('h:80');
    let secondAt = 0;
    const second = p.beforeNavigate('h:80').then((t) => ((secondAt = Date.now()), t));
    // The first request goes out only 700 ms after its slot (a slow goto): the second, due at
    // 262 ms, waits for it and then for the gap after it.
    await new Promise((r) => setTimeout(r, 700));
    expect(secondAt).toBe(0);
    const sentAt = Date.now();
    p.sent(first, sentAt);
    const ticket = await second;
    // The gap counts from the send (the 700 ms timer itself may fire a millisecond early).
    expect(secondAt - sentAt).toBeGreaterThanOrEqual(262);
    expect(secondAt - sentAt).toBeLessThan(262 + 500);
    // A visit that ended before its request went out (a route attempt that fell back, a failure)
    // holds no one: the next goes at its slot, not RESERVATION_OPEN_MS later.
    const t1 = Date.now();
    const fourth = p.beforeNavigate('h:80');
    await new Promise((r) => setTimeout(r, 400));
    p.done(ticket);
    p.done(await fourth);
    expect(Date.now() - t1).toBeLessThan(RESERVATION_OPEN_MS / 2);
  });

});

describe('hostile pages', () => {
  it.concurrent('dialogs are answered and recorded; popups become links; downloads are cancelled and recorded', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/alert">a</a> <a href="/popup">p</a> <a href="/download">d</a>') },
      '/alert': { body: html('Alert', '<script>alert("hello"); confirm("sure?");</script><a href="/after-alert">next</a>') },
      '/after-alert': { body: html('After alert', '') },
      '/popup': { body: html('Popup', '<script>window.open("/from-popup", "_blank")</script>') },
      '/from-popup': { body: html('From popup', '') },
      '/download': { body: html('Download', '<a id="d" download href="/file.bin">file</a><script>document.getElementById("d").click()</script>') },
      '/file.bin': { headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename=file.bin' }, body: 'x'.repeat(1000) },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(byPath(recs, '/alert').dialogs).toEqual([
      { type: 'alert', message: 'hello' },
      { type: 'confirm', message: 'sure?' },
    ]);
    expect(byPath(recs, '/after-alert').status).toBe(200);
    expect(byPath(recs, '/popup').links).toEqual([`${s.origin}/from-popup`]);
    expect(s.count('/from-popup')).toBe(1);
    expect(byPath(recs, '/download').downloads).toEqual([`${s.origin}/file.bin`]);
  });

  // The browser makes a download's request itself: the page's network events show nothing until
  // it begins, so only the page's own click on the link says that one is under way. It holds the
  // settle up to the cap (10 s here: a busy machine may take long for the download to begin);
  // 1.5 s is past the full 500 ms quiet window, which once settled the page without it.
  for (const delayMs of [400, 1_500]) {
    it.concurrent(`a script-clicked download whose response takes ${delayMs} ms is still recorded (no settle while it is pending)`, async () => {
      const s = await site({
        '/': { body: html('Slow download', '<a id="d" download href="/slow.bin">file</a><script>document.getElementById("d").click()</script>') },
        '/slow.bin': { headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename=slow.bin' }, body: 'x'.repeat(1000), delayMs },
      });
      const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 0, settleTimeoutMs: 10_000 });
      expect(byPath(recs, '/').downloads).toEqual([`${s.origin}/slow.bin`]);
      expect(byPath(recs, '/').settled).toBe(true);
      expect(s.count('/slow.bin')).toBe(1);
    });
  }

  it.concurrent('a download click a handler cancels, or one to another origin, holds nothing (the page settles before the cap)', async () => {
    const s = await site({
      '/': {
        body: html(
          'Cancelled download',
          '<a id="d" download href="/never.bin">file</a><a id="x" download href="http://localhost:1/x.bin" target="_blank">x</a>' +
            '<script>const d = document.getElementById("d"); d.addEventListener("click", (e) => e.preventDefault()); d.click();' +
            'document.getElementById("x").click()</script>',
        ),
      },
      '/never.bin': { body: 'x' },
    });
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 0, settleTimeoutMs: 4_000 });
    expect(byPath(recs, '/').downloads).toEqual([]);
    // Held until the cap, the record would say settled: false.
    expect(byPath(recs, '/').settled).toBe(true);
    expect(s.count('/never.bin')).toBe(0);
  });

  it.concurrent('a download the page starts before DOMContentLoaded is a download of the page, not its main document', async () => {
    const s = await site({
      '/': { body: html('Early download', '<a id="d" download href="/early.bin">file</a><script>document.getElementById("d").click()</script><script src="/slow.js"></script>') },
      '/early.bin': { headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename=early.bin' }, body: 'x'.repeat(1000) },
      '/slow.js': { headers: { 'content-type': 'text/javascript' }, body: '', delayMs: 400 },
    });
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 0 });
    expect(byPath(recs, '/')).toMatchObject({ status: 200, title: 'Early download', downloads: [`${s.origin}/early.bin`] });
    expect(byPath(recs, '/').contentType).toMatch(/^text\/html/);
  });

  it.concurrent('a 50 MB PDF is recorded from its headers: never rendered, body not read, no download', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024, 0x20);
    big.write('%PDF-1.4\n');
    const s = await site({
      '/': { body: html('Home', '<a href="/big.pdf">pdf</a> <a href="/after">a</a>') },
      // Half the body now, the rest after 30 s: a crawl that read the body could not end before.
      '/big.pdf': { headers: { 'content-type': 'application/pdf' }, body: big, bodyDelayMs: 30_000 },
      '/after': { body: html('After', '') },
    });
    const t0 = Date.now();
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(byPath(recs, '/big.pdf')).toMatchObject({ status: 200, contentType: 'application/pdf', title: null, links: [], skipped: 'non-html', error: null, screenshot: null });
    expect(s.count('/big.pdf')).toBe(1);
    expect(byPath(recs, '/after').status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(28_000);
  });

  it.concurrent('a calendar with endless ?month= links stops at --max-query-variants with skipped: trap, and a notice says so and how to visit more', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/calendar?month=1">calendar</a>') },
      '/calendar': { body: html('Calendar', '<script>const m = Number(new URLSearchParams(location.search).get("month")); document.write(`<h1>Month ${m}</h1><a href="/calendar?month=${m + 1}">next</a>`)</script>') },
    });
    const notices: string[] = [];
    const recs = await run({ seeds: [`${s.origin}/`], maxQueryVariants: 5, onNotice: (m) => notices.push(m) });
    expect(notices.filter((m) => m.includes('trap'))).toEqual(['URLs skipped as a crawl trap (more than 5 query variants on /calendar); --max-query-variants N visits more']);
    const visited = recs.filter((r) => r.skipped === null && r.url.includes('/calendar'));
    expect(visited.map((r) => new URL(r.url).search)).toEqual(['?month=1', '?month=2', '?month=3', '?month=4', '?month=5']);
    expect(recs.filter((r) => r.skipped === 'trap').map((r) => new URL(r.url).search)).toEqual(['?month=6']);
    expect(s.log.filter((r) => r.path === '/calendar')).toHaveLength(5);
  });

  it.concurrent('a calendar whose every month links to the next and the previous (/cal/2024/1) stops at --max-query-variants dates with skipped: trap', async () => {
    const s = await startFixtureServer((_req, url) => {
      if (url.pathname === '/') return { body: html('Home', '<a href="/cal/2024/1">calendar</a>') };
      const m = /^\/cal\/(\d{4})\/(\d{1,2})$/.exec(url.pathname);
      if (!m) return { status: 404, body: html('Not found', '') };
      const at = Number(m[1]) * 12 + Number(m[2]) - 1;
      const month = (n: number): string => `/cal/${Math.floor(n / 12)}/${(n % 12) + 1}`;
      return { body: html(`Month ${m[1]}-${m[2]}`, `<a href="${month(at + 1)}">next</a> <a href="${month(at - 1)}">previous</a>`) };
    });
    servers.push(s);
    const recs = await run({ seeds: [`${s.origin}/`], maxQueryVariants: 5, concurrency: 1, soft404: false });
    const paths = (skipped: string | null): string[] => recs.filter((r) => r.skipped === skipped && r.url.includes('/cal/')).map((r) => new URL(r.url).pathname).sort();
    expect(paths(null)).toEqual(['/cal/2023/11', '/cal/2023/12', '/cal/2024/1', '/cal/2024/2', '/cal/2024/3']);
    expect(paths('trap')).toEqual(['/cal/2023/10', '/cal/2024/4']);
    expect(s.log.filter((r) => r.path.startsWith('/cal/'))).toHaveLength(5);
  });

  it.concurrent('speculation rules (prefetch, prerender; in the HTML, inserted by a script (also inside an appended subtree, or inserted empty and filled later), named by a Speculation-Rules header, eager document rules, hover and pointer-down ones) make no request: a URL robots.txt disallows or no link names is never asked for, a linked one once', async () => {
    const rules = (json: object): string => `<script type="speculationrules">${JSON.stringify(json)}</script>`;
    const s = await site({
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' },
      '/': {
        body: html(
          'Home',
          '<a href="/a">a</a> <a href="/hdr">h</a> <button onclick="void 0">menu</button>' +
            rules({ prerender: [{ source: 'list', urls: ['/private/pre'] }], prefetch: [{ source: 'list', urls: ['/private/fetch', '/unlinked'] }] }) +
            rules({ prefetch: [{ where: { href_matches: '/*' }, eagerness: 'immediate' }], prerender: [{ where: { href_matches: '/*' }, eagerness: 'moderate' }] }) +
            `<script>const s = document.createElement('script'); s.type = 'SpeculationRules'; s.textContent = ${JSON.stringify(JSON.stringify({ prefetch: [{ source: 'list', urls: ['/private/scripted'] }] }))}; document.head.append(s);</script>` +
            // Inside a subtree the script appends in one go: the script is not a node the record added.
            `<script>const box = document.createElement('div'); const n = document.createElement('script'); n.type = 'speculationrules'; n.textContent = ${JSON.stringify(JSON.stringify({ prefetch: [{ source: 'list', urls: ['/private/nested'] }] }))}; box.append(n); document.body.append(box);</script>` +
            // Inserted empty, made a rule later (an empty script has not started: filling it prepares it).
            `<script>const late = document.createElement('script'); document.head.append(late); setTimeout(() => { late.type = 'speculationrules'; late.textContent = ${JSON.stringify(JSON.stringify({ prefetch: [{ source: 'list', urls: ['/private/late'] }] }))}; }, 30);</script>`,
        ),
      },
      '/a': { body: html('A', '<p>a</p>') },
      // Rules named by a Speculation-Rules header.
      '/hdr': { headers: { 'speculation-rules': '"/rules.json"' }, body: html('Header', '<p>h</p>') },
      '/rules.json': { headers: { 'content-type': 'application/speculationrules+json' }, body: JSON.stringify({ prefetch: [{ source: 'list', urls: ['/private/by-header'] }] }) },
      '/private/by-header': { body: html('By header', '') },
      '/unlinked': { body: html('Unlinked', '') },
      '/private/pre': { body: html('Pre', '') },
      '/private/fetch': { body: html('Fetch', '') },
      '/private/scripted': { body: html('Scripted', '') },
      '/private/nested': { body: html('Nested', '') },
      '/private/late': { body: html('Late', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`], soft404: false, click: 'all' });
    expect(recs.map((r) => [new URL(r.url).pathname, r.status]).sort()).toEqual([
      ['/', 200],
      ['/a', 200],
      ['/hdr', 200],
    ]);
    expect(['/', '/a', '/hdr', '/unlinked', '/private/pre', '/private/fetch', '/private/scripted', '/private/nested', '/private/late', '/rules.json', '/private/by-header'].map((p) => s.count(p))).toEqual([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it.concurrent('repeating path segments are a trap', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="a/b/">loop</a>') },
      '/a/b/': { body: html('AB', '<a href="a/b/">deeper</a>') },
      '/a/b/a/b/': { body: html('ABAB', '<a href="a/b/">deeper</a>') },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(recs.filter((r) => r.skipped === null).map((r) => new URL(r.url).pathname)).toEqual(['/', '/a/b/', '/a/b/a/b/']);
    expect(recs.filter((r) => r.skipped === 'trap').map((r) => new URL(r.url).pathname)).toEqual(['/a/b/a/b/a/b/']);
    expect(trapNote('repeating path segments')).toBe('URLs skipped as a crawl trap (repeating path segments)');
  });
  it('a page that polls forever is paused when its visit ends; its late requests and logs stay out of the next record', async () => {
    const s = await site({
      '/': { body: html('Poller', '<a href="/next">next</a><script>setInterval(() => { console.error("tick"); fetch("/poll"); }, 50)</script>') },
      '/poll': { body: 'ok', delayMs: 200 },
      '/next': { body: html('Next', '') },
    });
    // rate 0.15: the tab waits ~7 s between the two visits, on the poller's page (time for a first
    // visit slowed by a busy machine to end well before the next navigation).
    const recs = await run({ seeds: [`${s.origin}/`], rate: 0.15, concurrency: 1, settleTimeoutMs: 600, soft404: false });
    const first = byPath(recs, '/');
    const next = byPath(recs, '/next');
    expect(first.consoleErrors.length).toBeGreaterThan(0);
    expect(next.status).toBe(200);
    expect(next.consoleErrors).toEqual([]);
    expect(next.failedRequests).toEqual([]);
    const [tFirst, tNext] = s.documents().map((d) => d.at);
    const pollTimes = docTimes(s, '/poll');
    // Chromium runs requests for one URL one at a time (cache lock): a poll every 200 ms, in a
    // 600 ms settle cap; two prove it repeats (a starved renderer may make only two).
    expect(pollTimes.length).toBeGreaterThanOrEqual(2);
    // No poll between the end of the first visit (plus 1 s, for a poll already on its way on a busy
    // machine) and the next navigation: a window of at least 1.5 s, in which a page left running
    // would have polled ~7 times.
    const from = tFirst! + first.timings.total! + 1000;
    const to = tNext! - 100;
    expect(tNext! - tFirst!).toBeGreaterThanOrEqual(6500);
    expect(to - from).toBeGreaterThanOrEqual(1500);
    expect(pollTimes.filter((t) => t > from && t < to)).toEqual([]);
  });

  it('more than 10 dialogs end the visit with too-many-dialogs and the crawl goes on', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/loop">l</a> <a href="/fine">f</a>') },
      '/loop': { body: html('Loop', '<script>for (;;) alert("again")</script><a href="/never">n</a>') },
      '/fine': { body: html('Fine', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`], timeoutMs: 5000 });
    expect(byPath(recs, '/loop').error?.code).toBe('too-many-dialogs');
    expect(byPath(recs, '/loop').dialogs).toHaveLength(10);
    expect(byPath(recs, '/fine').status).toBe(200);
    expect(s.count('/never')).toBe(0);
    expect(s.count('/loop')).toBe(1); // a page whose document arrived is not retried
  });

  it('an endless dialog loop is stopped, not left holding the renderer the other tabs share: the pages beside it load', async () => {
    // Shared case 17 (dialogs), at concurrency 4: four tabs of one context, one renderer process.
    const s = await site({
      '/': { body: html('Home', ['/alert', '/leave', '/prompts', '/loop'].map((p) => `<a href="${p}">${p}</a>`).join(' ')) },
      '/alert': { body: html('Alert', '<script>alert("hi")</script><a href="/after-alert">a</a>') },
      '/leave': { body: html('Leave', '<script>confirm("sure?"); addEventListener("beforeunload", (e) => { e.preventDefault(); e.returnValue = ""; })</script><a href="/after-leave">a</a>') },
      '/prompts': { body: html('Prompts', '<script>for (let i = 0; i < 8; i++) prompt("name?"); document.write(\'<a href="/after-prompts">a</a>\')</script>') },
      '/loop': { body: html('Loop', '<script>for (;;) alert("again")</script><a href="/never">n</a>') },
      '/after-alert': { body: html('After', '') },
      '/after-leave': { body: html('After', '') },
      '/after-prompts': { body: html('After', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 4, timeoutMs: 5000, settleTimeoutMs: 3000, retries: 0 });
    expect(byPath(recs, '/loop').error?.code).toBe('too-many-dialogs');
    const rest = ['/alert', '/leave', '/prompts', '/after-alert', '/after-leave', '/after-prompts'];
    expect(rest.map((p) => ({ p, status: byPath(recs, p)?.status, error: byPath(recs, p)?.error }))).toEqual(rest.map((p) => ({ p, status: 200, error: null })));
    expect(byPath(recs, '/prompts').dialogs).toHaveLength(8);
    expect(s.count('/never')).toBe(0);
  });

  it('a renderer crash records page-crashed and the crawl goes on', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/crash">c</a> <a href="/ok">o</a>') },
      '/crash': { body: html('Crash', '<p>about to crash</p>') },
      '/ok': { body: html('OK', '') },
    });
    // Crash the renderer of whichever crawler page loads /crash (Page.crash over CDP).
    const hooked = new WeakSet<object>();
    const hook = setInterval(() => {
      for (const ctx of browser.contexts()) {
        if (hooked.has(ctx)) continue;
        hooked.add(ctx);
        ctx.on('page', (page) => {
          page.on('load', () => {
            if (!page.url().endsWith('/crash')) return;
            ctx
              .newCDPSession(page)
              .then((cdp) => cdp.send('Page.crash'))
              .catch(() => {});
          });
        });
      }
    }, 10);
    try {
      const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
      expect(byPath(recs, '/crash').error?.code).toBe('page-crashed');
      expect(byPath(recs, '/crash').attempts).toBe(1);
      expect(byPath(recs, '/ok').status).toBe(200);
    } finally {
      clearInterval(hook);
    }
  });

});

describe('browser failures', () => {
  it('killing Chromium mid-crawl: the browser is relaunched and the crawl finishes with every page', async () => {
    const links = Array.from({ length: 8 }, (_, i) => `<a href="/p${i}">p${i}</a>`).join(' ');
    const pages: Record<string, Route> = { '/': { body: html('Home', links) } };
    for (let i = 0; i < 8; i++) pages[`/p${i}`] = { body: html(`P${i}`, ''), delayMs: 400 };
    const s = await site(pages);
    const notices: string[] = [];
    let killed = 0;
    // The shared test browser is already a child and must survive.
    const before = new Set(chromiumChildren());
    const killer = setInterval(() => {
      if (killed || s.documents().length < 3) return;
      for (const pid of chromiumChildren()) {
        if (!before.has(pid)) {
          try {
            process.kill(pid, 'SIGKILL');
            killed++;
          } catch {
            // already gone
          }
        }
      }
    }, 50);
    try {
      const recs = await run({ seeds: [`${s.origin}/`], ownBrowser: true, concurrency: 2, onNotice: (m) => notices.push(m) });
      expect(killed).toBeGreaterThan(0);
      expect(notices.some((n) => /relaunch/.test(n))).toBe(true);
      expect(recs.filter((r) => r.status === 200).map((r) => new URL(r.url).pathname).sort()).toEqual(['/', ...Array.from({ length: 8 }, (_, i) => `/p${i}`)].sort());
    } finally {
      clearInterval(killer);
    }
  });
});

