// keepStorage and restoreStorage (src/browser/storage-scripts.ts) in real Chromium: what a page
// changed in its Web Storage between the two is put back; what another tab of the same context
// changed meanwhile is that tab's, and stays.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { CLICK_EVERYWHERE } from '../../src/browser/click-memory.js';
import { exploreClicks } from '../../src/browser/explore.js';
import { keepStorage, restoreStorage } from '../../src/browser/storage-scripts.js';
import { sharedBrowser } from '../helpers/browser.js';

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer((_req, url) =>
    url.pathname === '/prefs' ? { body: html('Prefs', `<button onclick="localStorage.setItem('theme', 'dark')">Dark theme</button>`) } : { body: html('Storage', '<p>page</p>') },
  );
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

const dump = (): Record<string, string> => ({ ...Object.fromEntries(Object.entries(localStorage).map(([k, v]) => [`local:${k}`, v])), ...Object.fromEntries(Object.entries(sessionStorage).map(([k, v]) => [`session:${k}`, v])) });

describe('keepStorage / restoreStorage', () => {
  it('puts back the keys the page added, changed or removed; keys another tab changed meanwhile stay as that tab left them', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const other = await context.newPage();
      await page.goto(`${server.origin}/one`);
      await other.goto(`${server.origin}/two`);
      await page.evaluate(() => {
        // Counts the other tab's storage events (dispatched with keepStorage's listener, in the same task).
        const w = window as unknown as { seen: number };
        w.seen = 0;
        addEventListener('storage', () => w.seen++);
        localStorage.setItem('theme', 'light');
        localStorage.setItem('banner', 'shown');
        localStorage.setItem('shared', 'old');
        sessionStorage.setItem('tab', 'a');
      });
      await page.evaluate(keepStorage);
      // What the clicks do in this page...
      await page.evaluate(() => {
        localStorage.setItem('theme', 'dark');
        localStorage.removeItem('banner');
        localStorage.setItem('filter', 'on');
        sessionStorage.setItem('tab', 'b');
        sessionStorage.setItem('compact', '1');
      });
      // ...and what another tab's page does meanwhile (its storage events reach this page).
      await other.evaluate(() => {
        localStorage.setItem('shared', 'new');
        localStorage.setItem('visited', '1');
      });
      await expect.poll(() => page.evaluate(() => (window as unknown as { seen: number }).seen)).toBe(2);
      expect(await page.evaluate(restoreStorage)).toBe(5);
      expect(await page.evaluate(dump)).toEqual({ 'local:theme': 'light', 'local:banner': 'shown', 'local:shared': 'new', 'local:visited': '1', 'session:tab': 'a' });
      // Kept once: a second restore changes nothing.
      expect(await page.evaluate(restoreStorage)).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('click discovery and Web Storage', () => {
  it('exploreClicks puts back what its clicks stored with restoreStorage, and leaves it without (a logged-in crawl)', async () => {
    const themeAfter = async (restoreStorage: boolean): Promise<{ clicks: number; theme: string | null }> => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${server.origin}/prefs`);
        const opts = { limit: 100, exclude: [], policy: CLICK_EVERYWHERE, repeat: 20, clickWaitMs: 1_000, budgetMs: 30_000, maxRevealDepth: 2, restoreStorage };
        const ex = await exploreClicks(page, new Set(), opts, async () => true);
        return { clicks: ex.clicks, theme: await page.evaluate(() => localStorage.getItem('theme')) };
      } finally {
        await context.close();
      }
    };
    expect(await themeAfter(true)).toEqual({ clicks: 1, theme: null });
    expect(await themeAfter(false)).toEqual({ clicks: 1, theme: 'dark' });
  });
});
