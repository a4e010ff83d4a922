import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssetSite } from '../fixtures/sites/assets.js';
import type { FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { expectWellFormed, pathOf, sorted } from './helpers/records.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  site = await startAssetSite();
});

afterAll(async () => {
  await site?.close();
});

async function crawlFrom(p: string, opts: Partial<CrawlOptions> = {}): Promise<PageRecord[]> {
  const records: PageRecord[] = [];
  for await (const r of crawl({ seeds: [`${site.origin}${p}`], maxDepth: 1, settleTimeoutMs: 8_000, click: 'off', soft404: false, ...opts, browser })) records.push(r);
  expectWellFormed(records);
  return records;
}

/** What a record says about its page, without timings. */
/** What a record says, with links as a set: the events that insert them race (which of the font and the image chain finishes first), in either mode. */
function seen(r: PageRecord): unknown {
  return { url: pathOf(r.url), status: r.status, title: r.title, links: r.links.map(pathOf).sort(), consoleErrors: r.consoleErrors, pageErrors: r.pageErrors, failedRequests: r.failedRequests, error: r.error };
}

describe('--assets placeholder (the default)', () => {
  it('finds the links that images and fonts insert from their events, and records the same as --assets load', async () => {
    site.reset();
    const stubbed = await crawlFrom('/gallery');
    const assetsAsked = site.log.filter((r) => /\.(svg|ttf|mp4|png)$/.test(r.path)).map((r) => r.path);
    const gallery = stubbed.find((r) => pathOf(r.url) === '/gallery')!;
    expect(gallery.links.map(pathOf).sort()).toEqual(['/from-chain', '/from-font', '/from-onload']);
    expect(gallery.pageErrors).toEqual([]);
    expect(gallery.consoleErrors).toEqual([]);
    // A broken image is still reported, with the server's status; the placeholders are not.
    expect(gallery.failedRequests).toEqual([{ url: `${site.origin}/missing.png`, status: 404, failure: null, resourceType: 'image' }]);
    // Every asset was asked of the server once (its headers decide), never twice.
    expect(sorted(assetsAsked)).toEqual(sorted(['/photo.svg', '/first.svg', '/second.svg', '/hero.svg', '/loaded.ttf', '/face.ttf', '/clip.mp4', '/missing.png']));

    const loaded = await crawlFrom('/gallery', { assets: 'load' });
    expect(sorted(stubbed.map((r) => JSON.stringify(seen(r))))).toEqual(sorted(loaded.map((r) => JSON.stringify(seen(r)))));
  });

  it('does not wait for an image body: the onload link of an image whose body stalls is found', async () => {
    const records = await crawlFrom('/stalled');
    const rec = records.find((r) => pathOf(r.url) === '/stalled')!;
    expect(rec).toMatchObject({ status: 200, error: null, title: 'Stalled', failedRequests: [] });
    expect(rec.links.map(pathOf)).toEqual(['/from-stalled']);
  });

  /**
   * Whether this browser build asks for `/favicon.ico` by itself: Chromium does, for each page it
   * shows; its headless shell never does. Loaded plainly (no spacrawl), waited for up to 3 s.
   */
  async function browserAsksForIcon(): Promise<boolean> {
    const before = site.count('/favicon.ico');
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${site.origin}/unread`, { waitUntil: 'load' });
      for (const t0 = Date.now(); site.count('/favicon.ico') === before && Date.now() - t0 < 3_000; ) await page.waitForTimeout(50);
      return site.count('/favicon.ico') > before;
    } finally {
      await context.close();
    }
  }

  it('makes no beacon request and asks for no /favicon.ico (--assets load makes them), and records nothing failed for them', async () => {
    const asksForIcon = await browserAsksForIcon();
    for (const assets of ['placeholder', 'load'] as const) {
      const before = site.count('/beacon');
      const iconsBefore = site.count('/favicon.ico');
      const records = await crawlFrom('/unread', { assets });
      expect(sorted(records.map((r) => pathOf(r.url)))).toEqual(['/from-onload', '/unread']);
      const rec = records.find((r) => pathOf(r.url) === '/unread')!;
      expect(rec).toMatchObject({ status: 200, title: 'Unread', failedRequests: [], consoleErrors: [] });
      expect(rec.links.map(pathOf)).toEqual(['/from-onload']);
      const made = assets === 'load' ? 1 : 0;
      expect([assets, site.count('/beacon') - before]).toEqual([assets, made]);
      // With --assets load, as the browser itself does: Chromium asks for the icon of each page
      // it shows (the answer is no icon, not cached), its headless shell never.
      const icons = site.count('/favicon.ico') - iconsBefore;
      if (assets === 'load') expect([assets, icons >= 1]).toEqual([assets, asksForIcon]);
      else expect([assets, icons]).toEqual([assets, 0]);
      for (const r of records) expect(r.failedRequests).toEqual([]);
    }
  });

  it('loads the real assets with --assets load and with --screenshots: the stalled image never loads, so its link is not there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-assets-'));
    try {
      for (const opts of [{ assets: 'load' as const }, { screenshotsDir: dir }]) {
        const records = await crawlFrom('/stalled', { ...opts, settleTimeoutMs: 3_000, maxDepth: 0 });
        const rec = records.find((r) => pathOf(r.url) === '/stalled')!;
        expect(rec, JSON.stringify(opts)).toMatchObject({ status: 200, title: 'Stalled', links: [] });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
