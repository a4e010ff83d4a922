import fs from 'node:fs';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUserAgent, defaultUserAgent, launchBrowser, PLAYWRIGHT_DISABLED_FEATURES, SPACRAWL_DISABLED_FEATURES } from '../src/browser/launch.js';
import { descendants } from './helpers/processes.js';

let browser: Browser;

beforeAll(async () => {
  browser = (await launchBrowser()).browser;
});
afterAll(async () => {
  await browser?.close();
});

/** Command lines (argv) of this test process's Chromium browser processes (no `--type=`). */
function browserCommandLines(): string[][] {
  const out: string[][] = [];
  for (const pid of descendants(process.pid)) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv.some((a) => a.startsWith('--remote-debugging-pipe')) && !argv.some((a) => a.startsWith('--type='))) out.push(argv);
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

describe('launching Chromium', () => {
  it("the browser's User-Agent (asked over CDP, no page opened) is a page's navigator.userAgent; the default sends Chrome, not HeadlessChrome", async () => {
    const newContext = browser.newContext.bind(browser);
    let opened = 0;
    browser.newContext = (...args) => (opened++, newContext(...args));
    let ua: string;
    try {
      ua = await browserUserAgent(browser);
    } finally {
      browser.newContext = newContext;
    }
    expect(opened).toBe(0); // no throwaway context (a renderer: 200-400 ms here)
    const ctx = await browser.newContext();
    const inPage = await (await ctx.newPage()).evaluate(() => navigator.userAgent);
    await ctx.close();
    expect(ua).toBe(inPage);
    expect(ua).toMatch(/HeadlessChrome\/\d+/);
    expect(defaultUserAgent(ua, '9.9.9')).toBe(`${ua.replace('HeadlessChrome', 'Chrome')} spacrawl/9.9.9`);
  });

  it('repeats every feature Playwright disables in its own --disable-features (Chromium keeps only the last one)', () => {
    // This file's browser, and possibly one of an earlier test file still on its way out (CI
    // once saw two): every browser here was started by launchBrowser, so each must pass.
    const lines = browserCommandLines();
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) {
      const switches = line.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice('--disable-features='.length).split(','));
      expect(switches.length).toBeGreaterThanOrEqual(1);
      const last = new Set(switches.at(-1));
      // What Playwright passes now, not only what it passed when the list was copied.
      for (const sw of switches.slice(0, -1)) for (const f of sw) expect(last.has(f), `${f} is dropped`).toBe(true);
      for (const f of [...PLAYWRIGHT_DISABLED_FEATURES, ...SPACRAWL_DISABLED_FEATURES]) expect(last.has(f), f).toBe(true);
      expect(switches[0]).toEqual([...PLAYWRIGHT_DISABLED_FEATURES]);
    }
  });

  it('a new context holds one page and no preloaded browser UI page (one renderer per context)', async () => {
    const ctx = await browser.newContext();
    await ctx.newPage();
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: { type: string; url: string }[] };
    await cdp.detach();
    await ctx.close();
    expect(targetInfos.filter((t) => t.type !== 'page' && t.type !== 'browser')).toEqual([]);
  });

  it('runs no GPU process (--in-process-gpu), and a page still renders and screenshots', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.setContent('<h1 style="color: rgb(200, 0, 0)">Red</h1>');
    const png = await page.screenshot();
    const types = descendants(process.pid).map((pid) => {
      try {
        return /--type=([a-z-]+)/.exec(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? null;
      } catch {
        return null;
      }
    });
    await ctx.close();
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(1000);
    expect(types).toContain('renderer');
    expect(types).not.toContain('gpu-process');
  });
});
