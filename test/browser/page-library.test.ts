// The page library (src/browser/page-library.ts): the visit's in-page functions defined once per
// document, called by name; a page cannot take them away, and a document without them is still read.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { initScript } from '../../src/browser/init-scripts.js';
import { DOM_READ, evaluateLibraryJson, PAGE_LIBRARY_SCRIPT } from '../../src/browser/page-library.js';
import { extractPage, type ExtractResult } from '../../src/browser/page-scripts.js';
import { readSettledPage } from '../../src/browser/visit/settled-read.js';
import { sharedBrowser } from '../helpers/browser.js';
import { recordSends, type SentCommand } from '../helpers/cdp-sends.js';

const LINKS = '<a href="/a">A</a> <a href="/b">B</a> <button onclick="void 0">Open</button>';
// A page that tries to replace, delete and shadow the library.
const HOSTILE = `<script>
  try { window.__spacrawlLib = { extractPage: () => ({ links: [] }) }; } catch {}
  try { delete window.__spacrawlLib; } catch {}
  try { Object.defineProperty(window, '__spacrawlLib', { value: null }); } catch {}
</script>`;

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer((_req, url) => {
    if (url.pathname === '/hostile') return { body: html('Hostile', LINKS, HOSTILE) };
    return { body: html('Home', LINKS) };
  });
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

/** The `Runtime.evaluate` expressions among the commands recorded in `sent` (see `recordSends`). */
const expressions = (sent: SentCommand[]): string[] => sent.filter((c) => c.method === 'Runtime.evaluate').map((c) => String(c.params?.expression));

describe('the page library', () => {
  it('reads a page in a short call where the library is defined, and in one carrying the sources where it is not', async () => {
    for (const withLibrary of [true, false]) {
      const context = await browser.newContext();
      try {
        if (withLibrary) await context.addInitScript(initScript(PAGE_LIBRARY_SCRIPT));
        const page = await context.newPage();
        const cdp = await context.newCDPSession(page);
        await page.goto(`${server.origin}/`);
        const sends = recordSends(cdp);
        const read = await readSettledPage(cdp, 'log ?out');
        const sent = expressions(sends);
        const direct = await page.evaluate(extractPage);
        expect(read.main, `library ${withLibrary}`).toEqual(direct);
        expect(read.main.links.map((l) => l.href)).toEqual([`${server.origin}/a`, `${server.origin}/b`]);
        expect(read.clickables?.map((c) => c.name)).toEqual(['Open']);
        // One short call with the library; without it, that call and one with the sources (the scan alone is over 10 KB).
        expect(sent.length, `library ${withLibrary}`).toBe(withLibrary ? 1 : 2);
        expect(sent[0]!.length).toBeLessThan(2_000);
        if (!withLibrary) expect(sent[1]!.length).toBeGreaterThan(10_000);
      } finally {
        await context.close();
      }
    }
  });

  it('a page cannot replace, delete or shadow it: its links are read as they are', async () => {
    const context = await browser.newContext();
    try {
      await context.addInitScript(initScript(PAGE_LIBRARY_SCRIPT));
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await page.goto(`${server.origin}/hostile`);
      const sends = recordSends(cdp);
      const read = await readSettledPage(cdp, null);
      const sent = expressions(sends);
      expect(read.main.title).toBe('Hostile');
      expect(read.main.links.map((l) => l.href)).toEqual([`${server.origin}/a`, `${server.origin}/b`]);
      expect(read.clickables).toBeNull();
      expect(sent).toHaveLength(1);
      // Not listed among the window's own enumerable properties either.
      expect(await page.evaluate(() => Object.keys(window).includes('__spacrawlLib'))).toBe(false);
      expect((await evaluateLibraryJson<ExtractResult>(page, DOM_READ)).links).toHaveLength(2);
    } finally {
      await context.close();
    }
  });
});
