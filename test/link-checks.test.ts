import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { HttpClient } from '../src/net/http-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCheckSites, startDualServer } from '../fixtures/sites/checks.js';
import { sharedBrowser } from './helpers/browser.js';
import { Crawler } from '../src/crawl/crawler.js';
import { LinkChecker } from '../src/crawl/link-checks.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import { SqliteFrontier } from '../src/store/sqlite/frontier.js';
import { audit, type AuditIssue } from '../src/report/audit.js';
import type { PageRecord } from '../src/model/record.js';
import { collect, expectWellFormed } from './helpers/records.js';

let browser: Browser;
let sites: Awaited<ReturnType<typeof startCheckSites>>;
let tmp: string;

beforeAll(async () => {
  browser = await sharedBrowser();
  sites = await startCheckSites();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-checks-'));
});
afterAll(async () => {
  await sites?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function run(opts: Partial<CrawlOptions>): Promise<PageRecord[]> {
  const crawler = new Crawler({ seeds: [`${sites.site.https}/`], settleTimeoutMs: 2000, click: 'off', ignoreHttpsErrors: true, ...opts, browser });
  return collect(crawler.records());
}

/** `rule url` lines with the site origins shortened, sorted. */
function issueLines(issues: readonly AuditIssue[], rules: readonly string[]): string[] {
  return issues
    .filter((i) => rules.includes(i.rule))
    .map((i) => `${i.rule} ${short(i.url)}`)
    .sort();
}

function short(u: string): string {
  return u
    .replaceAll(sites.site.https, 'S')
    .replaceAll(sites.site.http, 's')
    .replaceAll(sites.ext.https, 'E')
    .replaceAll(sites.ext.http, 'e');
}

describe('--check-external, --check-fragments and insecure-link on a real crawl', () => {
  let records: PageRecord[];
  let stored: PageRecord[];

  beforeAll(async () => {
    sites.ext.log.length = 0;
    const file = path.join(tmp, 'state.db');
    const store = SqliteFrontier.open(file, { crawlKey: { seeds: [`${sites.site.https}/`], scope: 'host' } });
    records = await run({ checkExternal: true, checkFragments: true, frontier: store });
    const again = SqliteFrontier.open(file, { crawlKey: { seeds: [], scope: '' }, keepKey: true });
    try {
      stored = await collect(again.records());
    } finally {
      await again.close();
    }
  }, 120_000);

  it('requests every off-site URL exactly once, HEAD first, GET only when HEAD failed or answered >= 400 (not 429: no second request right after "too many"), never from the browser', () => {
    expect(sites.ext.log.map((r) => `${r.scheme} ${r.method} ${r.path}`).sort()).toEqual(
      [
        'https HEAD /ok',
        'https HEAD /no-head',
        'https GET /no-head',
        'https HEAD /missing',
        'https GET /missing',
        'https HEAD /wall',
        'https GET /wall',
        'https HEAD /busy',
        'http HEAD /secure-too',
        'https HEAD /secure-too',
      ].sort(),
    );
    expect(sites.ext.log.filter((r) => r.dest !== null)).toEqual([]);
    expectWellFormed(records);
  });

  it('keeps the answers on the linking pages: the method, status and bot-wall header', () => {
    const home = records.find((r) => r.url === `${sites.site.https}/`)!;
    const ext = home.linkChecks.filter((c) => c.url.startsWith(sites.ext.https) || c.url.startsWith(sites.ext.http));
    expect(ext.map((c) => [short(c.url), c.kind, c.method, c.status, c.blockedBy, c.error])).toEqual([
      ['E/ok', 'link', 'HEAD', 200, null, null],
      ['E/no-head', 'link', 'GET', 200, null, null],
      ['E/missing', 'link', 'GET', 404, null, null],
      ['E/wall', 'link', 'GET', 403, 'cf-mitigated: challenge', null],
      ['E/busy', 'link', 'HEAD', 429, null, null],
      ['e/secure-too', 'link', 'HEAD', 200, null, null],
      ['E/secure-too', 'https-form', 'HEAD', 200, null, null],
    ]);
    const docs = records.find((r) => r.url === `${sites.site.https}/docs`)!;
    expect(docs.linkChecks.map((c) => [short(c.url), c.status])).toEqual([
      ['E/ok', 200],
      ['E/missing', 404],
    ]);
  });

  it('reports exactly one broken-link for the 404 off-site link, with both referrers and their anchor text; the bot wall and the 429 are blocked', () => {
    const result = audit(records);
    const broken = result.issues.filter((i) => i.rule === 'broken-link');
    expect(broken.map((i) => ({ url: short(i.url), message: i.message, referrers: i.referrers.map((r) => [short(r.url), r.text]) }))).toEqual([
      {
        url: 'E/missing',
        message: 'HTTP 404 (off-site, checked with GET)',
        referrers: [
          ['S/', 'Missing ext'],
          ['S/docs', 'Missing again'],
        ],
      },
    ]);
    expect(issueLines(result.issues, ['blocked'])).toEqual(['blocked E/busy', 'blocked E/wall']);
    expect(result.issues.find((i) => i.rule === 'blocked' && i.url.endsWith('/busy'))!.message).toBe('HTTP 429: rate-limited, not necessarily broken (off-site, checked with HEAD)');
  });

  it('insecure-link: the in-scope http:// link and the off-site one whose https:// form answers the same', () => {
    const result = audit(records);
    expect(issueLines(result.issues, ['insecure-link'])).toEqual(['insecure-link e/secure-too', 'insecure-link s/plain']);
    const plain = result.issues.find((i) => i.rule === 'insecure-link' && i.url.endsWith('/plain'))!;
    expect(plain.referrers.map((r) => [short(r.url), r.text])).toEqual([['S/', 'Plain http']]);
    expect(plain.severity).toBe('notice');
  });

  it('broken-fragment: exactly the ids and names the rendered target lacks', () => {
    const result = audit(records);
    expect(issueLines(result.issues, ['broken-fragment'])).toEqual(['broken-fragment S/#nowhere', 'broken-fragment S/docs#missing']);
    const missing = result.issues.find((i) => i.rule === 'broken-fragment' && i.url.endsWith('#missing'))!;
    expect(missing.referrers.map((r) => [short(r.url), r.text])).toEqual([['S/', 'Missing section']]);
    const docs = records.find((r) => r.url === `${sites.site.https}/docs`)!;
    expect(docs.anchors).toEqual(['intro', 'café', 'named', 'late']);
  });

  it('gives the same report from the stored records (what export reads)', () => {
    expect(stored.length).toBe(records.length);
    const byUrl = (rs: PageRecord[]): PageRecord[] => [...rs].sort((a, b) => a.url.localeCompare(b.url));
    expect(audit(byUrl(stored))).toEqual(audit(byUrl(records)));
  });
});

describe('without the flags', () => {
  it('checks no off-site link, keeps no ids, and still reports the in-scope insecure link', async () => {
    sites.ext.log.length = 0;
    const records = await run({});
    expect(sites.ext.log).toEqual([]);
    expect(records.filter((r) => r.anchors !== null || r.fragmentLinks.length > 0)).toEqual([]);
    const result = audit(records);
    expect(issueLines(result.issues, ['insecure-link', 'broken-link', 'blocked', 'broken-fragment'])).toEqual(['insecure-link s/plain']);
  }, 120_000);
});

describe('LinkChecker', () => {
  it('sends at most 2 requests to one host at a time and answers repeated URLs from its cache', async () => {
    const slow = await startDualServer(() => ({ body: 'slow', delayMs: 200 }));
    try {
      const checker = new LinkChecker(new HttpClient({ userAgent: 'spacrawl-test' }), { timeoutMs: 10_000 });
      const urls = [1, 2, 3, 4, 5, 6].map((n) => `${slow.http}/p/${n}`);
      const answers = await Promise.all([...urls, ...urls].map((u) => checker.check(u)));
      expect(answers.map((a) => a.status)).toEqual(new Array(12).fill(200));
      expect(slow.log.map((r) => `${r.method} ${r.path}`).sort()).toEqual(urls.map((u) => `HEAD ${new URL(u).pathname}`).sort());
      expect(slow.peakInFlight()).toBe(2);
      expect(checker.requests).toBe(6);
    } finally {
      await slow.close();
    }
  });

  it('records a refused connection as a network error after trying GET too', async () => {
    const checker = new LinkChecker(new HttpClient({ userAgent: 'spacrawl-test' }), { timeoutMs: 5_000 });
    const a = await checker.check('http://127.0.0.1:9/x');
    expect({ method: a.method, status: a.status, code: a.error?.code }).toEqual({ method: 'GET', status: null, code: 'network' });
    expect(a.error?.message).toMatch(/ECONNREFUSED/);
    expect(checker.requests).toBe(2);
  });
});

describe('--check-external on links left out of the crawl', () => {
  it('a same-site link --exclude leaves out is checked, unless robots.txt disallows it: that one is never requested', async () => {
    const { html, startFixtureServer } = await import('../fixtures/server.js');
    const site = await startFixtureServer((_req, url) => {
      if (url.pathname === '/robots.txt') return { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /secret\n' };
      if (url.pathname === '/') return { body: html('Home', '<a href="/secret">secret</a> <a href="/p1">p1</a>') };
      return { body: html(`Page ${url.pathname}`, '') };
    });
    try {
      const crawler = new Crawler({ seeds: [`${site.origin}/`], exclude: [`${site.origin}/secret`, `${site.origin}/p1`], checkExternal: true, click: 'off', soft404: false, settleTimeoutMs: 2000, browser });
      const records = await collect(crawler.records());
      const home = records.find((r) => r.url === `${site.origin}/`)!;
      expect(home.linkChecks.map((c) => [new URL(c.url).pathname, c.status])).toEqual([['/p1', 200]]);
      expect([site.count('/secret'), site.count('/p1') > 0]).toEqual([0, true]);
    } finally {
      await site.close();
    }
  });
});
