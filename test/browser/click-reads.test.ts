// clickWithContext (src/browser/click-reads.ts) in real Chromium, in a tab of the crawl's pool (its
// settle probe installed): a click that started nothing that can still change the page is read in
// the click's own call (`after`); any other click (a request, a timer that adds a link, animation
// frames, a navigation, a lazy <details> whose toggle fetches its content) is left to the settle wait.
import type { Browser } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { clickWithContext, readAfterClick } from '../../src/browser/click-reads.js';
import { scanClickables } from '../../src/browser/click-scripts.js';
import { recordNavigations } from '../../src/browser/click-hooks.js';
import { clickExcludePattern } from '../../src/browser/explore.js';
import { ContextPool, type PoolSlot } from '../../src/browser/pool.js';
import type { VisitTab } from '../../src/browser/tab.js';
import { sharedBrowser } from '../helpers/browser.js';

/** Buttons (by name) and what their clicks do. */
const PAGE = html(
  'Clicks',
  `<a href="/home">Home</a>
<div id="list"></div>
<p id="count">0</p>
<button onclick="document.body.classList.toggle('dark')">Theme</button>
<button onclick="count.textContent = String(Number(count.textContent) + 1)">Count</button>
<details id="plain"><summary>Details</summary><a href="/inside">Inside</a></details>
<button onclick="setTimeout(() => add('/timer'), 0)">Timer</button>
<button onclick="Promise.resolve().then(() => Promise.resolve()).then(() => fetch('/data.json')).then((r) => r.json()).then((j) => add(j.href))">Microtask</button>
<button onclick="requestAnimationFrame(() => requestAnimationFrame(() => add('/frame')))">Frame</button>
<button onclick="location.href = '/go'">Go</button>
<button onclick="history.pushState(null, '', '/pushed')">Push</button>
<button onclick="add('/now')">Now</button>
<details id="lazy"><summary>Lazy</summary><div id="slot"></div></details>`,
  `<script>
function add(href) { const a = document.createElement('a'); a.href = href; a.textContent = href; list.append(a); }
addEventListener('DOMContentLoaded', () => lazy.addEventListener('toggle', () => {
  if (lazy.open) fetch('/fragment').then((r) => r.text()).then((t) => (slot.innerHTML = t));
}));
</script>`,
);

let server: FixtureServer;
let browser: Browser;
let pool: ContextPool;
let slot: (PoolSlot & { tab: VisitTab }) | null = null;

beforeAll(async () => {
  server = await startFixtureServer((_req, url) => {
    if (url.pathname === '/data.json') return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ href: '/micro' }) };
    if (url.pathname === '/fragment') return { body: '<a href="/lazy-link">Lazy link</a>' };
    return { body: PAGE };
  });
  browser = await sharedBrowser();
  pool = new ContextPool(browser, { userAgent: 'spacrawl-click-reads-test', recycleAfter: 1000 });
});
afterEach(() => {
  if (slot) pool.release(slot, true);
  slot = null;
});
afterAll(async () => {
  await pool?.close();
  await server?.close();
});

const EXCLUDE = clickExcludePattern([]);

/** Load the page in a pool tab, click the button named `name`, and say whether the click was read in its own call, with the links of that read (paths, sorted). */
async function click(name: string): Promise<{ inCall: boolean; links: string[] | null }> {
  slot = await pool.acquire();
  const page = slot.tab.page;
  await page.goto(`${server.origin}/`, { waitUntil: 'load' });
  await page.evaluate(recordNavigations);
  const cands = await page.evaluate(scanClickables, EXCLUDE);
  const target = cands.find((c) => c.name === name);
  if (!target) throw new Error(`no clickable named ${name}`);
  // As click discovery does (see `exploreClicks`): a navigation of the page is refused, so the
  // page stays and the click's call returns (a navigation that committed first would end it).
  await page.route('**/*', (route) => (route.request().isNavigationRequest() && route.request().frame() === page.mainFrame() ? route.abort('aborted') : route.fallback()));
  const made = await clickWithContext(page, target.index, EXCLUDE);
  await page.unrouteAll();
  expect(made.clicked).toBe(true);
  return { inCall: made.after !== null, links: made.after?.page ? made.after.page.links.map((l) => new URL(l.href).pathname).sort() : null };
}

describe('clickWithContext', () => {
  it('reads a click that only changed a class, a text or opened a <details> in the same call, with the links as they are', async () => {
    expect(await click('Theme')).toEqual({ inCall: true, links: ['/home', '/inside'] });
    pool.release(slot!, true);
    slot = null;
    expect(await click('Count')).toEqual({ inCall: true, links: ['/home', '/inside'] });
    pool.release(slot!, true);
    slot = null;
    expect(await click('Details')).toEqual({ inCall: true, links: ['/home', '/inside'] });
  });

  it.each([
    ['Timer', 'a timeout that adds a link'],
    ['Microtask', 'a fetch() started two microtasks later'],
    ['Frame', 'two animation frames, then a link'],
    ['Go', 'a location change (a navigation)'],
    ['Push', 'a pushState'],
    ['Now', 'a link added by the handler itself'],
    ['Lazy', "a <details> whose toggle event fetches its content"],
  ])('leaves %s (%s) to the settle wait', async (name) => {
    expect(await click(name)).toEqual({ inCall: false, links: null });
  });

  it('after a click left to the settle wait, readAfterClick reads what it revealed', async () => {
    await click('Lazy');
    await expect.poll(async () => (await readAfterClick(slot!.tab.page, EXCLUDE)).page?.links.map((l) => new URL(l.href).pathname).sort()).toEqual(['/home', '/inside', '/lazy-link']);
  });
});
