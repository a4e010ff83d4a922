import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawlSeed } from './helpers/seed-crawl.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

// Controls a person works otherwise than by a click: menus that open on hover, jump menus and
// filters (`<select>`), checkboxes with a handler of their own.

let browser: Browser;
let site: FixtureServer;

const page = (title: string, body: string): string => html(title, body);

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startFixtureServer((_req, url) => {
    switch (url.pathname) {
      case '/hover/':
        // A link whose menu opens on hover (the links are made on mouseenter of its list item),
        // and a trigger with no role or pointer, only aria-haspopup.
        return {
          body: page(
            'Hover',
            `<nav><ul>
              <li id="products"><a href="/hover/products" aria-haspopup="true" aria-expanded="false">Products</a><div id="sub1"></div></li>
              <li id="company"><span aria-haspopup="menu">Company</span><div id="sub2"></div></li>
            </ul></nav>
            <script>
              const li = document.getElementById('products');
              li.addEventListener('mouseenter', () => { document.getElementById('sub1').innerHTML = '<a href="/hover/widgets">Widgets</a>'; li.firstElementChild.setAttribute('aria-expanded', 'true'); });
              li.addEventListener('mouseleave', () => { document.getElementById('sub1').innerHTML = ''; li.firstElementChild.setAttribute('aria-expanded', 'false'); });
              document.getElementById('company').addEventListener('mouseenter', () => { document.getElementById('sub2').innerHTML = '<a href="/hover/jobs">Jobs</a>'; });
            </script>`,
          ),
        };
      case '/raises/':
        // An error and a failed request as loaded; a button whose click logs a console error
        // and the page's own error again, a hydration mismatch (an island hydrated on click),
        // asks for a missing resource and then throws; a hover card whose mouseenter throws.
        return {
          body: page(
            'Raises',
            `<button id="sample">Swift</button><span id="tip">Ada</span>
            <script>
              console.error('boot failed');
              fetch('/raises/boot.json');
              document.getElementById('sample').addEventListener('click', () => {
                console.error('sample failed');
                console.error('boot failed');
                console.error("Uncaught Error: Hydration failed because the server rendered text didn't match the client.");
                fetch('/raises/sample.json').then(() => { throw new TypeError('x is undefined'); });
              });
              document.getElementById('tip').addEventListener('mouseenter', () => { throw new RangeError('no card'); });
            </script>`,
          ),
        };
      case '/forms/':
        return {
          body: page(
            'Forms',
            `<label>Version <select onchange="location.href = this.value"><option value="/forms/v3/">v3</option><option value="/forms/v2/">v2</option><option value="/forms/v1/">v1</option></select></label>
            <label>Region <select id="region"><option value="">Choose</option><option value="eu">EU</option><option value="us">US</option></select></label><div id="stores"></div>
            <label><input type="checkbox" id="archived"> Show archived</label><div id="archive"></div>
            <label>Country <select name="country" id="country">${Array.from({ length: 30 }, (_, i) => `<option value="c${i}">C${i}</option>`).join('')}</select></label>
            <label>Size <select id="size">${Array.from({ length: 30 }, (_, i) => `<option value="s${i}">S${i}</option>`).join('')}</select></label><div id="sized"></div>
            <script>
              document.getElementById('region').onchange = (e) => { document.getElementById('stores').innerHTML = '<a href="/forms/stores/' + e.target.value + '">Stores</a>'; };
              document.getElementById('archived').onchange = (e) => { document.getElementById('archive').innerHTML = e.target.checked ? '<a href="/forms/archive">Archive</a>' : ''; };
              document.getElementById('size').onchange = (e) => { document.getElementById('sized').innerHTML = '<a href="/forms/size/' + e.target.value + '">Size</a>'; };
            </script>`,
          ),
        };
      case '/cards/':
        // Cards wired by addEventListener only (no role, pointer or onclick): one navigates, one reveals.
        return {
          body: page('Cards', `<div class="card" id="c1">Widgets</div><div class="card" id="c2">Gadgets</div><div id="out"></div>
            <table id="rows"><tr data-href="/cards/row-1"><td>Row one</td></tr><tr data-href="/cards/row-2"><td>Row two</td></tr></table>
            <script>
              document.getElementById('rows').addEventListener('click', (e) => { const tr = e.target.closest('tr'); if (tr) location.href = tr.dataset.href; });
              document.getElementById('c1').addEventListener('click', () => { location.href = '/cards/widgets'; });
              document.getElementById('c2').addEventListener('click', () => { document.getElementById('out').innerHTML = '<a href="/cards/gadgets">Gadgets</a>'; });
            </script>`),
        };
      case '/prop/':
        // A handler set as a property by a script: no attribute, no role, no pointer.
        return {
          body: page('Prop', `<span id="more">More</span><div id="out"></div>
            <script>document.getElementById('more').onclick = () => { document.getElementById('out').innerHTML = '<a href="/prop/revealed">Revealed</a>'; };</script>`),
        };
      case '/js/':
        // Anchors whose href is a javascript: URL and whose handler is the way on (katana#1358,
        // headless-chrome-crawler#373): one navigates by onclick, one reveals a link through a
        // listener, one by onclick while its URL's code would go elsewhere; one destroys. One has
        // no handler: only its URL's code, which a crawler never runs (../shared/cases/20).
        return {
          body: page('JS', `<a href="javascript:void(0)" onclick="location.href='/js/by-onclick'">Onclick</a>
            <a href="javascript:openPage('/js/by-url')">By its URL</a>
            <a href="JavaScript:;" id="more">More</a><div id="out"></div>
            <a href="javascript:location.href='/js/ran'" onclick="document.getElementById('out2').innerHTML = '<a href=/js/handled>Handled</a>'">Both</a><div id="out2"></div>
            <a href="javascript:void(0)" onclick="fetch('/js/deleted', { method: 'POST' })">Delete account</a>
            <script>
              function openPage(p) { location.href = p; }
              document.getElementById('more').addEventListener('click', () => { document.getElementById('out').innerHTML = '<a href="/js/revealed">Revealed</a>'; });
            </script>`),
        };
      case '/raises/boot.json':
      case '/raises/sample.json':
        return { status: 404, body: 'not found' };
      default:
        return { body: page(`Page ${url.pathname}`, '') };
    }
  });
});
afterAll(async () => {
  await site?.close();
});

const linksOfSeed = (seed: string, opts: Partial<CrawlOptions> = {}): Promise<{ seed: PageRecord; all: PageRecord[] }> => crawlSeed(browser, `${site.origin}${seed}`, opts);
const paths = (urls: string[]): string[] => urls.map((u) => new URL(u).pathname).sort();

describe('what the page raises while its controls are worked', () => {
  it("is the clicks', each with the control worked last, apart from what the page raised as loaded (and raises again)", async () => {
    const { seed } = await linksOfSeed('/raises/');
    expect(seed.consoleErrors).toEqual(['boot failed']);
    expect(seed.pageErrors).toEqual([]);
    expect(seed.spa.hydration).toEqual([]);
    expect(seed.failedRequests.map((f) => [new URL(f.url).pathname, f.status])).toEqual([['/raises/boot.json', 404]]);
    expect(seed.clickDiscovery?.clicked).toEqual(['button|Swift|body', 'hover:span|Ada|body']);
    const hydration = "Uncaught Error: Hydration failed because the server rendered text didn't match the client.";
    expect(seed.clickDiscovery?.errors).toEqual([
      { control: 'button|Swift|body', kind: 'console', message: 'sample failed' },
      { control: 'button|Swift|body', kind: 'hydration', message: `React: ${hydration}` },
      { control: 'button|Swift|body', kind: 'console', message: hydration },
      { control: 'button|Swift|body', kind: 'request', message: `fetch ${site.origin}/raises/sample.json: 404` },
      { control: 'button|Swift|body', kind: 'page', message: expect.stringMatching(/^TypeError: x is undefined \(at /) },
      { control: 'hover:span|Ada|body', kind: 'page', message: expect.stringMatching(/^RangeError: no card \(at /) },
    ]);
  });
});

describe('controls worked otherwise than by a click', () => {
  it('menus that open on hover (aria-haspopup, on a link too) are hovered: their links are found, the trigger link is not clicked', async () => {
    site.reset();
    const { seed } = await linksOfSeed('/hover/');
    expect(paths(seed.links)).toEqual(['/hover/jobs', '/hover/products', '/hover/widgets']);
    expect(seed.clickDiscovery?.made).toBe(2);
    expect(site.count('/hover/products')).toBe(0);
  });

  it('jump menus and filters are chosen option by option (at most 20 of a select), checkboxes with a handler are clicked; a select without a handler or URLs is left alone', async () => {
    site.reset();
    const { seed } = await linksOfSeed('/forms/');
    expect(paths(seed.links)).toEqual([
      '/forms/archive',
      '/forms/stores/eu',
      '/forms/stores/us',
      ...Array.from({ length: 20 }, (_, i) => `/forms/size/s${i}`),
      '/forms/v1/',
      '/forms/v2/',
      '/forms/v3/',
    ].sort());
    // 3 versions, 2 regions, the checkbox, 20 sizes; none of the 30 countries.
    expect(seed.clickDiscovery?.made).toBe(26);
    // The jump menu's navigations were refused while clicking: found as links, not loaded.
    expect(['/forms/v1/', '/forms/v2/', '/forms/v3/'].map((p) => site.count(p))).toEqual([0, 0, 0]);
  });

  it('an element whose onclick handler a script set as a property is clicked', async () => {
    const { seed } = await linksOfSeed('/prop/');
    expect(paths(seed.links)).toEqual(['/prop/revealed']);
    // Clicked again since its click revealed a link ("Load more"), which showed nothing new.
    expect(seed.clickDiscovery?.made).toBe(2);
  });

  it('elements given a click listener by addEventListener alone are clicked (a card that navigates, one that reveals a link), and rows with data-href whose table handles the click', async () => {
    site.reset();
    const { seed } = await linksOfSeed('/cards/');
    expect(paths(seed.links)).toEqual(['/cards/gadgets', '/cards/row-1', '/cards/row-2', '/cards/widgets']);
    expect(site.count('/cards/widgets')).toBe(0);
  });

  it('anchors whose href is a javascript: URL and that have a handler are buttons in disguise: clicked, their URL never run; without a handler never clicked; a destructive one not clicked', async () => {
    site.reset();
    const { seed } = await linksOfSeed('/js/');
    expect(paths(seed.links)).toEqual(['/js/by-onclick', '/js/handled', '/js/revealed']);
    expect(['/js/by-onclick', '/js/by-url', '/js/deleted', '/js/ran'].map((p) => site.count(p))).toEqual([0, 0, 0, 0]);
    // Onclick once; More and Both twice each (a click that revealed a link is tried again, as "Load more" is).
    expect(seed.clickDiscovery?.made).toBe(5);
  });

  it('--click off works none of them', async () => {
    const { seed } = await linksOfSeed('/forms/', { click: 'off' });
    expect(seed.links).toEqual([]);
  });
});
