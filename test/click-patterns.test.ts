import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawlSeed } from './helpers/seed-crawl.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

// Click discovery on how app frameworks build navigation: pagers and "Show more" whose first
// click enables the control that undoes it, and controls that act on the press, not the click.

let browser: Browser;
let site: FixtureServer;

const page = (title: string, body: string): string => html(title, body);

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startFixtureServer((_req, url) => {
    switch (url.pathname) {
      case '/pager/':
        // A numbered list pager (DataTables, MUI TablePagination): one post a page, "Previous"
        // disabled on the first page and "Next" on the last.
        return {
          body: page(
            'Pager',
            `<div id="post"></div><nav aria-label="pagination"><button id="prev">Previous</button><button id="next">Next</button></nav>
            <script>
              let p = 1;
              const draw = () => { document.getElementById('post').innerHTML = '<a href="/pager/post-' + p + '">Post ' + p + '</a>'; prev.disabled = p === 1; next.disabled = p === 12; };
              next.addEventListener('click', () => { p++; draw(); });
              prev.addEventListener('click', () => { p--; draw(); });
              draw();
            </script>`,
          ),
        };
      case '/more/':
        // "Show more" appends two links a click, five times; "Show less", there once more was
        // shown, takes them all away again.
        return {
          body: page(
            'More',
            `<ul id="list"></ul><button id="more">Show more</button><span id="less-slot"></span>
            <script>
              let n = 0;
              const draw = () => {
                document.getElementById('list').innerHTML = Array.from({ length: 2 + 2 * n }, (_, i) => '<li><a href="/more/item-' + (i + 1) + '">Item ' + (i + 1) + '</a></li>').join('');
                document.getElementById('more').hidden = n === 5;
                const slot = document.getElementById('less-slot');
                if (n > 0 && !slot.firstChild) { const b = document.createElement('button'); b.textContent = 'Show less'; b.addEventListener('click', () => { n = 0; draw(); }); slot.appendChild(b); }
                if (n === 0) slot.innerHTML = '';
              };
              document.getElementById('more').addEventListener('click', () => { n++; draw(); });
              draw();
            </script>`,
          ),
        };
      case '/press/':
        // Controls that act on the press (radix-ui/primitives#3424: a DropdownMenu trigger opens
        // on pointerdown, and element.click() never opens it): a menu trigger that cancels its
        // pointerdown, a row that navigates on mousedown, a button that navigates on pointerup.
        return {
          body: page(
            'Press',
            `<header><button id="account" aria-haspopup="menu" aria-expanded="false">Account</button><div id="menu"></div></header>
            <main><div id="row" style="cursor: pointer">Quarterly report</div><button id="up">Open archive</button></main>
            <script>
              const t = document.getElementById('account');
              t.addEventListener('pointerdown', (e) => {
                if (e.button !== 0 || e.ctrlKey) return;
                e.preventDefault();
                const open = t.getAttribute('aria-expanded') === 'true';
                t.setAttribute('aria-expanded', String(!open));
                document.getElementById('menu').innerHTML = open ? '' : '<a href="/press/profile">Profile</a><a href="/press/settings">Settings</a>';
              });
              document.getElementById('row').addEventListener('mousedown', () => { location.href = '/press/row'; });
              document.getElementById('up').addEventListener('pointerup', () => { location.href = '/press/up'; });
            </script>`,
          ),
        };
      case '/slides/':
        // A slide deck (reveal.js): "previous" and "next" buttons write the slide's hash with
        // replaceState, and the deck reads the hash on hashchange only (no popstate listener).
        return {
          body: page(
            'Slides',
            `<div id="slide"></div><button id="prev" aria-label="previous slide">&lt;</button><button id="next" aria-label="next slide">&gt;</button>
            <script>
              let n = 0;
              const draw = () => { document.getElementById('slide').textContent = 'Slide ' + n; prev.disabled = n === 0; next.disabled = n === 3; };
              const read = () => { n = Number((/^#\\/(\\d)$/.exec(location.hash) || [0, 0])[1]); draw(); };
              const go = (to) => { n = to; draw(); history.replaceState(null, '', '#/' + n); };
              prev.addEventListener('click', () => go(n - 1));
              next.addEventListener('click', () => go(n + 1));
              window.addEventListener('hashchange', read);
              read();
            </script>`,
          ),
        };
      case '/legacy/':
        // A page on a library that puts its own `Event` and `Element` on the window (MooTools 1.2
        // and 1.3, as older Joomla sites ship it), before its own controls: a version switcher
        // that navigates on change, and a card that navigates on a click listener alone.
        return {
          body: page(
            'Legacy',
            `<script>
              window.Event = function MooEvent(event) { this.event = event; };
              window.Element = function MooElement(tag) { return document.createElement(tag); };
            </script>
            <select id="version"><option value="">Version</option><option value="/legacy/v2">2.x</option></select>
            <div id="card">Release notes</div>
            <script>
              document.getElementById('version').onchange = function () { if (this.value) location.href = this.value; };
              document.getElementById('card').addEventListener('click', () => { location.href = '/legacy/notes'; });
            </script>`,
          ),
        };
      default:
        return { body: page(`Page ${url.pathname}`, '') };
    }
  });
});
afterAll(async () => {
  await site?.close();
});

const seedRecord = async (seed: string, opts: Partial<CrawlOptions> = {}): Promise<PageRecord> => (await crawlSeed(browser, `${site.origin}${seed}`, opts)).seed;
const paths = (urls: string[]): string[] => urls.map((u) => new URL(u).pathname).sort();
const range = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).sort();

describe('click chains a revealed control undoes', () => {
  it('a pager whose "Previous" the first "Next" enables is followed to its last page', async () => {
    site.reset();
    const seed = await seedRecord('/pager/');
    expect(paths(seed.links)).toEqual(range('/pager/post-', 12));
    // Next, Previous (back to page 1), Next (page 2 again), then ten more Nexts to page 12.
    expect(seed.clickDiscovery).toMatchObject({ made: 13, skipped: { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 } });
    expect(range('/pager/post-', 12).map((p) => site.count(p))).toEqual(Array(12).fill(0));
  });

  it('"Show more" goes on to its end after the "Show less" it revealed took everything away', async () => {
    const seed = await seedRecord('/more/');
    expect(paths(seed.links)).toEqual(range('/more/item-', 12));
    // Show more, Show less, Show more (the first two again), then four more to the end.
    expect(seed.clickDiscovery?.made).toBe(7);
  });
});

describe('restoring the page after a click that replaced its URL', () => {
  it('a deck that reads its hash on hashchange only is put back on its slide: each button is read from the seed\'s slide', async () => {
    const seed = await seedRecord('/slides/#/1');
    // "previous" goes to slide 0 and "next" to slide 2. Restored without a hashchange, the deck
    // stayed on slide 0 under the URL of slide 1, and "next" then went to slide 1 (the seed).
    expect([...seed.links].sort()).toEqual([`${site.origin}/slides/#/0`, `${site.origin}/slides/#/2`]);
    expect(seed.clickDiscovery?.made).toBe(2);
  });
});

describe('controls that act on the press', () => {
  it('a menu trigger opening on pointerdown, a row navigating on mousedown and a button on pointerup are worked as a mouse works them', async () => {
    site.reset();
    const seed = await seedRecord('/press/');
    expect(paths(seed.links)).toEqual(['/press/profile', '/press/row', '/press/settings', '/press/up']);
    // One press each: the open trigger says so (aria-expanded) and is not pressed again.
    expect(seed.clickDiscovery?.made).toBe(3);
    // The navigations were refused while clicking: found as links, not loaded.
    expect(['/press/row', '/press/up', '/press/profile'].map((p) => site.count(p))).toEqual([0, 0, 0]);
  });
});

describe('a page whose library replaced the browser\'s event and element constructors', () => {
  it('its select is chosen and its listener-only card clicked with the browser\'s own: both targets found, neither loaded', async () => {
    site.reset();
    const seed = await seedRecord('/legacy/');
    expect(paths(seed.links)).toEqual(['/legacy/notes', '/legacy/v2']);
    expect(seed.clickDiscovery?.made).toBe(2);
    expect(['/legacy/notes', '/legacy/v2'].map((p) => site.count(p))).toEqual([0, 0]);
  });
});
