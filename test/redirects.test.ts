import type { Browser } from 'playwright';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedirectSites, type RedirectSites } from '../fixtures/sites/redirects.js';
import { crawl, type PageRecord } from '../src/index.js';
import { sharedBrowser } from './helpers/browser.js';
import { audit } from '../src/report/audit.js';
import { renderCsv } from '../src/report/formats/csv.js';
import { renderSitemap } from '../src/report/formats/sitemap.js';
import { SummaryCounter } from '../src/report/summary.js';
import { recordLine } from '../src/report/terminal.js';
import { collect, expectWellFormed, pagesOf, pathOf, redirectsOf, sorted } from './helpers/records.js';

let browser: Browser;
let sites: RedirectSites;

beforeAll(async () => {
  browser = await sharedBrowser();
  sites = await startRedirectSites();
}, 60_000);

afterAll(async () => {
  await sites?.close();
});

beforeEach(() => {
  sites.site.reset();
  sites.other.reset();
});

async function run(prefix: string, concurrency = 1): Promise<PageRecord[]> {
  const records = await collect(crawl({ seeds: [`${sites.site.origin}${prefix}`], browser, concurrency, soft404: false }));
  expectWellFormed(records);
  return records;
}

const byPath = (records: PageRecord[], p: string): PageRecord | undefined => records.find((r) => pathOf(r.url) === p);
/** Document requests the site saw for `path`. */
const docs = (p: string): number => sites.site.documents().filter((d) => d.path === p).length;

describe('HTTP redirects within the scope', () => {
  it('a chain is reported on the redirecting URL, which carries the page; relative links resolve against the final URL', async () => {
    const records = await run('/chain/');
    expect(byPath(records, '/chain/start')).toMatchObject({
      finalUrl: `${sites.site.origin}/chain/intro/`,
      status: 200,
      title: 'Intro guide',
      redirect: false,
      redirectChain: [
        { url: `${sites.site.origin}/chain/start`, status: 301, kind: 'http' },
        { url: `${sites.site.origin}/chain/moved`, status: 302, kind: 'http' },
      ],
    });
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/chain/', '/chain/faq.html', '/chain/intro/next.html', '/chain/start']);
    expect(records.filter((r) => [r.url, r.requestedUrl, r.finalUrl].some((u) => u && pathOf(u) === '/chain/intro/'))).toHaveLength(1);
    expect(sites.site.count('/chain/next.html') + sites.site.count('/faq.html')).toBe(0);
    expect(redirectsOf(records)).toEqual([]);
  });

  it('a link to the target and a link to its redirect, in flight together: one page record, one redirect record, the target requested once', async () => {
    const records = await run('/race/', 4);
    expect(pagesOf(records).filter((r) => r.title === 'New').map((r) => pathOf(r.url))).toEqual(['/race/new']);
    const old = byPath(records, '/race/old')!;
    expect(old).toMatchObject({
      redirect: true,
      skipped: null,
      status: 301,
      finalUrl: `${sites.site.origin}/race/new`,
      title: null,
      links: [],
      redirectChain: [{ url: `${sites.site.origin}/race/old`, status: 301, kind: 'http' }],
    });
    expect(docs('/race/new')).toBe(1);
    expect(docs('/race/old')).toBe(1);
  });

  it('two redirects to one unlinked target, in flight together: the target is rendered for one of them only', async () => {
    const records = await run('/pair/', 4);
    const carriers = pagesOf(records).filter((r) => r.title === 'Pair target');
    expect(carriers).toHaveLength(1);
    expect(['/pair/one', '/pair/two']).toContain(pathOf(carriers[0]!.url));
    const other = redirectsOf(records);
    expect(other.map((r) => pathOf(r.url))).toEqual(['/pair/one', '/pair/two'].filter((p) => p !== pathOf(carriers[0]!.url)));
    expect(other[0]).toMatchObject({ status: 301, finalUrl: `${sites.site.origin}/pair/target`, title: null, links: [] });
    // Its links were followed once: back to /pair/ (known), nothing else.
    expect(records.filter((r) => pathOf(r.url) === '/pair/target')).toEqual([]);
  });

  it('three spellings of one target: one page, three redirect records, each stopped at its hop (the target requested once)', async () => {
    const records = await run('/spell/');
    expect(pagesOf(records).map((r) => pathOf(r.url))).toEqual(['/spell/', '/spell/target']);
    expect(redirectsOf(records).map((r) => [pathOf(r.url), r.status, pathOf(r.finalUrl!)])).toEqual([
      ['/spell/a', 301, '/spell/target'],
      ['/spell/b', 301, '/spell/target'],
      ['/spell/c', 301, '/spell/target'],
    ]);
    expect(docs('/spell/target')).toBe(1);

    const counter = new SummaryCounter();
    for (const r of records) counter.add(r);
    expect(counter.snapshot(0, 'done')).toMatchObject({ pages: 2, redirects: 3, ok: 2, errors: 0 });
    expect(recordLine(byPath(records, '/spell/a')!, sites.site.origin)).toMatch(/^301 {2}\/spell\/a {2}→ \/spell\/target {2}\(redirect\)/);

    // Reports show redirects as redirects: never in a sitemap, a row of kind "redirect" in CSV.
    const input = { records, summary: counter.snapshot(0, 'done'), audit: audit(records), failOn: ['broken-link' as const], screenshotsDir: null };
    const locs = [...renderSitemap(input).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => pathOf(m[1]!));
    expect(locs).toEqual(['/spell/', '/spell/target']);
    const rows = renderCsv(input).trim().split('\n').slice(1).map((l) => l.split(',').slice(0, 4));
    expect(rows).toContainEqual([`${sites.site.origin}/spell/a`, 'redirect', '301', `${sites.site.origin}/spell/target`]);
    expect(rows).toContainEqual([`${sites.site.origin}/spell/target`, 'page', '200', '']);
  });
});

describe('redirects leaving the scope', () => {
  it('a seed that redirects to a host that cannot be reached: the network error, with the redirect that led there', async () => {
    // No retries: a refused connection is retried, and the contract check wants one attempt.
    const records = await collect(crawl({ seeds: [`${sites.site.origin}/dead-seed`], browser, concurrency: 1, soft404: false, retries: 0 }));
    expectWellFormed(records);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      status: null,
      finalUrl: null,
      error: { code: 'network', message: 'ERR_CONNECTION_REFUSED' },
      redirectChain: [{ url: `${sites.site.origin}/dead-seed`, status: 302, kind: 'http' }],
    });
  });

  it('an HTTP redirect off-site is stopped at the hop: skipped "scope", the off-site target never requested', async () => {
    const records = await run('/off/');
    expect(byPath(records, '/off/out')).toMatchObject({
      skipped: 'scope',
      redirect: true,
      status: 302,
      finalUrl: `${sites.other.origin}/landing`,
      title: null,
      links: [],
      redirectChain: [{ url: `${sites.site.origin}/off/out`, status: 302, kind: 'http' }],
    });
    expect(sites.other.count('/landing')).toBe(0);
  });

  it('a client-side forward off-site (script, meta refresh) is never requested: skipped "scope"', async () => {
    const records = await run('/off/');
    for (const [p, target] of [
      ['/off/js-out', '/landing2'],
      ['/off/meta-out', '/landing3'],
    ] as const) {
      expect(byPath(records, p)).toMatchObject({
        skipped: 'scope',
        redirect: true,
        status: 200,
        finalUrl: `${sites.other.origin}${target}`,
        title: null,
        links: [],
        redirectChain: [{ url: `${sites.site.origin}${p}`, status: null, kind: 'client' }],
      });
      expect(sites.other.count(target)).toBe(0);
    }
    // A forward to a host that cannot be reached is the same forward, not Chromium's error page.
    expect(byPath(records, '/off/dead-out')).toMatchObject({
      skipped: 'scope',
      redirect: true,
      finalUrl: `${sites.deadOrigin}/landing4`,
      redirectChain: [{ url: `${sites.site.origin}/off/dead-out`, status: null, kind: 'client' }],
    });
    // Nothing of the other host was rendered: its page links to /x, which no record names.
    expect(records.some((r) => r.linkDetails.some((l) => l.url.startsWith(sites.other.origin)))).toBe(false);
    expect(sites.other.count('/x')).toBe(0);
  });
});

describe('redirects to URLs robots.txt disallows', () => {
  it('a client-side forward (script, meta refresh) to a disallowed URL is never requested: a redirect record skipped "robots"', async () => {
    const records = await run('/robo/');
    for (const [p, target] of [
      ['/robo/js', '/private/js-target'],
      ['/robo/meta', '/private/meta-target'],
    ] as const) {
      expect(byPath(records, p)).toMatchObject({
        skipped: 'robots',
        redirect: true,
        status: 200,
        finalUrl: `${sites.site.origin}${target}`,
        title: null,
        links: [],
        redirectChain: [{ url: `${sites.site.origin}${p}`, status: null, kind: 'client' }],
      });
      expect(sites.site.count(target)).toBe(0);
    }
  });

  it("a seed's redirect to another host: that host's robots.txt is read first, and a disallowed target is never requested", async () => {
    const records = await collect(crawl({ seeds: [`${sites.site.origin}/cross-seed`], browser, concurrency: 1, soft404: false }));
    expectWellFormed(records);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      skipped: 'robots',
      redirect: true,
      status: 302,
      finalUrl: `${sites.other.origin}/private/home`,
      title: null,
      redirectChain: [{ url: `${sites.site.origin}/cross-seed`, status: 302, kind: 'http' }],
    });
    expect([sites.other.count('/robots.txt'), sites.other.count('/private/home')]).toEqual([1, 0]);
  });
});

describe('client-side redirects', () => {
  it('a forward whose target redirects over HTTP: the chain has the client hop, then the HTTP hops after it', async () => {
    const records = await run('/robo/');
    expect(byPath(records, '/robo/then-http')).toMatchObject({
      redirect: false,
      status: 200,
      title: 'Robo final',
      finalUrl: `${sites.site.origin}/robo/final`,
      redirectChain: [
        { url: `${sites.site.origin}/robo/then-http`, status: null, kind: 'client' },
        { url: `${sites.site.origin}/robo/moved`, status: 301, kind: 'http' },
      ],
    });
  });

  it('pages that only forward (meta refresh, location.replace, history.replaceState) to a recorded page are redirect records', async () => {
    const records = await run('/cl/');
    expect(pagesOf(records).filter((r) => r.title === 'Client target').map((r) => pathOf(r.url))).toEqual(['/cl/target']);
    for (const p of ['/cl/meta', '/cl/head', '/cl/spa']) {
      expect({ p, r: byPath(records, p) }).toMatchObject({
        p,
        r: {
          redirect: true,
          skipped: null,
          status: 200,
          finalUrl: `${sites.site.origin}/cl/target`,
          title: null,
          links: [],
          redirectChain: [{ url: `${sites.site.origin}${p}`, status: null, kind: 'client' }],
        },
      });
    }
    // The forwarders' own links are not the target's, and not followed from a redirect record.
    expect(byPath(records, '/cl/only-on-forwarder')).toBeUndefined();
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/cl/', '/cl/only-on-target', '/cl/target']);
    // The document navigations to /cl/target after it was recorded were refused.
    expect(docs('/cl/target')).toBeLessThanOrEqual(3);
  });

  it('a client-side forward to a page not recorded yet carries that page (one record for it)', async () => {
    const records = await run('/cl2/');
    expect(byPath(records, '/cl2/meta')).toMatchObject({
      redirect: false,
      status: 200,
      title: 'Client target 2',
      finalUrl: `${sites.site.origin}/cl2/target`,
      redirectChain: [{ url: `${sites.site.origin}/cl2/meta`, status: null, kind: 'client' }],
    });
    expect(records.filter((r) => [r.url, r.requestedUrl, r.finalUrl].some((u) => u && pathOf(u) === '/cl2/target'))).toHaveLength(1);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/cl2/', '/cl2/meta', '/cl2/next']);
  });

  it('hash routes: a route is no client hop of its own document; a route the router forwards is a redirect record', async () => {
    const records = await run('/hash/');
    const o = sites.site.origin;
    expect(records.map((r) => [r.url.slice(o.length), r.title, r.redirect, r.redirectChain.map((h) => `${h.url.slice(o.length)} ${h.kind}`)])).toEqual([
      ['/hash/', 'Hash home', false, []],
      ['/hash/#/new', 'Hash new', false, []],
      ['/hash/#/old', null, true, ['/hash/#/old client']],
      ['/hash/#/', 'Hash home', false, []],
    ]);
    expect(byPath(records, '/hash/#/old')?.finalUrl ?? records.find((r) => r.url.endsWith('#/old'))!.finalUrl).toBe(`${o}/hash/#/new`);
  });
});

describe('redirects that never end', () => {
  it('pages that send each other back and forth (script, meta refresh) end as a redirect loop after each URL was loaded twice; a consent round trip is no loop', async () => {
    const records = await run('/loop/', 2);
    const o = sites.site.origin;
    const rec = (p: string): PageRecord => records.find((r) => r.url === `${o}${p}`)!;
    const chain = (p: string): string[] => rec(p).redirectChain.map((h) => `${h.url.slice(o.length)} ${h.status ?? '-'} ${h.kind}`);
    for (const [a, b] of [
      ['/loop/js-a', '/loop/js-b'],
      ['/loop/meta-a', '/loop/meta-b'],
    ] as const) {
      expect(rec(a), a).toMatchObject({ status: null, finalUrl: null, title: null, links: [], attempts: 1, error: { code: 'network', message: 'ERR_TOO_MANY_REDIRECTS' } });
      expect(chain(a)).toEqual([`${a} - client`, `${b} - client`, `${a} - client`]);
      // a → b → a, and the second b is refused: each loaded twice (the second b only asked for).
      expect([docs(a), docs(b)]).toEqual([2, 2]);
    }
    // An HTTP loop: Chromium gives up at its 20th redirect; the hops it made are the chain.
    expect(rec('/loop/http-a')).toMatchObject({ status: null, finalUrl: null, error: { code: 'network', message: 'ERR_TOO_MANY_REDIRECTS' } });
    expect(chain('/loop/http-a')).toEqual(Array.from({ length: 20 }, (_, i) => `/loop/http-${i % 2 ? 'b' : 'a'} 302 http`));
    // A chain of 31 distinct URLs: the same error, the 20 hops made.
    expect(chain('/loop/long/0')).toEqual(Array.from({ length: 20 }, (_, i) => `/loop/long/${i} 301 http`));
    // A page that forwards to a new URL each time: at most 20 forwards.
    expect(rec('/loop/ticker?n=0')).toMatchObject({ error: { code: 'network', message: 'ERR_TOO_MANY_REDIRECTS' } });
    expect(chain('/loop/ticker?n=0')).toEqual(Array.from({ length: 21 }, (_, i) => `/loop/ticker?n=${i} - client`));
    expect(docs('/loop/ticker')).toBe(22);
    // round → gate → round (now with its cookie): read where it stays, its link followed.
    expect(rec('/loop/round')).toMatchObject({ error: null, title: 'Round', finalUrl: `${o}/loop/round` });
    expect(rec('/loop/after-round')).toMatchObject({ error: null, title: 'After round' });
    // The audit names the loop, or the chain that did not end.
    const found = audit(records).issues.filter((i) => i.rule === 'redirect-loop').map((i) => [i.url.slice(o.length), i.message.replaceAll(o, '')]);
    expect(sorted(found.map((f) => f.join(': ')))).toEqual([
      '/loop/http-a: a redirect loop: /loop/http-a → /loop/http-b → /loop/http-a',
      '/loop/js-a: a redirect loop: /loop/js-a → /loop/js-b → /loop/js-a',
      '/loop/long/0: redirects never end: 20 without an end, /loop/long/0 → … → /loop/long/19',
      '/loop/meta-a: a redirect loop: /loop/meta-a → /loop/meta-b → /loop/meta-a',
      '/loop/ticker?n=0: redirects never end: 21 without an end, /loop/ticker?n=0 → … → /loop/ticker?n=20',
    ]);
    expect(audit(records).issues.filter((i) => i.rule === 'redirect-chain')).toEqual([]);
  });
});

describe('a refresh that waits', () => {
  it('a <meta http-equiv=refresh> or a Refresh header whose delay outlasts the visit is a link of the page (source refresh); a reload is none', async () => {
    const records = await run('/later/');
    const o = sites.site.origin;
    const rec = (p: string): PageRecord => records.find((r) => r.url === `${o}${p}`)!;
    const refreshes = (p: string): string[] => rec(p).linkDetails.filter((l) => l.source === 'refresh').map((l) => l.url.replace(o, '').replace(sites.other.origin, 'OTHER'));
    expect(refreshes('/later/a')).toEqual(['/later/five']);
    expect(refreshes('/later/b')).toEqual(['/later/quoted']);
    expect(refreshes('/later/c')).toEqual(['/later/in-dir']);
    expect(refreshes('/later/d')).toEqual(['OTHER/elsewhere']);
    expect(refreshes('/later/self')).toEqual([]);
    expect(refreshes('/later/header')).toEqual(['/later/from-header']);
    // Each page was read where it was (no forward), and the targets in scope were crawled.
    for (const p of ['/later/a', '/later/b', '/later/c', '/later/d', '/later/self']) expect(rec(p), p).toMatchObject({ finalUrl: `${o}${p}`, redirectChain: [], error: null });
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/later/', '/later/a', '/later/b', '/later/c', '/later/d', '/later/five', '/later/from-header', '/later/header', '/later/in-dir', '/later/quoted', '/later/self']);
    expect(sites.other.count('/elsewhere')).toBe(0);
  });
});

describe('history.back() as a page loads', () => {
  it('does not leave the page for the one the reused tab showed before (an earlier, unrelated visit); going back within the page still works', async () => {
    const records = await run('/back/');
    const o = sites.site.origin;
    const rec = (p: string): PageRecord => records.find((r) => r.url === `${o}${p}`)!;
    expect(rec('/back/bounce')).toMatchObject({ finalUrl: `${o}/back/bounce`, title: 'Bounce', redirect: false, redirectChain: [], links: [`${o}/back/only-here`] });
    expect(rec('/back/spa')).toMatchObject({ finalUrl: `${o}/back/spa`, title: 'SPA', redirect: false });
    expect(rec('/back/spa').links).toContain(`${o}/back/spa-done`);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/back/', '/back/bounce', '/back/first', '/back/first-child', '/back/only-here', '/back/spa', '/back/spa-done']);
    // The earlier visit's page was not loaded again.
    expect(docs('/back/first')).toBe(1);
  });
});
