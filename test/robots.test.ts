import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { HttpClient } from '../src/net/http-client.js';
import { html, startFixtureServer, type FixtureResponse, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { gapsOf, NAVIGATION_START_TITLE, navigationStarts } from './helpers/navigation-start.js';
import { Crawler, crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { SummaryCounter } from '../src/report/summary.js';
import { summaryLine } from '../src/report/terminal.js';
import { RobotsCache } from '../src/url/robots.js';

let browser: Browser;
let api: HttpClient;
const servers: FixtureServer[] = [];

beforeAll(async () => {
  browser = await sharedBrowser();
  api = new HttpClient({ userAgent: 'spacrawl-test' });
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** A static site: path → response; everything else 404. */
async function site(routes: Record<string, FixtureResponse | ((s: FixtureServer) => FixtureResponse)>): Promise<FixtureServer> {
  const s = await startFixtureServer((_req, url, self) => {
    const r = routes[url.pathname + url.search] ?? routes[url.pathname];
    if (!r) return { status: 404, body: html('Not found', 'no such page') };
    return typeof r === 'function' ? r(self) : r;
  });
  servers.push(s);
  return s;
}

async function run(opts: Omit<CrawlOptions, 'browser'>): Promise<PageRecord[]> {
  const out: PageRecord[] = [];
  for await (const r of crawl({ settleTimeoutMs: 2000, ...opts, browser })) out.push(r);
  return out;
}

const pathsOf = (recs: PageRecord[], pred: (r: PageRecord) => boolean): string[] =>
  recs
    .filter(pred)
    .map((r) => new URL(r.url).pathname)
    .sort();

const text = (body: string): FixtureResponse => ({ headers: { 'content-type': 'text/plain' }, body });

describe('robots.txt status handling (RFC 9309 §2.3.1)', () => {
  it('a 404 robots.txt allows everything', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/a">a</a> <a href="/private">p</a>') },
      '/a': { body: html('A', '') },
      '/private': { body: html('P', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(pathsOf(recs, (r) => r.skipped === null)).toEqual(['/', '/a', '/private']);
    expect(s.count('/robots.txt')).toBe(1);
  });

  it('a 500 robots.txt disallows the whole origin, and says so on the record and in a notice', async () => {
    const s = await site({ '/robots.txt': { status: 500, body: 'oops' }, '/': { body: html('Home', '') } });
    const notices: string[] = [];
    const crawler = new Crawler({ seeds: [`${s.origin}/`, `${s.origin}/other`], browser, settleTimeoutMs: 1500, onNotice: (m) => notices.push(m) });
    const recs: PageRecord[] = [];
    const counter = new SummaryCounter();
    for await (const r of crawler.records()) {
      recs.push(r);
      counter.add(r);
    }
    expect(recs).toHaveLength(2);
    expect(recs.map((r) => r.skipped)).toEqual(['robots', 'robots']);
    expect(recs[0]!.error?.code).toBe('robots-unavailable');
    expect(recs[0]!.error?.message).toContain('HTTP 500');
    expect(s.count('/')).toBe(0);
    const said = `robots.txt of ${s.origin} unusable (HTTP 500): treating the whole origin as disallowed`;
    expect(notices).toContain(said);
    // The summary keeps it too, once.
    expect(crawler.result().notes).toEqual([said]);
    // Both skips are counted as robots.txt skips, and both as "could not be fetched", not as rules.
    const summary = counter.snapshot(0, crawler.result().endReason);
    expect([summary.robotsSkipped, summary.robotsUnavailable]).toEqual([2, 2]);
    expect(summaryLine(summary)).toContain('2 skipped by robots.txt (all because robots.txt could not be fetched)');
  });

  it('a 429 robots.txt (too many requests) is taken as a 5xx: nothing of the origin is requested, it is not "allow all"', async () => {
    const s = await site({ '/robots.txt': { status: 429, headers: { 'retry-after': '120' }, body: '' }, '/': { body: html('Home', '<a href="/a">a</a>') }, '/a': { body: html('A', '') } });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(recs.map((r) => [new URL(r.url).pathname, r.skipped, r.error?.code ?? null])).toEqual([['/', 'robots', 'robots-unavailable']]);
    expect(recs[0]!.error?.message).toContain('HTTP 429');
    expect([s.count('/'), s.count('/a')]).toEqual([0, 0]);
  });

  it('a redirected robots.txt is followed', async () => {
    const s = await site({
      '/robots.txt': { status: 301, headers: { location: '/real-robots.txt' } },
      '/real-robots.txt': text('User-agent: *\nDisallow: /secret\n'),
      '/': { body: html('Home', '<a href="/secret">s</a> <a href="/open">o</a>') },
      '/open': { body: html('Open', '') },
      '/secret': { body: html('Secret', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(pathsOf(recs, (r) => r.skipped === null)).toEqual(['/', '/open']);
    expect(pathsOf(recs, (r) => r.skipped === 'robots')).toEqual(['/secret']);
    expect(s.count('/secret')).toBe(0);
    expect(s.count('/real-robots.txt')).toBe(1);
  });

  it('a robots.txt whose redirects loop is unavailable, as a 404 is (RFC 9309 §2.3.1.2): the host is crawled, not "unreachable"', async () => {
    const s = await site({
      '/robots.txt': { status: 301, headers: { location: '/robots-2.txt' } },
      '/robots-2.txt': { status: 302, headers: { location: '/robots.txt' } },
      '/': { body: html('Home', '<a href="/a">a</a>') },
      '/a': { body: html('A', '') },
    });
    const notices: string[] = [];
    const crawler = new Crawler({ seeds: [`${s.origin}/`], browser, settleTimeoutMs: 500, onNotice: (m) => notices.push(m) });
    const recs: PageRecord[] = [];
    for await (const r of crawler.records()) recs.push(r);
    expect(recs.map((r) => [new URL(r.url).pathname, r.status, r.skipped, r.error?.code ?? null])).toEqual([
      ['/', 200, null, null],
      ['/a', 200, null, null],
    ]);
    // The first request and its 5 redirects, once for the whole crawl.
    expect([s.count('/robots.txt'), s.count('/robots-2.txt')]).toEqual([3, 3]);
    const said = `robots.txt of ${s.origin} not found (more than 5 redirects): taken as none, everything allowed (RFC 9309 §2.3.1.2)`;
    expect(notices).toContain(said);
    expect(crawler.result().notes).toEqual([said]);
  });

  it('a robots.txt redirected to a URL that is not http(s), or to no URL at all, is unavailable: everything allowed', async () => {
    const s = await site({
      '/robots.txt': { status: 302, headers: { location: 'ftp://127.0.0.1/robots.txt' } },
    });
    const t = await site({
      '/robots.txt': { status: 307, headers: { location: 'http://[bad' } },
    });
    const cache = new RobotsCache({ request: api });
    const [ftp, bad] = await Promise.all([cache.explain(`${s.origin}/x`), cache.explain(`${t.origin}/x`)]);
    expect([ftp.allowed, ftp.outcome.kind, ftp.outcome.status, ftp.outcome.detail, ftp.outcome.unanswered]).toEqual([
      true,
      'allow-all',
      302,
      'redirect to a URL that is not http(s): ftp://127.0.0.1/robots.txt',
      undefined,
    ]);
    expect([bad.allowed, bad.outcome.kind, bad.outcome.status, bad.outcome.detail]).toEqual([true, 'allow-all', 307, 'invalid redirect location: http://[bad']);
    expect([s.count('/robots.txt'), t.count('/robots.txt')]).toEqual([1, 1]);
  });

  it('a robots.txt whose body is cut off is unavailable (everything disallowed), but the host answered: not "unreachable"', async () => {
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      asked.push(req.url ?? '');
      if (req.url !== '/robots.txt') return void res.end('<title>page</title>');
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('User-agent: *\nDisallow: /x\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const crawler = new Crawler({ seeds: [`${origin}/`], browser, settleTimeoutMs: 500 });
      const recs: PageRecord[] = [];
      for await (const r of crawler.records()) recs.push(r);
      expect(recs.map((r) => [r.skipped, r.status, r.error?.code ?? null])).toEqual([['robots', null, 'robots-unavailable']]);
      expect(crawler.result().notes).toEqual([`robots.txt of ${origin} unusable (reading the body: aborted): treating the whole origin as disallowed`]);
      expect(asked).toEqual(['/robots.txt']);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('20 concurrent first questions to one origin cause exactly one robots.txt request', async () => {
    const s = await site({ '/robots.txt': { ...text('User-agent: *\nDisallow: /x\n'), delayMs: 200 } });
    const cache = new RobotsCache({ request: api });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => cache.isAllowed(`${s.origin}/${i % 2 ? 'x' : 'y'}/${i}`)));
    expect(s.count('/robots.txt')).toBe(1);
    expect(answers.filter((a) => a)).toHaveLength(10);
  });

  it('a robots.txt larger than 500 KiB is parsed up to 500 KiB, and odd bytes do not crash it', async () => {
    const filler = `# ${'x'.repeat(1000)}\n`.repeat(520); // ~ 520 KB of comments
    const body = Buffer.concat([Buffer.from('User-agent: *\nDisallow: /early\n'), Buffer.from([0xff, 0xfe, 0x0a]), Buffer.from(filler), Buffer.from('Disallow: /late\n')]);
    const s = await site({ '/robots.txt': { headers: { 'content-type': 'text/plain' }, body } });
    const cache = new RobotsCache({ request: api });
    expect(await cache.isAllowed(`${s.origin}/early`)).toBe(false);
    expect(await cache.isAllowed(`${s.origin}/late`)).toBe(true);
  });
});

describe('robots.txt rules, agent groups and explanations', () => {
  it('longest match wins, Allow wins ties, * and $ work, other agents\' groups do not apply', async () => {
    const s = await site({
      '/robots.txt': text(
        ['User-agent: otherbot', 'Disallow: /', '', 'User-agent: *', 'Disallow: /shop/', 'Allow: /shop/catalog', 'Disallow: /*.json$', 'Disallow: /same', 'Allow: /same'].join('\n'),
      ),
    });
    const cache = new RobotsCache({ request: api });
    const table: [string, boolean][] = [
      ['/', true],
      ['/shop/cart', false],
      ['/shop/catalog', true],
      ['/data.json', false],
      ['/data.json?v=1', true],
      ['/same', true],
    ];
    for (const [p, want] of table) expect([p, await cache.isAllowed(`${s.origin}${p}`)]).toEqual([p, want]);
    const x = await cache.explain(`${s.origin}/shop/cart`);
    expect(x).toMatchObject({ allowed: false, line: 5, rule: 'Disallow: /shop/', agent: 'spacrawl' });
    const other = new RobotsCache({ request: api, agent: 'otherbot' });
    expect(await other.isAllowed(`${s.origin}/`)).toBe(false);
  });

  it('a group for our token wins over *', async () => {
    const s = await site({ '/robots.txt': text('User-agent: *\nDisallow: /\n\nUser-agent: spacrawl\nDisallow: /no\n') });
    const cache = new RobotsCache({ request: api });
    expect(await cache.isAllowed(`${s.origin}/yes`)).toBe(true);
    expect(await cache.isAllowed(`${s.origin}/no`)).toBe(false);
  });
});

describe('Crawl-delay', () => {
  it('starts page navigations to the host at least 1 s apart (by the browser\'s clock)', async () => {
    const stamped = (title: string, body = ''): FixtureResponse => ({ body: html(title, body + NAVIGATION_START_TITLE) });
    const s = await site({
      '/robots.txt': text('User-agent: *\nCrawl-delay: 1\n'),
      '/': stamped('Home', '<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>'),
      '/a': stamped('A'),
      '/b': stamped('B'),
      '/c': stamped('C'),
    });
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 4, settleTimeoutMs: 500 });
    expect(pathsOf(recs, (r) => r.skipped === null)).toEqual(['/', '/a', '/b', '/c']);
    expect(s.documents()).toHaveLength(4);
    const starts = navigationStarts(recs);
    expect(starts).toHaveLength(4);
    for (const g of gapsOf(starts)) expect(g).toBeGreaterThanOrEqual(1000);
  });
});

describe('sitemaps (--sitemap)', () => {
  it('seeds the frontier from the robots.txt Sitemap: line, through an index and a .xml.gz, and flags the orphan', async () => {
    const s = await site({
      '/robots.txt': (self) => text(`User-agent: *\nDisallow: /blocked\nSitemap: ${self.origin}/sitemap-index.xml\n`),
      '/sitemap-index.xml': (self) => ({
        headers: { 'content-type': 'application/xml' },
        body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${self.origin}/pages.xml.gz</loc></sitemap></sitemapindex>`,
      }),
      '/pages.xml.gz': (self) => ({
        headers: { 'content-type': 'application/gzip' },
        body: gzipSync(
          `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${self.origin}/</loc></url><url><loc>${self.origin}/orphan</loc></url><url><loc>${self.origin}/blocked</loc></url><url><loc>http://elsewhere.invalid/x</loc></url></urlset>`,
        ),
      }),
      '/': { body: html('Home', '<a href="/linked">linked</a>') },
      '/linked': { body: html('Linked', '') },
      '/orphan': { body: html('Orphan', '') },
      '/blocked': { body: html('Blocked', '') },
    });
    const crawler = new Crawler({ seeds: [`${s.origin}/`], browser, sitemap: true, settleTimeoutMs: 500 });
    const counter = new SummaryCounter();
    const recs: PageRecord[] = [];
    for await (const r of crawler.records()) {
      recs.push(r);
      counter.add(r);
    }
    expect(pathsOf(recs, (r) => r.skipped === null)).toEqual(['/', '/linked', '/orphan']);
    expect(pathsOf(recs, (r) => r.skipped === 'robots')).toEqual(['/blocked']);
    expect(s.count('/blocked')).toBe(0);
    const { endReason, sitemapUrls } = crawler.result();
    const summary = counter.snapshot(0, endReason, sitemapUrls);
    expect(summary.sitemapUrls).toBe(2); // /orphan and /blocked; / was a seed already
    expect(summary.orphans).toEqual([`${s.origin}/orphan`]);
    // Disallowed by a rule, not unreachable.
    expect([summary.robotsSkipped, summary.robotsUnavailable]).toEqual([1, 0]);
    expect(summaryLine(summary)).toContain(', 1 skipped by robots.txt, ');
  });

  it('the guessed /sitemap.xml is not requested when robots.txt disallows it, nor when robots.txt is unavailable (5xx)', async () => {
    const sitemap = (self: FixtureServer): FixtureResponse => ({ headers: { 'content-type': 'application/xml' }, body: `<urlset><url><loc>${self.origin}/x</loc></url></urlset>` });
    const closed = await site({ '/robots.txt': text('User-agent: *\nAllow: /$\nDisallow: /\n'), '/sitemap.xml': sitemap, '/': { body: html('Home', '') } });
    const down = await site({ '/robots.txt': { status: 503, body: 'down' }, '/sitemap.xml': sitemap });
    const notices: string[] = [];
    const crawler = new Crawler({ seeds: [`${closed.origin}/`, `${down.origin}/`], browser, sitemap: true, settleTimeoutMs: 500, onNotice: (m) => notices.push(m) });
    const recs: PageRecord[] = [];
    for await (const r of crawler.records()) recs.push(r);
    expect([closed.count('/sitemap.xml'), down.count('/sitemap.xml'), closed.count('/x'), down.count('/x')]).toEqual([0, 0, 0, 0]);
    expect(Object.fromEntries(recs.map((r) => [r.url, r.skipped]))).toEqual({ [`${closed.origin}/`]: null, [`${down.origin}/`]: 'robots' });
    expect(notices).toContain(`sitemap ${closed.origin}/sitemap.xml: disallowed by robots.txt, not requested`);
    expect(notices).toContain(`sitemap ${down.origin}/sitemap.xml: disallowed by robots.txt, not requested`);
  });

  it('is off by default: a page only the sitemap names is not crawled', async () => {
    const s = await site({
      '/sitemap.xml': (self) => ({ headers: { 'content-type': 'application/xml' }, body: `<urlset><url><loc>${self.origin}/orphan</loc></url></urlset>` }),
      '/': { body: html('Home', '') },
      '/orphan': { body: html('Orphan', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(pathsOf(recs, () => true)).toEqual(['/']);
    expect(s.count('/sitemap.xml')).toBe(0);
    expect(s.count('/orphan')).toBe(0);
  });
});

describe('nofollow', () => {
  it('meta robots nofollow and X-Robots-Tag: links recorded, not followed; rel=nofollow link not followed; noindex recorded', async () => {
    const s = await site({
      '/': { body: html('Home', '<a href="/meta-nofollow">m</a> <a href="/header-nofollow">h</a> <a rel="nofollow" href="/rel-target">r</a>') },
      '/meta-nofollow': { body: html('M', '<a href="/from-meta">x</a>', '<meta name="robots" content="noindex, nofollow">') },
      '/header-nofollow': { headers: { 'x-robots-tag': 'nofollow' }, body: html('H', '<a href="/from-header">x</a>') },
      '/rel-target': { body: html('R', '') },
      '/from-meta': { body: html('FM', '') },
      '/from-header': { body: html('FH', '') },
    });
    const recs = await run({ seeds: [`${s.origin}/`] });
    expect(pathsOf(recs, (r) => r.skipped === null)).toEqual(['/', '/header-nofollow', '/meta-nofollow']);
    const meta = recs.find((r) => r.url.endsWith('/meta-nofollow'))!;
    expect(meta).toMatchObject({ nofollow: true, noindex: true, links: [`${s.origin}/from-meta`] });
    expect(recs.find((r) => r.url.endsWith('/header-nofollow'))).toMatchObject({ nofollow: true, noindex: false });
    const home = recs.find((r) => r.url === `${s.origin}/`)!;
    expect(home.links).toContain(`${s.origin}/rel-target`);
    expect(home.linkDetails.find((l) => l.url.endsWith('/rel-target'))?.nofollow).toBe(true);
    for (const p of ['/rel-target', '/from-meta', '/from-header']) expect(s.count(p)).toBe(0);

    const all = await run({ seeds: [`${s.origin}/`], followNofollow: true });
    expect(pathsOf(all, (r) => r.skipped === null)).toEqual(['/', '/from-header', '/from-meta', '/header-nofollow', '/meta-nofollow', '/rel-target']);
  });
});
