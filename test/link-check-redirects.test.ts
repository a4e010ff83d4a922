import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureResponse, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { Crawler } from '../src/crawl/crawler.js';
import { HttpClient } from '../src/net/http-client.js';
import { audit } from '../src/report/audit.js';
import type { PageRecord } from '../src/model/record.js';
import { collect } from './helpers/records.js';

/** A header value Node writes byte for byte: the UTF-8 bytes of `s`, one Latin-1 character each. */
const utf8Bytes = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

let browser: Browser;
let site: FixtureServer;
let ext: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  // Off-site answers a browser follows to a 200, and a client that reads redirects less well to an error.
  ext = await startFixtureServer((req, url): FixtureResponse => {
    const cookie = req.headers.cookie ?? '';
    switch (url.pathname) {
      // A consent gate: without its cookie, a redirect to itself that sets it.
      case '/gate':
        if (!/(^|; )seen=1(;|$)/.test(cookie)) return { status: 302, headers: { location: '/gate', 'set-cookie': ['seen=1; Path=/; HttpOnly', 'other=x; Max-Age=0'] } };
        return { body: html('Gate', 'in') };
      // Each hop sets a cookie for a later one, under another path.
      case '/login/start':
        return { status: 302, headers: { location: '/docs/page', 'set-cookie': 'sid=abc; Path=/docs' } };
      case '/docs/page':
        return cookie === 'sid=abc' ? { body: html('Docs', 'docs') } : { status: 302, headers: { location: '/login/start' } };
      // Never ends, cookie or not.
      case '/loop':
        return { status: 302, headers: { location: '/loop', 'set-cookie': 'n=1' } };
      // Raw UTF-8 in Location, as many servers send it; and a Latin-1 byte that is no UTF-8.
      case '/moved-utf8':
        return { status: 301, headers: { location: utf8Bytes('/café au lait') } };
      case '/caf%C3%A9%20au%20lait':
        return { body: html('Café', 'ok') };
      case '/moved-latin1':
        return { status: 301, headers: { location: '/caf\u00e9' } };
      case '/caf%E9':
        return { body: html('Latin-1', 'ok') };
      default:
        return { status: 404, body: html('Not found', 'nope') };
    }
  });
  const links = ['/gate', '/login/start', '/loop', '/moved-utf8', '/moved-latin1'].map((p) => `<a href="${ext.origin}${p}">${p}</a>`).join(' ');
  site = await startFixtureServer((_req, url) => (url.pathname === '/' ? { body: html('Home', `<h1>Home</h1>${links}`) } : { status: 404, body: html('Not found', 'no') }));
});
afterAll(async () => {
  await site?.close();
  await ext?.close();
});

describe('--check-external follows redirects as a browser does', () => {
  let records: PageRecord[];
  beforeAll(async () => {
    const crawler = new Crawler({ seeds: [`${site.origin}/`], settleTimeoutMs: 2000, click: 'off', checkExternal: true, browser });
    records = await collect(crawler.records());
  });

  it('sends the cookies a redirect set on the next hops: a consent gate or a session hop is no redirect loop', () => {
    const checks = new Map(records.find((r) => r.url === `${site.origin}/`)!.linkChecks.map((c) => [c.url.slice(ext.origin.length), c]));
    expect(checks.get('/gate')).toMatchObject({ method: 'HEAD', status: 200, error: null });
    expect(checks.get('/login/start')).toMatchObject({ method: 'HEAD', status: 200, error: null });
    expect(checks.get('/loop')).toMatchObject({ status: null, error: { code: 'network', message: 'more than 10 redirects' } });
  });

  it('reads a Location in raw UTF-8 as UTF-8, and escapes a Latin-1 byte as it came', () => {
    const checks = new Map(records.find((r) => r.url === `${site.origin}/`)!.linkChecks.map((c) => [c.url.slice(ext.origin.length), c]));
    expect(checks.get('/moved-utf8')).toMatchObject({ method: 'HEAD', status: 200, error: null });
    expect(checks.get('/moved-latin1')).toMatchObject({ method: 'HEAD', status: 200, error: null });
    expect(ext.count('/caf%C3%A9%20au%20lait')).toBeGreaterThan(0);
    expect(ext.log.some((r) => r.target.includes('%C3%83'))).toBe(false);
  });

  it('reports the loop alone as a broken link', () => {
    const broken = audit(records).issues.filter((i) => i.rule === 'broken-link').map((i) => i.url);
    expect(broken).toEqual([`${ext.origin}/loop`]);
  });
});

describe('HttpClient', () => {
  it('forgets a chain\'s cookies when its request ends: the next request to the gate starts without them', async () => {
    const client = new HttpClient({ userAgent: 'spacrawl-test' });
    ext.reset();
    for (let i = 0; i < 2; i++) {
      const res = await client.request(`${ext.origin}/gate`, { method: 'GET', timeoutMs: 5000, maxRedirects: 5 });
      expect(res.status).toBe(200);
    }
    expect(ext.count('/gate')).toBe(4);
  });

  it('sends the chain\'s cookies after a --header Cookie of its own', async () => {
    let seen = '';
    const echo = await startFixtureServer((req, url) => {
      if (url.pathname === '/a') return { status: 302, headers: { location: '/b', 'set-cookie': 'hop=1' } };
      seen = req.headers.cookie ?? '';
      return { body: 'ok' };
    });
    try {
      const client = new HttpClient({ userAgent: 'spacrawl-test', headersFor: () => ({ Cookie: 'mine=2' }) });
      await client.request(`${echo.origin}/a`, { method: 'GET', timeoutMs: 5000, maxRedirects: 5 });
      expect(seen).toBe('mine=2; hop=1');
    } finally {
      await echo.close();
    }
  });
});

describe('--check-fragments through a redirect that names a fragment of its own', () => {
  it('judges /old#x by the fragment the Location names, not the link\'s: the browser lands on /new#y', async () => {
    const docs = await startFixtureServer((_req, url): FixtureResponse => {
      switch (url.pathname) {
        case '/':
          return { body: html('Home', '<h1>Home</h1><a href="/old#x">named</a> <a href="/moved#gone">kept</a>') };
        case '/old':
          return { status: 301, headers: { location: '/new#y' } };
        case '/moved':
          return { status: 301, headers: { location: '/other' } };
        case '/new':
          return { body: html('New', '<h1 id="y">New</h1>') };
        case '/other':
          return { body: html('Other', '<h1 id="here">Other</h1>') };
        default:
          return { status: 404, body: html('Not found', 'no') };
      }
    });
    try {
      const crawler = new Crawler({ seeds: [`${docs.origin}/`], settleTimeoutMs: 2000, click: 'off', checkFragments: true, browser });
      const records = await collect(crawler.records());
      const broken = audit(records)
        .issues.filter((i) => i.rule === 'broken-fragment')
        .map((i) => i.url.slice(docs.origin.length))
        .sort();
      // The link's fragment still goes along a redirect without one of its own (/moved#gone → /other).
      expect(broken).toEqual(['/moved#gone']);
      // /old was the page /new was rendered for (no direct link to /new came first).
      expect(records.find((r) => r.url === `${docs.origin}/old`)).toMatchObject({ redirect: false, finalUrl: `${docs.origin}/new#y`, anchors: ['y'] });
    } finally {
      await docs.close();
    }
  });
});

describe('--check-external asks again after a transient failure, as the crawl does for its pages', () => {
  it('a 503 that passes and a reset connection are no broken links; a 503 that stays is, after --retries GETs; a 429 and a 404 are asked once', async () => {
    const answers = new Map<string, number>();
    const flaky = await startFixtureServer((req, url): FixtureResponse => {
      const n = (answers.get(url.pathname) ?? 0) + 1;
      answers.set(url.pathname, n);
      switch (url.pathname) {
        case '/deploying':
          return n <= 2 ? { status: 503, headers: { 'retry-after': '0' } } : { body: 'ok' };
        case '/reset':
          if (n <= 2) req.socket.destroy();
          return n <= 2 ? { hang: true } : { body: 'ok' };
        case '/down':
          return { status: 503, headers: { 'retry-after': '0' } };
        case '/busy':
          return { status: 429, headers: { 'retry-after': '0' } };
        default:
          return { status: 404 };
      }
    });
    const paths = ['/deploying', '/reset', '/down', '/busy', '/gone'];
    const home = await startFixtureServer(() => ({ body: html('Home', `<h1>Home</h1>${paths.map((p) => `<a href="${flaky.origin}${p}">${p}</a>`).join(' ')}`) }));
    try {
      const crawler = new Crawler({ seeds: [`${home.origin}/`], settleTimeoutMs: 2000, click: 'off', checkExternal: true, retries: 2, browser });
      const records = await collect(crawler.records());
      const checks = new Map(records[0]!.linkChecks.map((c) => [c.url.slice(flaky.origin.length), c]));
      expect(checks.get('/deploying')).toMatchObject({ method: 'GET', status: 200, error: null });
      expect(checks.get('/reset')).toMatchObject({ status: 200, error: null });
      expect(checks.get('/down')).toMatchObject({ method: 'GET', status: 503 });
      // HEAD, GET, and 2 more GETs.
      expect(flaky.log.filter((r) => r.path === '/down').map((r) => r.method)).toEqual(['HEAD', 'GET', 'GET', 'GET']);
      expect(flaky.log.filter((r) => r.path === '/busy').map((r) => r.method)).toEqual(['HEAD']);
      expect(flaky.log.filter((r) => r.path === '/gone').map((r) => r.method)).toEqual(['HEAD', 'GET']);
      const broken = audit(records).issues.filter((i) => i.rule === 'broken-link').map((i) => i.url.slice(flaky.origin.length)).sort();
      expect(broken).toEqual(['/down', '/gone']);
    } finally {
      await home.close();
      await flaky.close();
    }
  });
});

describe('--check-external when HEAD gets no answer', () => {
  it('asks with GET after a HEAD that timed out: a server that never answers HEAD is no broken link; one that answers nothing still is', async () => {
    const headless = await startFixtureServer((req, url): FixtureResponse => {
      if (url.pathname === '/no-head') return req.method === 'HEAD' ? { hang: true } : { body: 'ok' };
      return { hang: true };
    });
    const home = await startFixtureServer(() => ({ body: html('Home', `<h1>Home</h1><a href="${headless.origin}/no-head">a</a> <a href="${headless.origin}/silent">b</a>`) }));
    try {
      const crawler = new Crawler({ seeds: [`${home.origin}/`], settleTimeoutMs: 2000, click: 'off', checkExternal: true, timeoutMs: 2000, browser });
      const records = await collect(crawler.records());
      const checks = new Map(records[0]!.linkChecks.map((c) => [c.url.slice(headless.origin.length), c]));
      expect(checks.get('/no-head')).toMatchObject({ method: 'GET', status: 200, error: null });
      expect(checks.get('/silent')).toMatchObject({ method: 'GET', status: null, error: { code: 'timeout', message: 'no answer within 2000 ms' } });
      expect(headless.log.filter((r) => r.path === '/silent').map((r) => r.method)).toEqual(['HEAD', 'GET']);
      expect(audit(records).issues.filter((i) => i.rule === 'broken-link').map((i) => i.url)).toEqual([`${headless.origin}/silent`]);
    } finally {
      await home.close();
      await headless.close();
    }
  });
});
