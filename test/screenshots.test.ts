/**
 * Full-page screenshots show the whole page as a person scrolling it sees it: content a lazy
 * loader brings only once it scrolls into view is in the shot, an app that scrolls inside a
 * panel is shot with all of the panel's content, and a page too tall for Chromium
 * to paint is shot down to a height it paints, never with a blank bottom.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawl } from '../src/crawl/crawler.js';
import { MAX_SHOT_HEIGHT, MAX_SHOT_PIXELS } from '../src/browser/visit/screenshot.js';

let browser: Browser;
let server: FixtureServer;
let tmp: string;

const svg = (fill: string): string => `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="${fill}"/></svg>`;
/** Stripes of 100 px: white, then `colour`, repeated down a page `height` px tall and `width` px wide. */
const stripes = (width: number, height: number, colour: string): string =>
  `<div style="width:${width}px;height:${height}px;background:repeating-linear-gradient(#fff 0 100px,${colour} 100px 200px)"></div>`;
const NO_MARGIN = '<style>html,body{margin:0}</style>';

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-fullpage-'));
  browser = await sharedBrowser();
  server = await startFixtureServer((_req, url) => {
    if (url.pathname === '/blue.svg') return { headers: { 'content-type': 'image/svg+xml' }, body: svg('#0000ff'), delayMs: 200 };
    // An image that gets its src from an IntersectionObserver once it scrolls into view (lazysizes, vanilla-lazyload …).
    if (url.pathname === '/io-lazy') {
      const observe = `<script>const io = new IntersectionObserver((es) => es.forEach((e) => { if (e.isIntersecting) { e.target.src = e.target.dataset.src; io.unobserve(e.target); } }));
        document.querySelectorAll('img[data-src]').forEach((i) => io.observe(i));</script>`;
      return { body: html('IO lazy', `<div style="height:3000px;background:#eee"></div><img data-src="/blue.svg" width="400" height="300" style="display:block">${observe}`, NO_MARGIN) };
    }
    // An app shell: the document never scrolls, its content scrolls in a panel under a header.
    if (url.pathname === '/panel') {
      const observe = `<script>const io = new IntersectionObserver((es) => es.forEach((e) => { if (e.isIntersecting) { e.target.src = e.target.dataset.src; io.unobserve(e.target); } }));
        document.querySelectorAll('img[data-src]').forEach((i) => io.observe(i));</script>`;
      const shell = `<div style="display:flex;flex-direction:column;height:100%"><header style="height:50px;flex:none;background:#333"></header>
        <main style="flex:1;min-height:0;overflow:auto"><div style="height:3000px;background:#ff0"></div><div style="height:200px;background:#f00"></div><img data-src="/blue.svg" width="400" height="300" style="display:block"></main></div>`;
      return { body: html('Panel app', `${shell}${observe}`, '<style>html,body{margin:0;height:100%;overflow:hidden}</style>') };
    }
    if (url.pathname === '/huge') return { body: html('Huge', stripes(1000, 100_000, '#0000ff'), NO_MARGIN) };
    if (url.pathname === '/huge-wide') return { body: html('Huge and wide', stripes(4000, 60_000, '#ff0000'), NO_MARGIN) };
    return { status: 404, body: html('Not found', '<h1>Not found</h1>') };
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Crawl one page alone with screenshots into a new folder; its shot, decoded. */
async function shotOf(pathname: string): Promise<PNG> {
  const screenshotsDir = fs.mkdtempSync(path.join(tmp, 'shots-'));
  let name: string | null = null;
  for await (const r of crawl({ seeds: [`${server.origin}${pathname}`], browser, concurrency: 1, maxDepth: 0, screenshotsDir, soft404: false })) name = r.screenshot;
  expect(name).not.toBeNull();
  return PNG.sync.read(fs.readFileSync(path.join(screenshotsDir, name!)));
}

/** `rrggbb` of the pixel at (x, y). */
function colourAt(png: PNG, x: number, y: number): string {
  const i = (y * png.width + x) * 4;
  return png.data.subarray(i, i + 3).toString('hex');
}

describe('full-page screenshots', () => {
  it('an image an IntersectionObserver loads once it scrolls into view is in the shot (playwright#19861)', async () => {
    const png = await shotOf('/io-lazy');
    expect([png.width, png.height]).toEqual([1280, 3300]);
    // The image is at y 3000–3300, x 0–400: blue, not the empty box.
    expect([colourAt(png, 200, 3150), colourAt(png, 10, 3010), colourAt(png, 390, 3290), colourAt(png, 600, 3150), colourAt(png, 200, 1500)]).toEqual([
      '0000ff',
      '0000ff',
      '0000ff',
      'ffffff',
      'eeeeee',
    ]);
  });

  it('an app that scrolls inside a panel is shot whole, not its first screen, lazy image in the panel included (agent-browser#1282)', async () => {
    const png = await shotOf('/panel');
    // Header 50 + the panel's content 3,000 + 200 + 300.
    expect([png.width, png.height]).toEqual([1280, 3550]);
    expect([colourAt(png, 640, 25), colourAt(png, 640, 1000), colourAt(png, 640, 3000), colourAt(png, 640, 3200), colourAt(png, 200, 3400), colourAt(png, 640, 3400)]).toEqual([
      '333333',
      'ffff00',
      'ffff00',
      'ff0000',
      '0000ff',
      'ffffff',
    ]);
  });

  it('a page 100,000 px tall is shot down to MAX_SHOT_HEIGHT, every row painted (puppeteer#359: blank below what Chromium paints)', async () => {
    const png = await shotOf('/huge');
    expect([png.width, png.height]).toEqual([1280, MAX_SHOT_HEIGHT]);
    const wrong: number[] = [];
    for (let y = 50; y < png.height; y += 100) if (colourAt(png, 500, y) !== (y % 200 < 100 ? 'ffffff' : '0000ff')) wrong.push(y);
    expect(wrong).toEqual([]);
  });

  it('a page 4,000 px wide is shot less tall (MAX_SHOT_PIXELS), every row painted: Chromium leaves it blank below ~32,000 px', async () => {
    const png = await shotOf('/huge-wide');
    expect([png.width, png.height]).toEqual([4000, Math.floor(MAX_SHOT_PIXELS / 4000)]);
    const wrong: number[] = [];
    for (let y = 50; y < png.height; y += 100) if (colourAt(png, 3900, y) !== (y % 200 < 100 ? 'ffffff' : 'ff0000')) wrong.push(y);
    expect(wrong).toEqual([]);
  });
});
