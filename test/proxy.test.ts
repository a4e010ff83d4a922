import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PAGES, startDemoSite } from '../src/demo/site.js';
import { startLoggingProxy, startSocksProxy, type LoggingProxy } from '../fixtures/proxy.js';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { startDualServer, type DualServer } from '../fixtures/sites/checks.js';
import { launchBrowser } from '../src/browser/launch.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import { HttpClient } from '../src/net/http-client.js';
import type { PageRecord } from '../src/model/record.js';
import { RobotsCache } from '../src/url/robots.js';
import { collect, pagesOf, pathOf, sorted } from './helpers/records.js';

// One browser for the file, launched with the logging proxy: it sees every request the browser
// and the crawl make. CONNECT is allowed to port 443 only (Squid's default); `secure.test:443`
// is tunnelled to a local TLS server, every other CONNECT answered 502 (nothing reaches the internet).
let browser: Browser;
let proxy: LoggingProxy;
let tls: DualServer;
let tmp: string;
const servers: { close(): Promise<void> }[] = [];
/** Hosts (host:port) the tests of this file asked for: everything else in the proxy log is stray. */
const asked = new Set<string>();

beforeAll(async () => {
  tls = await startDualServer((r) => {
    if (r.path === '/robots.txt') return { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' };
    if (r.path === '/') return { body: html('Secure home', '<a href="/a">a</a> <a href="/private">private</a>') };
    if (r.path === '/a') return { body: html('Secure A', '') };
    return { status: 404, body: 'no' };
  });
  servers.push(tls);
  proxy = await startLoggingProxy({ tunnel: (authority) => (authority === 'secure.test:443' ? `127.0.0.1:${tls.port}` : null) });
  servers.push(proxy);
  browser = (await launchBrowser({ proxy: proxy.url })).browser;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-proxy-'));
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.close()));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function crawlThroughProxy(opts: Omit<CrawlOptions, 'browser' | 'proxy'>): Promise<PageRecord[]> {
  for (const s of opts.seeds) asked.add(authorityOf(s));
  return collect(new Crawler({ settleTimeoutMs: 2000, click: 'off', ...opts, proxy: proxy.url, browser }).records());
}

const UA = 'ProxyTestAgent/1.0 spacrawl';

/** `host:port` of a URL, the default port spelled out (as a proxy sees it in CONNECT). */
function authorityOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
}

describe('--proxy: requests outside the browser go through the proxy like the browser\'s', () => {
  let site: FixtureServer;
  let ext: FixtureServer;
  let records: PageRecord[];
  let lines: string[];

  beforeAll(async () => {
    ext = await startFixtureServer((_req, url) => (url.pathname === '/ok' ? { body: 'ok' } : { status: 404, body: 'no' }));
    site = await startFixtureServer((_req, url, self) => {
      const p = url.pathname;
      if (p === '/robots.txt') return { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nDisallow: /private\nSitemap: ${self.origin}/sitemap.xml\n` };
      if (p === '/sitemap.xml') return { headers: { 'content-type': 'application/xml' }, body: `<urlset><url><loc>${self.origin}/orphan</loc></url></urlset>` };
      if (p === '/') return { body: html('Home', `<a href="/private">private</a> <a href="/a">a</a> <a href="${ext.origin}/ok">elsewhere</a>`) };
      if (p === '/a' || p === '/orphan') return { body: html(p.slice(1), '') };
      if (p === '/private') return { body: html('Private', '') };
      return { status: 404, body: html('Not found', '') };
    });
    servers.push(site, ext);
    asked.add(authorityOf(ext.origin));
    const from = proxy.log.length;
    records = await crawlThroughProxy({
      seeds: [`${site.origin}/`],
      userAgent: UA,
      headers: { 'X-Crawl-Token': 'secret' },
      sitemap: true,
      checkExternal: true,
      soft404: false,
    });
    lines = proxy.log.slice(from).map((l) => l.line);
  }, 60_000);

  it('asks for robots.txt, the sitemap and the off-site link in absolute form, with no CONNECT for http://', () => {
    const host = site.origin.slice('http://'.length);
    expect(lines.filter((l) => l.startsWith('CONNECT'))).toEqual([]);
    expect(lines.filter((l) => /robots\.txt|sitemap/.test(l))).toEqual([`GET http://${host}/robots.txt HTTP/1.1`, `GET http://${host}/sitemap.xml HTTP/1.1`]);
    expect(lines.filter((l) => l.includes(ext.origin))).toEqual([`HEAD ${ext.origin}/ok HTTP/1.1`]);
    // Every request reached the site through the proxy.
    expect(site.count('/robots.txt')).toBe(1);
    expect(ext.log.map((r) => `${r.method} ${r.target}`)).toEqual(['HEAD /ok']);
  });

  it('obeys the robots.txt it got through the proxy: /private is never requested', () => {
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/', '/a', '/orphan']);
    expect(records.filter((r) => r.skipped === 'robots').map((r) => pathOf(r.url))).toEqual(['/private']);
    expect(site.count('/private')).toBe(0);
    expect(records.find((r) => pathOf(r.url) === '/')!.linkChecks).toEqual([
      { url: `${ext.origin}/ok`, kind: 'link', method: 'HEAD', status: 200, blockedBy: null, error: null },
    ]);
  });

  it('sends the crawl\'s User-Agent everywhere, and --header only to the crawl\'s own origin', () => {
    const own = proxy.log.filter((l) => l.authority === site.origin.slice('http://'.length));
    const robots = own.find((l) => l.target.endsWith('/robots.txt'))!;
    const doc = own.find((l) => l.target === `${site.origin}/`)!;
    expect(robots.headers['user-agent']).toBe(UA);
    expect(doc.headers['user-agent']).toBe(UA);
    expect(robots.headers['x-crawl-token']).toBe('secret');
    expect(own.find((l) => l.target.endsWith('/sitemap.xml'))!.headers['x-crawl-token']).toBe('secret');
    const offsite = proxy.log.find((l) => l.target === `${ext.origin}/ok`)!;
    expect(offsite.headers['user-agent']).toBe(UA);
    expect(offsite.headers['x-crawl-token']).toBeUndefined();
  });
});

describe('--proxy with https://: CONNECT to port 443 only, then TLS through the tunnel', () => {
  it('crawls https://secure.test/ with robots.txt obeyed, every request through CONNECT secure.test:443', async () => {
    const from = proxy.log.length;
    const before = tls.log.length;
    const records = await crawlThroughProxy({ seeds: ['https://secure.test/'], ignoreHttpsErrors: true, soft404: false });
    const seenByProxy = proxy.log.slice(from);
    // Every request is a CONNECT to secure.test:443. Chromium may open a second connection it then
    // drops (a backup connect when the first is slow, on a busy machine), whose tunnel never ends up
    // used: only that the requests went this way is asserted, and that tunnels carried them.
    expect(new Set(seenByProxy.map((l) => l.line))).toEqual(new Set(['CONNECT secure.test:443 HTTP/1.1']));
    expect(seenByProxy.filter((l) => l.outcome === 'tunnelled').length).toBeGreaterThanOrEqual(1);
    expect(sorted(pagesOf(records).map((r) => `${pathOf(r.url)} ${r.status} ${r.title}`))).toEqual(['/ 200 Secure home', '/a 200 Secure A']);
    expect(records.filter((r) => r.skipped === 'robots').map((r) => pathOf(r.url))).toEqual(['/private']);
    const seen = tls.log.slice(before);
    expect(seen.filter((r) => r.path === '/robots.txt').map((r) => r.scheme)).toEqual(['https']);
    expect(seen.filter((r) => r.path === '/private')).toEqual([]);
  }, 60_000);
});

describe('the HTTP client with other proxies', () => {
  it('reads robots.txt through a SOCKS5 proxy with credentials, the host name resolved by the proxy', async () => {
    const site = await startFixtureServer((_req, url) => (url.pathname === '/robots.txt' ? { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /no\n' } : { status: 404 }));
    const socks = await startSocksProxy({ credentials: { username: 'crawler', password: 'p@ss' }, route: (a) => (a === `robots.test:${site.port}` ? `127.0.0.1:${site.port}` : null) });
    servers.push(site, socks);
    const client = new HttpClient({ userAgent: UA, proxy: `socks5://crawler:p%40ss@127.0.0.1:${socks.port}` });
    const cache = new RobotsCache({ request: client });
    expect(await cache.isAllowed(`http://robots.test:${site.port}/no`)).toBe(false);
    expect(await cache.isAllowed(`http://robots.test:${site.port}/yes`)).toBe(true);
    expect(socks.log).toEqual([{ authority: `robots.test:${site.port}`, username: 'crawler', password: 'p@ss' }]);
    expect(site.log.map((r) => `${r.method} ${r.target} ${r.userAgent}`)).toEqual([`GET /robots.txt ${UA}`]);
  });

  it('sends Proxy-Authorization to an HTTP proxy, and a refused CONNECT is a network error, not the site\'s answer', async () => {
    const from = proxy.log.length;
    asked.add('secure.test:8443');
    const client = new HttpClient({ userAgent: UA, proxy: `http://crawler:secret@127.0.0.1:${proxy.port}`, ignoreHttpsErrors: true });
    const ok = await client.request('https://secure.test/robots.txt', { timeoutMs: 10_000, maxBodyBytes: 1000 });
    expect({ status: ok.status, body: ok.body.toString() }).toEqual({ status: 200, body: 'User-agent: *\nDisallow: /private\n' });
    // CONNECT to another port than 443 is refused by the proxy (403): the origin never answered.
    const refused = await client.request('https://secure.test:8443/robots.txt', { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'network', message: 'the proxy refused CONNECT secure.test:8443 (HTTP 403)' });
    const cache = new RobotsCache({ request: client });
    expect(await cache.outcome('https://secure.test:8443/')).toMatchObject({ kind: 'disallow-all', status: null });
    const auth = `Basic ${Buffer.from('crawler:secret').toString('base64')}`;
    expect(proxy.log.slice(from).map((l) => `${l.line} ${l.headers['proxy-authorization'] === auth}`)).toEqual([
      'CONNECT secure.test:443 HTTP/1.1 true',
      'CONNECT secure.test:8443 HTTP/1.1 true',
      'CONNECT secure.test:8443 HTTP/1.1 true',
    ]);
  });
});

describe('no stray traffic', () => {
  it('a whole crawl of the demo with screenshots makes requests to the demo\'s host only', async () => {
    const demo = await startDemoSite();
    servers.push(demo);
    const from = proxy.log.length;
    const shots = path.join(tmp, 'shots');
    const records = await crawlThroughProxy({ seeds: [`${demo.origin}/`], screenshotsDir: shots, click: 'auto', settleTimeoutMs: 5000 });
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted(DEMO_PAGES));
    expect(fs.readdirSync(shots).filter((f) => f.endsWith('.png'))).toHaveLength(DEMO_PAGES.length);
    const hosts = new Set(proxy.log.slice(from).map((l) => l.authority));
    expect(hosts).toEqual(new Set([demo.origin.slice('http://'.length)]));
  }, 90_000);

  it('a page with a sign-in form makes no request to another host (no autofill queries)', async () => {
    const site = await startFixtureServer(() => ({
      body: html('Sign in', '<form method="post" action="/login"><input type="email" name="email" autocomplete="email"><input type="password" name="password"><input name="address"><button>Go</button></form>'),
    }));
    servers.push(site);
    const from = proxy.log.length;
    const records = await crawlThroughProxy({ seeds: [`${site.origin}/`], maxDepth: 0, soft404: false });
    expect(records.map((r) => `${pathOf(r.url)} ${r.status}`)).toEqual(['/ 200']);
    // Autofill asked its server a moment after the form appeared: wait past that.
    await new Promise((r) => setTimeout(r, 1500));
    expect(new Set(proxy.log.slice(from).map((l) => l.authority))).toEqual(new Set([site.origin.slice('http://'.length)]));
  }, 60_000);

  it('over the browser\'s whole life (launch, contexts, every crawl of this file) the proxy saw only hosts a crawl asked for', () => {
    const stray = proxy.authorities().filter((a) => !asked.has(a));
    expect(stray).toEqual([]);
  });
});
