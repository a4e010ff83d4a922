// The clickable scan (scanClickables in src/browser/click-scripts.ts) in real Chromium: what a
// person could click is found, in document order; what is not rendered (display: none, with all
// it holds, a shadow root's content included) and what sits inside a link (an SVG link too) is not.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { scanClickables } from '../../src/browser/click-scripts.js';
import { sharedBrowser } from '../helpers/browser.js';

const BODY = `
  <button>Open</button>
  <div style="cursor: pointer">Toggle</div>
  <div style="display: none">
    <button>Hidden button</button>
    <div style="cursor: pointer">Hidden toggle</div>
    <div style="display: block"><button>Nested in hidden</button></div>
    <div id="hidden-host"></div>
  </div>
  <div id="shown-host"></div>
  <div id="none-host" style="display: none"></div>
  <dialog><button>In a closed dialog</button></dialog>
  <a href="/elsewhere"><span style="cursor: pointer">Inside a link</span></a>
  <a onclick="void 0" style="cursor: pointer">Fake link</a>
  <div style="visibility: hidden"><button style="visibility: visible">Shown in hidden</button></div>
  <svg width="200" height="40"><a href="/svg-link"><foreignObject width="200" height="40"><button xmlns="http://www.w3.org/1999/xhtml">In an SVG link</button></foreignObject></a></svg>
  <svg width="200" height="40"><foreignObject width="200" height="40"><button xmlns="http://www.w3.org/1999/xhtml">In an SVG</button></foreignObject></svg>
  <script>
    for (const [id, label] of [['hidden-host', 'Shadow in hidden'], ['shown-host', 'Shadow open'], ['none-host', 'Shadow of hidden host']]) {
      document.getElementById(id).attachShadow({ mode: 'open' }).innerHTML = '<button>' + label + '</button>';
    }
  </script>`;

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer(() => ({ body: html('Scan', BODY) }));
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

describe('scanClickables', () => {
  it('finds the rendered clickables in document order, and none inside display: none (shadow roots too), a closed dialog or a link (HTML or SVG)', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.origin}/`);
      const found = await page.evaluate(scanClickables, '(?!)');
      expect(found.map((c) => c.name)).toEqual(['Open', 'Toggle', 'Shadow open', 'Fake link', 'Shown in hidden', 'In an SVG']);
      expect(found.map((c) => c.index)).toEqual([0, 1, 2, 3, 4, 5]);
      // The elements behind the indexes are the ones named (clickCandidate clicks by index).
      const texts = await page.evaluate(() => ((window as unknown as { __spacrawlClickables?: Element[] }).__spacrawlClickables ?? []).map((e) => e.textContent));
      expect(texts).toEqual(['Open', 'Toggle', 'Shadow open', 'Fake link', 'Shown in hidden', 'In an SVG']);
    } finally {
      await context.close();
    }
  });
});
