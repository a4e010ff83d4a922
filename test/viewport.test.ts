// The viewport a page is rendered in: the declared default (1280x800), a device's own, or the
// `viewport` option, read by the page itself in real Chromium.
import type { Browser } from 'playwright';
import { devices } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { crawl, type CrawlOptions } from '../src/index.js';
import { sharedBrowser } from './helpers/browser.js';
import { collect } from './helpers/records.js';

let browser: Browser;
let site: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
  // The page names its own viewport in its title.
  site = await startFixtureServer(() => ({ body: html('?', '<p>size</p>', '<meta name="viewport" content="width=device-width"><script>addEventListener("DOMContentLoaded", () => { document.title = innerWidth + "x" + innerHeight; })</script>') }));
}, 60_000);

afterAll(async () => {
  await site?.close();
});

/** The title of the one page crawled with `o`. */
async function sizeWith(o: Partial<CrawlOptions>): Promise<string | null> {
  const records = await collect(crawl({ seeds: [`${site.origin}/`], browser, soft404: false, ...o }));
  expect(records).toHaveLength(1);
  return records[0]!.title;
}

describe('viewport', () => {
  it('is 1280x800 by default, a device\'s own with a device, and the option when given (also over a device)', async () => {
    const pixel = devices['Pixel 7']!.viewport;
    expect({
      default: await sizeWith({}),
      device: await sizeWith({ device: 'Pixel 7' }),
      option: await sizeWith({ viewport: { width: 600, height: 500 } }),
      both: await sizeWith({ device: 'Pixel 7', viewport: { width: 700, height: 400 } }),
    }).toEqual({ default: '1280x800', device: `${pixel.width}x${pixel.height}`, option: '600x500', both: '700x400' });
  });
});
