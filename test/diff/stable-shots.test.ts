import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer } from '../../fixtures/server.js';
import { startVersionedSite, type VersionedSite } from '../../fixtures/sites/versions.js';
import { sharedBrowser } from '../helpers/browser.js';
import { crawl } from '../../src/crawl/crawler.js';
import type { CrawlOptions } from '../../src/crawl/options.js';
import { compareImages } from '../../src/diff/image-diff.js';
import type { PageRecord } from '../../src/model/record.js';
import { pathOf } from './helpers.js';

let browser: Browser;
let site: VersionedSite;
let tmp: string;

const STABLE = { hide: ['.cookie-banner'], visualMask: ['.served-at'] };

/** Crawl version A with screenshots into `dir`; the pages' screenshot file names by path. */
async function shoot(dir: string, extra: Partial<CrawlOptions>): Promise<Map<string, string>> {
  const screenshotsDir = path.join(tmp, dir);
  const out = new Map<string, string>();
  const records: PageRecord[] = [];
  for await (const r of crawl({ seeds: [`${site.server.origin}/`], browser, concurrency: 1, screenshotsDir, ...extra })) records.push(r);
  for (const r of records) if (r.screenshot) out.set(pathOf(r.url), path.join(screenshotsDir, r.screenshot));
  return out;
}

/** Changed pixels per page path between two runs. */
function changes(a: Map<string, string>, b: Map<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [p, file] of a) out[p] = compareImages(file, b.get(p)!).changedPixels;
  return out;
}

const PAGES = ['/', '/about', '/docs/a', '/docs/b', '/go', '/guide', '/old', '/promo'];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-shots-'));
  browser = await sharedBrowser();
  site = await startVersionedSite();
}, 60_000);

afterAll(async () => {
  await site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('stable screenshots', () => {
  it('two crawls of an unchanged site with an animation, a canvas, a caret, a clock and a random banner give identical shots', async () => {
    const one = await shoot('one', STABLE);
    const two = await shoot('two', STABLE);
    expect([...one.keys()].sort()).toEqual(PAGES.filter((p) => p !== '/go'));
    expect(changes(one, two)).toEqual(Object.fromEntries([...one.keys()].map((p) => [p, 0])));
  }, 120_000);

  it('without --hide and --visual-mask the clock and the banner differ on every page (the fixture is unstable)', async () => {
    const one = await shoot('raw-one', {});
    const two = await shoot('raw-two', {});
    const changed = Object.entries(changes(one, two)).filter(([, n]) => n > 0).map(([p]) => p);
    expect(changed.sort()).toEqual([...one.keys()].sort());
  }, 120_000);

  it('--screenshot viewport shoots the first screen at device scale factor 1; --visual-mask paints a magenta box', async () => {
    const shots = await shoot('viewport', { ...STABLE, screenshotMode: 'viewport', viewport: { width: 800, height: 600 } });
    const { PNG } = await import('pngjs');
    const png = PNG.sync.read(fs.readFileSync(shots.get('/')!));
    expect([png.width, png.height]).toEqual([800, 600]);
    const magenta = (x: number, y: number): boolean => {
      const i = (png.width * y + x) * 4;
      return png.data[i] === 255 && png.data[i + 1] === 0 && png.data[i + 2] === 255;
    };
    let found = 0;
    for (let y = 0; y < png.height; y += 4) for (let x = 0; x < png.width; x += 4) if (magenta(x, y)) found++;
    expect(found).toBeGreaterThan(100);
  }, 120_000);
});

describe('a click on one page cannot change a later page\'s shot', () => {
  it('storage a click wrote on / (a filter in localStorage) does not reach /b: its shot equals a crawl of /b alone', async () => {
    // `/` has a filter button that stores "hide" in localStorage (as TypeDoc's member filters do);
    // `/b` hides its content when it finds it.
    const box = '<div id="box" style="width:400px;height:200px;background:#0a0">content</div>';
    const readFilter = "<script>if (localStorage.getItem('filter') === 'hide') document.getElementById('box').style.display = 'none';</script>";
    const server = await startFixtureServer((_req, url) => {
      if (url.pathname === '/') return { body: html('Home', `<button onclick="localStorage.setItem('filter','hide')">Hide external</button><a href="/b">B</a>`) };
      if (url.pathname === '/b') return { body: html('B', `${box}${readFilter}`) };
      return { status: 404, body: html('Not found', '<h1>Not found</h1>') };
    });
    try {
      const shots = async (dir: string, seed: string, maxDepth: number): Promise<Map<string, string>> => {
        const screenshotsDir = path.join(tmp, dir);
        const out = new Map<string, string>();
        for await (const r of crawl({ seeds: [`${server.origin}${seed}`], browser, concurrency: 1, screenshotsDir, maxDepth, soft404: false })) {
          if (r.screenshot) out.set(pathOf(r.url), path.join(screenshotsDir, r.screenshot));
        }
        return out;
      };
      const all = await shots('click-all', '/', 1);
      const alone = await shots('click-alone', '/b', 0);
      expect([...all.keys()]).toEqual(['/', '/b']);
      expect(compareImages(all.get('/b')!, alone.get('/b')!).changedPixels).toBe(0);
    } finally {
      await server.close();
    }
  }, 120_000);
});
