import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawlSeed } from './helpers/seed-crawl.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

// Controls whose handler no listener of their own shows: React and Solid keep an element's
// handlers on the element and dispatch every event from one listener at the app's root; and
// controls that answer the hover, not the click (hover cards, menus opening on mouseenter); and
// form controls whose change handler is a listener or such a prop.

let browser: Browser;
let site: FixtureServer;

/** jQuery 1.12 (its data in `jQuery.cache`), 3.7 and 4.0 (on the element), served to the pages as `/jquery-<major>.js`. */
const JQUERY: Record<string, string> = Object.fromEntries(
  [['1', 'jquery1'], ['3', 'jquery'], ['4', 'jquery4']].map(([major, pkg]) => [`/jquery-${major}.js`, readFileSync(new URL(`../node_modules/${pkg}/dist/jquery.min.js`, import.meta.url), 'utf8')]),
);

const page = (title: string, body: string): string => html(title, body);

/**
 * A tiny renderer built as React 17+ is: the root container is marked `__reactContainer$<id>`,
 * each element carries its props under `__reactProps$<id>` (React 16: `__reactEventHandlers$<id>`),
 * and one listener per event type on the root walks up from the target calling the props'
 * handlers until one stops the propagation. Rows navigate with `pushState` (a router's
 * `navigate()`), with no pointer cursor (a MUI `TableRow hover` has none) and no role.
 */
const reactLike = (propsKey: string): string => `<div id="root"></div>
<script>
  const ID = 'k' + Math.random().toString(36).slice(2);
  const PROPS = '${propsKey}' + ID;
  const root = document.getElementById('root');
  root['__reactContainer$' + ID] = {};
  const dispatch = (name) => (e) => { for (let n = e.target; n && n !== root && !e.cancelBubble; n = n.parentNode) n[PROPS]?.[name]?.(e); };
  for (const [type, name] of [['click', 'onClick'], ['mouseover', 'onMouseOver'], ['mousedown', 'onMouseDown']]) root.addEventListener(type, dispatch(name));
  const h = (tag, props, ...kids) => { const el = document.createElement(tag); el[PROPS] = props; if (props.className) el.className = props.className; el.append(...kids); return el; };
  const navigate = (path) => { history.pushState({}, '', path); render(); };
  function render() {
    root.replaceChildren();
    if (!location.pathname.endsWith('/')) return root.append(h('h1', {}, 'Item'));
    const table = h('table', {});
    for (const i of [1, 2, 3]) table.append(h('tr', { className: 'MuiTableRow-hover', onClick: () => navigate(location.pathname + 'item-' + i) }, h('td', {}, 'Row ' + i)));
    root.append(table, h('div', { onMouseDown: () => navigate(location.pathname + 'pressed') }, 'Pressed card'));
    // A product card that navigates, holding a wishlist button of its own (which reveals nothing).
    root.append(h('div', { className: 'card', onClick: () => navigate(location.pathname + 'product') }, h('h3', {}, 'Product'), h('button', { onClick: (e) => e.stopPropagation() }, 'Wishlist')));
  }
  addEventListener('popstate', render);
  render();
</script>`;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startFixtureServer((_req, url) => {
    if (url.pathname === '/react/') return { body: page('React', reactLike('__reactProps$')) };
    if (url.pathname === '/react16/') return { body: page('React 16', reactLike('__reactEventHandlers$')) };
    switch (url.pathname) {
      case '/solid/':
        // Solid's delegated events: `$$click` on the element, one listener on the document.
        return {
          body: page(
            'Solid',
            `<ul id="list"></ul>
            <script>
              document.addEventListener('click', (e) => { for (let n = e.target; n; n = n.parentNode) if (n.$$click) return n.$$click(e); });
              for (const i of [1, 2]) { const li = document.createElement('li'); li.textContent = 'Item ' + i; li.$$click = () => history.pushState({}, '', '/solid/item-' + i); document.getElementById('list').append(li); }
            </script>`,
          ),
        };
      case '/svelte/':
        // Svelte 5's delegated events: \`__click\` (a handler and its arguments) and \`__mouseover\`
        // on the element, one listener per event type at the mount target.
        return {
          body: page(
            'Svelte',
            `<main id="app"></main><div id="tip"></div>
            <script>
              const app = document.getElementById('app');
              for (const type of ['click', 'mouseover']) app.addEventListener(type, (e) => { for (let n = e.target; n && n !== app; n = n.parentNode) { const h = n['__' + type]; if (h) return Array.isArray(h) ? h[0](e, ...h.slice(1)) : h(e); } });
              const go = (_e, path) => history.pushState({}, '', path);
              for (const i of [1, 2]) { const d = document.createElement('div'); d.textContent = 'Card ' + i; d.__click = [go, '/svelte/card-' + i]; app.append(d); }
              const name = document.createElement('span'); name.textContent = 'Ada'; name.__mouseover = () => { document.getElementById('tip').innerHTML = '<a href="/svelte/ada">Ada</a>'; }; app.append(name);
            </script>`,
          ),
        };
      case '/change/':
        // Jump menus and a filter checkbox whose handler is a `change` listener (Vue's @change,
        // Svelte 4's on:change) or React's delegated onChange, with values that are not URLs.
        return {
          body: page(
            'Change',
            `<label>Language <select id="lang"><option value="en">English</option><option value="de">Deutsch</option></select></label>
            <label><input type="checkbox" id="archived"> Archived</label><div id="out"></div>
            <div id="root"><label>Version <select id="version"><option value="v2">v2</option><option value="v1">v1</option></select></label></div>
            <script>
              document.getElementById('lang').addEventListener('change', (e) => { location.href = '/change/' + e.target.value + '/'; });
              document.getElementById('archived').addEventListener('change', (e) => { document.getElementById('out').innerHTML = e.target.checked ? '<a href="/change/archive">Archive</a>' : ''; });
              const root = document.getElementById('root');
              root['__reactContainer$k1'] = {};
              document.getElementById('version')['__reactProps$k1'] = { onChange: (e) => history.pushState({}, '', '/change/docs/' + e.target.value) };
              root.addEventListener('change', (e) => e.target['__reactProps$k1']?.onChange?.(e));
            </script>`,
          ),
        };
      case '/hover/':
        // A menu that opens on mouseenter of a trigger with a pointer and no click handler (no
        // aria-haspopup), and a hover card on a name with neither pointer nor role.
        return {
          body: page(
            'Hover',
            `<nav><span id="products" style="cursor: pointer">Products</span><div id="mega"></div></nav>
            <main><p>Written by <span id="author">Ada</span></p><div id="card"></div></main>
            <script>
              document.getElementById('products').addEventListener('mouseenter', () => { document.getElementById('mega').innerHTML = '<a href="/hover/widgets">Widgets</a><a href="/hover/gadgets">Gadgets</a>'; });
              document.getElementById('author').onmouseover = () => { document.getElementById('card').innerHTML = '<a href="/hover/users/ada">Ada\\'s profile</a>'; };
            </script>`,
          ),
        };
      case '/rows/':
        // Rows highlighted on mouseenter (nothing revealed), and a menu bar whose items open
        // their menu on mouseenter.
        return {
          body: page(
            'Rows',
            `<nav><ul>${[1, 2, 3, 4].map((i) => `<li class="menu"><span>Menu ${i}</span><div></div></li>`).join('')}</ul></nav>
            <table>${Array.from({ length: 10 }, (_, i) => `<tr><td>Row ${i}</td></tr>`).join('')}</table>
            <script>
              document.querySelectorAll('li.menu').forEach((li, i) => li.addEventListener('mouseenter', () => { li.lastElementChild.innerHTML = '<a href="/rows/menu-' + (i + 1) + '">Item</a>'; }));
              document.querySelectorAll('tr').forEach((tr) => tr.addEventListener('mouseenter', () => tr.classList.add('hi')));
            </script>`,
          ),
        };
      case '/composite/':
        // Composite widgets whose container has a handler of its own (React Aria's and Radix's
        // tablists and menus take the pointer and the keys on the container) or a pointer
        // cursor: the tabs and the menu items are the controls, not the container.
        return {
          body: page(
            'Composite',
            `<div id="root"><div role="tablist" id="tabs"><div role="tab" aria-selected="true">One</div><div role="tab" aria-selected="false" id="two">Two</div></div><div id="panel"></div></div>
            <div role="menu" style="cursor: pointer"><div role="menuitem" id="export">Export</div></div><div id="done"></div>
            <script>
              const root = document.getElementById('root');
              root['__reactContainer$k1'] = {};
              document.getElementById('tabs')['__reactProps$k1'] = { onPointerDown: () => {}, onKeyDown: () => {} };
              document.getElementById('two')['__reactProps$k1'] = { onClick: () => { document.getElementById('panel').innerHTML = '<a href="/composite/two">Two</a>'; } };
              root.addEventListener('click', (e) => { for (let n = e.target; n && n !== root; n = n.parentNode) n['__reactProps$k1']?.onClick?.(e); });
              document.getElementById('export').addEventListener('click', () => { document.getElementById('done').innerHTML = '<a href="/composite/export">Exported</a>'; });
            </script>`,
          ),
        };
      case '/vanilla/':
        // Delegation written by hand: the document's listener tests the target with closest()
        // (cards), the window's with matches() (a toggle), the body's mousedown listener a class
        // (classList.contains), a list's listener its items (the list, whose listener may act for
        // it too, stays a control); a router's listener testing bare 'a' and 'li' names no control
        // (the page's other list items are not clicked); a card whose own listener tests a
        // button inside it and otherwise opens the card: both are controls.
        return {
          body: page(
            'Vanilla',
            `<div class="card" data-id="widgets">Widgets</div><div class="card" data-id="gadgets">Gadgets</div>
            <span class="toggle">Toggle</span> <span class="more">More</span>
            <ul id="tabs"><li data-tab="one">One</li><li data-tab="two">Two</li></ul>
            <ul><li>Plain</li><li>Other</li></ul><div id="product">Product <span class="fav">Fav</span></div><div id="out"></div>
            <script>
              const reveal = (path) => document.getElementById('out').insertAdjacentHTML('beforeend', '<a href="' + path + '">' + path + '</a>');
              document.addEventListener('click', (e) => { const card = e.target.closest(".card"); if (card) reveal('/vanilla/' + card.dataset.id); });
              window.addEventListener('click', function (e) { if (e.target.matches('span.toggle')) reveal('/vanilla/toggled'); });
              document.body.addEventListener('mousedown', (e) => { if (e.target.classList.contains('more')) reveal('/vanilla/more'); });
              document.getElementById('tabs').addEventListener('click', (e) => { const li = e.target.closest('li[data-tab]'); if (li) reveal('/vanilla/tab-' + li.dataset.tab); });
              document.addEventListener('click', (e) => { if (e.target.closest('a') || e.target.closest('li')) return; });
              document.getElementById('product').addEventListener('click', (e) => reveal(e.target.closest('.fav') ? '/vanilla/fav' : '/vanilla/product'));
            </script>`,
          ),
        };
      case '/blazor/':
        // Blazor's event delegator: handlers by event name on the element, one listener per
        // event name on the document walking up from the target.
        return {
          body: page(
            'Blazor',
            `<div id="counter">Counter</div><div id="field">Field</div><div id="out"></div>
            <script>
              const KEY = '_blazorEvents_1';
              document.getElementById('counter')[KEY] = { handlers: { click: { eventHandlerId: 3, eventName: 'click' } } };
              document.getElementById('field')[KEY] = { handlers: { focus: { eventHandlerId: 4, eventName: 'focus' } } };
              document.addEventListener('click', (e) => { for (let n = e.target; n; n = n.parentNode) if (n[KEY]?.handlers.click) document.getElementById('out').innerHTML = '<a href="/blazor/counter">Counter</a>'; });
            </script>`,
          ),
        };
      case '/jquery/1/':
      case '/jquery/3/':
      case '/jquery/4/':
        // jQuery's delegated handlers (on the document, on a table) for elements with no
        // listener, property, role or pointer of their own; one selector in jQuery's own
        // dialect (`:visible`); a handler delegated to every element (`*`, a click tracker)
        // that names no control; and a paragraph nothing handles.
        return {
          body: page(
            'jQuery',
            `<script src="/jquery-${url.pathname.split('/')[2]}.js"></script>
            <table id="rows"><tr class="row" id="r1"><td>Row one</td></tr><tr class="row" id="r2"><td>Row two</td></tr></table>
            <span class="more">More</span> <span class="ext">Extra</span> <a class="open" href="javascript:void(0)">Open</a>
            <p>Written by <span class="author">Ada</span></p><p>Nothing here</p><div id="out"></div>
            <script>
              const reveal = (path) => $('#out').append('<a href="' + path + '">' + path + '</a>');
              $('#rows').on('click', 'tr.row', function () { reveal('/jquery/row-' + this.id); });
              $(document).on('click', '.more', () => reveal('/jquery/more'));
              $(document).on('click', 'span.ext:visible', () => reveal('/jquery/extra'));
              $(document).on('click', 'a.open', (e) => { e.preventDefault(); reveal('/jquery/open'); });
              $(document).on('mouseenter', '.author', () => reveal('/jquery/ada'));
              $(document).on('click', '*', () => {});
            </script>`,
          ),
        };
      case '/jquery-1.js':
      case '/jquery-3.js':
      case '/jquery-4.js':
        return { contentType: 'text/javascript', body: JQUERY[url.pathname]! };
      case '/dispatch/':
        // One listener on the document dispatches by an attribute: jsaction (a bare name is a
        // click; a hover one is not clicked), Ember's data-ember-action, LiveView's phx-click and Qwik's on:click.
        return {
          body: page(
            'Dispatch',
            `<div jsaction="click:app.open">Open panel</div><div jsaction="app.more">More</div><div jsaction="mouseover:app.peek">Peek</div>
            <span data-ember-action="" data-ember-action-12="12">Edit</span><span phx-click="inc">Add</span><div on:click="q-chunk.js#s_open[0]">Details</div><div id="out"></div>
            <script>
              const to = { 'Open panel': '/dispatch/panel', More: '/dispatch/more', Edit: '/dispatch/edit', Peek: '/dispatch/peek', Add: '/dispatch/add', Details: '/dispatch/details' };
              // The selector is not written in the listener (as in a dispatcher's code): only the attributes name the controls.
              const marked = ['[jsaction]', '[data-ember-action]', '[phx-click]', '[on\\\\:click]'].join(', ');
              document.addEventListener('click', (e) => { const el = e.target.closest(marked); if (el) document.getElementById('out').insertAdjacentHTML('beforeend', '<a href="' + to[el.textContent] + '">x</a>'); });
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

const linksOfSeed = async (seed: string, opts: Partial<CrawlOptions> = {}): Promise<PageRecord> => (await crawlSeed(browser, `${site.origin}${seed}`, opts)).seed;
const paths = (urls: string[]): string[] => urls.map((u) => new URL(u).pathname).sort();

describe('handlers a framework keeps on the element', () => {
  it("React's delegated onClick and onMouseDown (17+ and 16) are clicked, a card holding a button too; the app's root is not", async () => {
    for (const app of ['/react/', '/react16/']) {
      const seed = await linksOfSeed(app);
      expect(paths(seed.links)).toEqual(['item-1', 'item-2', 'item-3', 'pressed', 'product'].map((p) => `${app}${p}`));
      // One click a row, one a card, one for the wishlist button: the root container, whose
      // listeners serve the whole app, is not clicked.
      expect(seed.clickDiscovery?.made).toBe(6);
    }
  });

  it("Blazor's @onclick (kept under _blazorEvents_<n>, dispatched from the document) is clicked; an element with only another event's handler is not", async () => {
    const seed = await linksOfSeed('/blazor/');
    expect(paths(seed.links)).toEqual(['/blazor/counter']);
    expect(seed.clickDiscovery?.clicked).toEqual(['div|Counter|body']);
  });

  it("Solid's delegated $$click is clicked", async () => {
    const seed = await linksOfSeed('/solid/');
    expect(paths(seed.links)).toEqual(['/solid/item-1', '/solid/item-2']);
  });

  it("Svelte 5's delegated __click is clicked and its __mouseover hovered", async () => {
    const seed = await linksOfSeed('/svelte/');
    expect(paths(seed.links)).toEqual(['/svelte/ada', '/svelte/card-1', '/svelte/card-2']);
    // Two cards, one hover, and the mount target: its own click listener, over no link or
    // control the scan's selector knows, makes it a control too (as before; Svelte marks no root).
    expect(seed.clickDiscovery?.made).toBe(4);
  });
});

describe('handlers delegated to an ancestor that name the element', () => {
  it("jQuery's delegated handlers (1.12, 3.7, 4.0) are clicked and hovered, one in jQuery's selector dialect too; one for every element names none", async () => {
    for (const v of ['1', '3', '4']) {
      const seed = await linksOfSeed(`/jquery/${v}/`);
      expect(paths(seed.links)).toEqual(['/jquery/ada', '/jquery/extra', '/jquery/more', '/jquery/open', '/jquery/row-r1', '/jquery/row-r2']);
      expect(seed.clickDiscovery?.clicked).toEqual(
        expect.arrayContaining(['tr|Row one|body', 'tr|Row two|body', 'span|More|body', 'span|Extra|body', 'a|Open|body', 'hover:span|Ada|body']),
      );
      expect(seed.clickDiscovery?.clicked).toHaveLength(6);
    }
  });

  it('listeners written by hand that test the target with closest() or matches() name their controls; a bare tag tested page-wide names none; the listening element itself stays a control', async () => {
    const seed = await linksOfSeed('/vanilla/');
    expect(paths(seed.links)).toEqual(['/vanilla/fav', '/vanilla/gadgets', '/vanilla/more', '/vanilla/product', '/vanilla/tab-one', '/vanilla/tab-two', '/vanilla/toggled', '/vanilla/widgets']);
    expect(seed.clickDiscovery?.clicked?.slice().sort()).toEqual([
      'div|Gadgets|body',
      'div|Product Fav|body',
      'div|Widgets|body',
      'li|One|body',
      'li|Two|body',
      'span|Fav|body',
      'span|More|body',
      'span|Toggle|body',
      'ul|One Two|body',
    ]);
  });

  it("a page-wide dispatcher's attributes: jsaction's clicks (a bare name too, not a hover), Ember's data-ember-action, LiveView's phx-click, Qwik's on:click", async () => {
    const seed = await linksOfSeed('/dispatch/');
    expect(paths(seed.links)).toEqual(['/dispatch/add', '/dispatch/details', '/dispatch/edit', '/dispatch/more', '/dispatch/panel']);
    expect(seed.clickDiscovery?.clicked?.slice().sort()).toEqual(['div|Details|body', 'div|More|body', 'div|Open panel|body', 'span|Add|body', 'span|Edit|body']);
  });
});

describe('composite widgets', () => {
  it('a tablist or menu with a handler or a pointer of its own is not clicked; its tabs and items are', async () => {
    const seed = await linksOfSeed('/composite/');
    expect(paths(seed.links)).toEqual(['/composite/export', '/composite/two']);
    // "Two" and "Export" twice each (a click that revealed a link is tried again; "One" is
    // selected already): not the tablist, not the menu (6 clicks when they were).
    expect(seed.clickDiscovery?.made).toBe(4);
  });
});

describe('form controls whose handler is a listener or a framework prop', () => {
  it('selects are chosen option by option and a checkbox is checked', async () => {
    const seed = await linksOfSeed('/change/');
    expect(paths(seed.links)).toEqual(['/change/archive', '/change/de/', '/change/docs/v1', '/change/docs/v2', '/change/en/']);
    expect(seed.clickDiscovery?.made).toBe(5);
  });
});

describe('controls that answer the hover', () => {
  it('a menu opening on mouseenter (pointer, no click handler) and a hover card are hovered, and their links found', async () => {
    const seed = await linksOfSeed('/hover/');
    expect(paths(seed.links)).toEqual(['/hover/gadgets', '/hover/users/ada', '/hover/widgets']);
    expect(seed.clickDiscovery?.made).toBe(2);
  });

  it('a template whose first 3 hovers revealed nothing on a page is not hovered further there; one whose hover reveals links is hovered throughout', async () => {
    const seed = await linksOfSeed('/rows/');
    expect(paths(seed.links)).toEqual(['/rows/menu-1', '/rows/menu-2', '/rows/menu-3', '/rows/menu-4']);
    expect(seed.clickDiscovery?.made).toBe(7);
    expect(seed.clickDiscovery?.skipped.template).toBe(7);
  });

  it('--click off works none of them', async () => {
    const seed = await linksOfSeed('/hover/', { click: 'off' });
    expect(seed.links).toEqual([]);
  });
});
