#!/usr/bin/env node
// The floor of the real-site bench (`node bench/sites.mjs --floor`): what the browser itself needs
// to load a site's pages here. Plain Playwright (spacrawl's own dependency, the same Chromium and
// switches as a crawl, except spacrawl's V8 heap flags: the floor's V8 is Chromium's own) loads every page of the site's list in <concurrency> tabs of one context,
// waits for the `load` event and reads the anchors: no settle wait, no extraction, no discovery.
// No crawler that renders the pages can be faster on this machine.
//   node bench/floor-site.mjs <origin> <concurrency> <out.jsonl> <pages.txt>
import fs from 'node:fs';
// Playwright as spacrawl loads it (require(), not import: see src/browser/playwright.ts), so that
// the floor's start is not slower than the crawler's.
import { chromium } from '../dist/src/browser/playwright.js';
import { CHROMIUM_ARGS } from '../dist/src/browser/launch.js';
import { locateBrowser } from '../dist/src/browser/locate.js';

const [origin, concurrency, out, list] = process.argv.slice(2);
const paths = fs.readFileSync(list, 'utf8').split('\n').filter(Boolean);
const browser = await chromium.launch({ executablePath: locateBrowser(null).executablePath, args: CHROMIUM_ARGS.filter((a) => !a.startsWith('--js-flags')) });
const context = await browser.newContext();
const rows = [];
let next = 0;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    const page = await context.newPage();
    while (next < paths.length) {
      const url = `${origin}${paths[next++]}`;
      await page.goto(url, { waitUntil: 'load' });
      const links = await page.$$eval('a[href]', (as) => as.map((a) => a.href));
      rows.push(JSON.stringify({ url, links }));
    }
  }),
);
fs.writeFileSync(out, `${rows.join('\n')}\n`);
await browser.close();
