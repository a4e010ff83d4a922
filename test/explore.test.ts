import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import type { FixtureServer } from '../fixtures/server.js';
import {
  FEED_BATCHES,
  FEED_BATCH_SIZE,
  MENU_LINKS,
  PACKAGES,
  PAGER_PAGES,
  PAGER_PAGE_SIZE,
  SLOW_VERSIONS_MS,
  VERSIONS,
  VIRTUAL_ROWS,
  startFeedSite,
  startPagerSite,
  startRegistrySite,
  startReplaceStateSite,
} from '../fixtures/sites/explore.js';
import { html, startFixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

let browser: Browser;
const servers: FixtureServer[] = [];
const keep = (s: FixtureServer): FixtureServer => (servers.push(s), s);

beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function run(opts: Omit<CrawlOptions, 'browser'>): Promise<PageRecord[]> {
  const crawler = new Crawler({ settleTimeoutMs: 3000, soft404: false, ...opts, browser });
  const recs: PageRecord[] = [];
  for await (const r of crawler.records()) recs.push(r);
  return recs;
}

const pathOf = (u: string): string => {
  const x = new URL(u);
  return x.pathname + x.search + x.hash;
};
/** Paths of the visited pages (records with skipped: null), sorted. */
const visited = (recs: PageRecord[]): string[] => recs.filter((r) => r.skipped === null).map((r) => pathOf(r.url)).sort();
const recordOf = (recs: PageRecord[], s: FixtureServer, p: string): PageRecord => {
  const r = recs.find((x) => x.url === `${s.origin}${p}`);
  if (!r) throw new Error(`no record for ${p}`);
  return r;
};
const linksOf = (r: PageRecord): string[] => r.links.map(pathOf).sort();
const range = (from: number, to: number, f: (i: number) => string): string[] => Array.from({ length: to - from + 1 }, (_, i) => f(from + i));
const sorted = (a: string[]): string[] => [...a].sort();

describe('pagination in place', () => {
  it('clicks "Next" until it is disabled and "Load more" until it is gone; a click that reveals nothing new is not repeated', async () => {
    const s = keep(await startPagerSite());
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 1, concurrency: 2 });
    const all = PAGER_PAGES * PAGER_PAGE_SIZE;
    expect(visited(recs)).toEqual(sorted(['/', ...range(1, all, (i) => `/article/${i}`), ...range(1, all, (i) => `/post/${i}`), '/top/1', '/top/2']));
    const home = recordOf(recs, s, '/');
    expect(home.linkSources.click).toBe(2 * (all - PAGER_PAGE_SIZE));
    // One request per page of each pager: "Next" was clicked 4 times and not once it said
    // aria-disabled, "Load more" 4 times until it was removed, "Refresh" once.
    for (let page = 1; page <= PAGER_PAGES; page++) {
      expect([page, s.count(`/api/articles?page=${page}`), s.count(`/api/posts?page=${page}`)]).toEqual([page, 1, 1]);
    }
    expect(s.count(`/api/articles?page=${PAGER_PAGES + 1}`)).toBe(0);
    expect(s.count(`/api/posts?page=${PAGER_PAGES + 1}`)).toBe(0);
    expect(s.count('/api/refresh')).toBe(1);
  });

  it('--click-repeat caps the repeats per clickable and page', async () => {
    const s = keep(await startPagerSite());
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 0, clickRepeat: 2 });
    const shown = 4 * PAGER_PAGE_SIZE; // page 1, then 1 click and 2 repeats
    expect(linksOf(recordOf(recs, s, '/'))).toEqual(sorted([...range(1, shown, (i) => `/article/${i}`), ...range(1, shown, (i) => `/post/${i}`), '/top/1', '/top/2']));
    expect(s.count('/api/articles?page=4')).toBe(1);
    expect(s.count('/api/articles?page=5')).toBe(0);
    expect(s.count('/api/posts?page=5')).toBe(0);
  });
});

describe('toggles whose label flips ("Show details" becomes "Hide details")', () => {
  it('are one control: a toggle that revealed no link is not clicked again under its new name; one that revealed links is clicked once more, and closes', async () => {
    const script = `
      const flip = (id, a, b, open) => {
        const el = document.getElementById(id);
        let on = false;
        el.onclick = () => { on = !on; el.textContent = on ? b : a; open(on); };
      };
      flip('details', 'Show details', 'Hide details', (on) => { document.getElementById('text').hidden = !on; });
      flip('more', 'Show more', 'Show less', (on) => {
        document.getElementById('list').innerHTML = on ? '<a href="/more/1">One</a> <a href="/more/2">Two</a>' : '';
      });`;
    const s = keep(
      await startFixtureServer((_req, url) =>
        url.pathname === '/'
          ? { body: html('Toggles', `<main><button id="details">Show details</button><p id="text" hidden>Details</p><button id="more">Show more</button><div id="list"></div></main><script>${script}</script>`) }
          : { body: html(url.pathname, `<h1>${url.pathname}</h1>`) },
      ),
    );
    const recs = await run({ seeds: [`${s.origin}/`], maxDepth: 0 });
    const home = recordOf(recs, s, '/');
    expect(linksOf(home)).toEqual(['/more/1', '/more/2']);
    // "Show details" once; "Show more" (links), then "Show less" (takes them away: done).
    expect(home.clickDiscovery).toMatchObject({ made: 3, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
  });
});

describe('controls whose clicks differ per page', () => {
  const pkgLinks = (p: string): string[] => [...VERSIONS.map((v) => `/pkg/${p}/v/${v}`), ...VERSIONS.map((v) => `/pkg/${p}/changelog/${v}`)];
  const expectedPages = sorted([
    '/',
    ...MENU_LINKS,
    '/examples',
    ...PACKAGES.flatMap((p) => [`/pkg/${p}`, ...pkgLinks(p), ...VERSIONS.map((v) => `/pkg/${p}/changelog/${v}/notes`)]),
  ]);

  for (const concurrency of [1, 3]) {
    it(`a per-page tab is clicked on every page, site-wide chrome on two pages only (concurrency ${concurrency})`, async () => {
      const s = keep(await startRegistrySite());
      const recs = await run({ seeds: [`${s.origin}/`], concurrency });
      expect(visited(recs)).toEqual(expectedPages);
      // Links revealed by chrome (the menu, "Show examples") are on the two pages that clicked it only.
      const menu = new Set<string>([...MENU_LINKS, '/examples']);
      for (const p of PACKAGES) {
        const r = recordOf(recs, s, `/pkg/${p}`);
        // The tab's links and the changelog routes its buttons push are this page's links; what
        // the changelog route renders (its notes link) is not.
        expect(linksOf(r).filter((l) => !menu.has(l))).toEqual(sorted(['/', ...pkgLinks(p)]));
        // "Versions" clicked once, and once more to re-open the tab after going back from
        // "Changelog 1.0" (the back navigation renders the Readme tab).
        expect([p, s.count(`/api/pkg/${p}/versions`)]).toEqual([p, 2]);
        for (const v of VERSIONS) {
          const changelog = recordOf(recs, s, `/pkg/${p}/changelog/${v}`);
          expect(linksOf(changelog).filter((l) => !menu.has(l))).toEqual(['/', `/pkg/${p}/changelog/${v}/notes`]);
          expect(recordOf(recs, s, `/pkg/${p}/changelog/${v}/notes`).referrer).toBe(`${s.origin}/pkg/${p}/changelog/${v}`);
        }
      }
      // The menu reveals the same links everywhere: clicked on two pages to learn that, then never.
      expect(s.count('/api/menu')).toBe(2);
      expect(recs.filter((r) => MENU_LINKS.every((l) => r.links.includes(`${s.origin}${l}`))).length).toBe(2);
      // "Show examples" was gone at its turn on / (removed by "Hide tips"): that is not a click,
      // so the package pages still click it, on two of them (then it is known as chrome). It has
      // no on/off state, so each of the two clicks it again to see whether it reveals more.
      expect(s.count('/api/examples')).toBe(4);
      expect(recs.filter((r) => r.links.includes(`${s.origin}/examples`)).length).toBe(2);
      expect(s.log.filter((r) => r.method !== 'GET')).toEqual([]);
    });
  }
});

describe('a click whose effect came after the click wait', () => {
  it('two pages whose "Versions" tab showed too late do not make it chrome: the other package pages still click it', async () => {
    // The first two versions requests (the first two package pages) take longer than a click's
    // settle wait; their empty looks must not teach the memory that the tab reveals nothing.
    const s = keep(await startRegistrySite(2));
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const requests = s.log.filter((r) => /^\/api\/pkg\/\w+\/versions$/.test(r.path)).map((r) => r.path.split('/')[3]!);
    const slow = requests.slice(0, 2);
    expect(new Set(slow).size).toBe(2);
    const fast = PACKAGES.filter((p) => !slow.includes(p));
    expect(fast.length).toBe(2);
    // Every package page clicked "Versions"; those answered in time have their versions' pages
    // crawled from their own record.
    for (const p of PACKAGES) expect([p, s.count(`/api/pkg/${p}/versions`) >= 1]).toEqual([p, true]);
    const pages = new Set(visited(recs));
    for (const p of fast) {
      for (const v of VERSIONS) expect(pages.has(`/pkg/${p}/v/${v}`)).toBe(true);
      expect(linksOf(recordOf(recs, s, `/pkg/${p}`))).toEqual(expect.arrayContaining(VERSIONS.map((v) => `/pkg/${p}/v/${v}`)));
    }
    expect(SLOW_VERSIONS_MS).toBeGreaterThan(3_000);
    expect(s.log.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a tab whose answer comes after the click wait but within the second wait is read on every page, the first two included', async () => {
    // 1.4 s: past the 1 s a click waits for the page to settle (what a busy machine does to a
    // click's fetch), within the 2 s more a click that showed nothing new gets.
    const s = keep(await startRegistrySite(2, 1_400));
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const pages = new Set(visited(recs));
    for (const p of PACKAGES) {
      // Once for the tab, and again when a "Changelog" click that went back must open it anew.
      const asked = s.count(`/api/pkg/${p}/versions`);
      expect([p, asked >= 1 && asked <= 1 + VERSIONS.length]).toEqual([p, true]);
      for (const v of VERSIONS) expect([p, v, pages.has(`/pkg/${p}/v/${v}`)]).toEqual([p, v, true]);
      expect(linksOf(recordOf(recs, s, `/pkg/${p}`))).toEqual(expect.arrayContaining(VERSIONS.map((v) => `/pkg/${p}/v/${v}`)));
    }
  });
});

describe('clicks that navigate', () => {
  it('a replaceState to another URL is undone in place (no going back out of the page), and what it showed belongs to that URL', async () => {
    const s = keep(await startReplaceStateSite());
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    expect(visited(recs)).toEqual(['/', '/?filters=open', '/filtered', '/more']);
    expect(linksOf(recordOf(recs, s, '/'))).toEqual(['/?filters=open', '/more']);
    expect(linksOf(recordOf(recs, s, '/?filters=open'))).toEqual(sorted(['/?filters=open', '/filtered', '/more']));
    expect(s.count('/')).toBe(1);
    expect(s.count('/?filters=open')).toBe(1);
  });

  it('a click whose POST form navigation is refused leaves the page as it was: the clickables after it are still clicked', async () => {
    // The refused POST must not put Chromium's error page in the tab (going back from it would
    // be a navigation of its own, which the guard refuses too): then no other clickable was clicked.
    const post = `const f = document.createElement('form'); f.method = 'post'; f.action = '/js-form-post'; document.body.appendChild(f); f.submit()`;
    const reveal = `this.insertAdjacentHTML('afterend', '<a href=/revealed.html>r</a>')`;
    const home = html('Home', `<div style="cursor:pointer" onclick="${post}">Continue</div><div style="cursor:pointer" onclick="${reveal}">Show related</div>`);
    const s = keep(
      await startFixtureServer((req, url) => {
        if (req.method !== 'GET') return { body: 'Did POST' };
        if (url.pathname === '/') return { body: home };
        return url.pathname.endsWith('.html') ? { body: html(url.pathname, `<p>${url.pathname}</p>`) } : { status: 404, body: 'no' };
      }),
    );
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const r = recordOf(recs, s, '/');
    expect(linksOf(r)).toEqual(['/revealed.html']);
    // "Continue" once; "Show related" twice: its first click revealed a new link, so it is clicked
    // again (as a "Load more" would be), and that one revealed nothing new.
    expect(r.clickDiscovery).toMatchObject({ made: 3, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
    expect(visited(recs)).toEqual(['/', '/revealed.html']);
    expect(s.log.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('a form sent by POST into a new window is not sent (the page\'s guard does not see a popup\'s requests), and the clicks go on', async () => {
    // form.submit() fires no submit event; requestSubmit() does; a name that no frame has opens a window too.
    const submit = `const f = document.createElement('form'); f.method = 'post'; f.action = '/post-blank'; f.target = '_blank'; document.body.appendChild(f); f.submit()`;
    const home = html(
      'Home',
      `<div style="cursor:pointer" onclick="${submit}">Continue</div>` +
        `<form id="f" method="post" action="/post-named" target="other"><input name="q" value="1"></form><div style="cursor:pointer" onclick="document.getElementById('f').requestSubmit()">Send</div>` +
        `<div style="cursor:pointer" onclick="this.insertAdjacentHTML('afterend', '<a href=/revealed.html>r</a>')">Show related</div>`,
    );
    const s = keep(
      await startFixtureServer((req, url) => {
        if (req.method !== 'GET') return { body: 'Did POST' };
        if (url.pathname === '/') return { body: home };
        return url.pathname.endsWith('.html') ? { body: html(url.pathname, `<p>${url.pathname}</p>`) } : { status: 404, body: 'no' };
      }),
    );
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1, click: 'all' });
    const r = recordOf(recs, s, '/');
    expect(linksOf(r)).toEqual(['/revealed.html']);
    expect(r.clickDiscovery).toMatchObject({ made: 4, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
    expect(s.log.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('a click that takes the page where it cannot be brought back from ends its clicks, and the record says so (restore, not limit)', async () => {
    // A navigation to about:blank makes no request: nothing refuses it, and going back to the
    // page would load it anew, which the guard refuses.
    const home = html('Home', `<div style="cursor:pointer" onclick="location.href = 'about:blank'">Leave</div><div style="cursor:pointer" onclick="this.insertAdjacentHTML('afterend', '<a href=/revealed.html>r</a>')">Show related</div>`);
    const s = keep(await startFixtureServer((_req, url) => (url.pathname === '/' ? { body: home } : { status: 404, body: 'no' })));
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    const r = recordOf(recs, s, '/');
    expect(linksOf(r)).toEqual([]);
    expect(r.clickDiscovery).toMatchObject({ made: 1, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 1 } });
    expect(s.count('/')).toBe(1);
  });
});

describe('what a click stores', () => {
  it('does not change how later pages render: what the clicks stored in localStorage and sessionStorage is put back once the page\'s clicks are over, and what the pages stored before stays', async () => {
    const B_SCRIPT = `addEventListener('DOMContentLoaded', () => {
      document.getElementById('out').innerHTML = '<a href="/">Home</a>'
        + (localStorage.getItem('visited') ? ' <a href="/visited">Visited</a>' : '')
        + (localStorage.getItem('archived') ? ' <a href="/archived">Archived</a>' : '')
        + (sessionStorage.getItem('compact') ? ' <a href="/compact">Compact</a>' : '');
    })`;
    const pages: Record<string, string> = {
      // The app's own state, stored on load (not by a click): it stays.
      '/': html('Home', '<a href="/a">A</a> <a href="/b">B</a>', "<script>localStorage.setItem('visited', '1')</script>"),
      // A preference a person would set by clicking: put back after the clicks.
      '/a': html('A', `<button onclick="localStorage.setItem('archived', '1'); sessionStorage.setItem('compact', '1')">Show archived</button>`),
      '/b': html('B', '<div id="out"></div>', `<script>${B_SCRIPT}</script>`),
      '/visited': html('Visited', '<a href="/">Home</a>'),
    };
    const s = keep(await startFixtureServer((_req, url) => (pages[url.pathname] ? { body: pages[url.pathname] } : { status: 404, body: 'no' })));
    // One tab: /a's clicks are over before /b loads, in the same tab (sessionStorage is a tab's).
    const recs = await run({ seeds: [`${s.origin}/`], concurrency: 1 });
    expect(recordOf(recs, s, '/a').clickDiscovery).toMatchObject({ made: 1, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
    expect(linksOf(recordOf(recs, s, '/b'))).toEqual(['/', '/visited']);
    expect(visited(recs)).toEqual(['/', '/a', '/b', '/visited']);
    expect([s.count('/archived'), s.count('/compact')]).toEqual([0, 0]);
  });
});

describe('--scroll', () => {
  it('reads a slow infinite feed to its end, batch by batch, and requests each batch once', async () => {
    const s = keep(await startFeedSite());
    const recs = await run({ seeds: [`${s.origin}/feed`], maxDepth: 0, scroll: true, click: 'off', settleTimeoutMs: 5000 });
    const all = FEED_BATCHES * FEED_BATCH_SIZE;
    expect(linksOf(recordOf(recs, s, '/feed'))).toEqual(sorted(range(1, all, (i) => `/feed/item/${i}`)));
    expect(recordOf(recs, s, '/feed').linkSources.scroll).toBe(all - FEED_BATCH_SIZE);
    for (let page = 1; page <= FEED_BATCHES; page++) expect([page, s.count(`/api/feed?page=${page}`)]).toEqual([page, 1]);
    expect(s.count(`/api/feed?page=${FEED_BATCHES + 1}`)).toBe(0);
  });

  it('--scroll-limit bounds the steps', async () => {
    const s = keep(await startFeedSite());
    const recs = await run({ seeds: [`${s.origin}/feed`], maxDepth: 0, scroll: true, scrollLimit: 4, click: 'off', settleTimeoutMs: 5000 });
    // Batches are 1000 px, a step 720 px (90 % of the 800 px view), capped at the end of the page:
    // step 1 reaches the end of batch 1 (batch 2 loads), step 2 falls short of the end of batch 2,
    // step 3 reaches it (batch 3 loads), step 4 falls short again; there is no step 5.
    expect(linksOf(recordOf(recs, s, '/feed'))).toEqual(sorted(range(1, 3 * FEED_BATCH_SIZE, (i) => `/feed/item/${i}`)));
    expect(s.count('/api/feed?page=3')).toBe(1);
    expect(s.count('/api/feed?page=4')).toBe(0);
  });

  it('collects every row of virtualized lists, in the window and in an inner scroll container', async () => {
    const s = keep(await startFeedSite());
    const recs = await run({ seeds: [`${s.origin}/rows`, `${s.origin}/box`], maxDepth: 0, scroll: true, click: 'off' });
    expect(linksOf(recordOf(recs, s, '/rows'))).toEqual(sorted(range(0, VIRTUAL_ROWS - 1, (i) => `/row/${i}`)));
    expect(linksOf(recordOf(recs, s, '/box'))).toEqual(sorted(range(0, VIRTUAL_ROWS - 1, (i) => `/box/${i}`)));
  });

  it('collects every row when the two lists scroll at once in tabs of one context (one renderer: a step\'s scroll events come with frames that may lag)', async () => {
    const s = keep(await startFeedSite());
    const recs = await run({ seeds: [`${s.origin}/lists`], maxDepth: 1, concurrency: 2, scroll: true, click: 'off' });
    expect(visited(recs)).toEqual(['/box', '/lists', '/rows']);
    expect(linksOf(recordOf(recs, s, '/rows'))).toEqual(sorted(range(0, VIRTUAL_ROWS - 1, (i) => `/row/${i}`)));
    expect(linksOf(recordOf(recs, s, '/box'))).toEqual(sorted(range(0, VIRTUAL_ROWS - 1, (i) => `/box/${i}`)));
  });
});
