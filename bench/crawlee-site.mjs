#!/usr/bin/env node
// One crawl of a site with Crawlee's PlaywrightCrawler, as a user would write it: navigation waits
// for network idle, then the page's links are enqueued (same hostname). Run by bench/sites.mjs in
// its own process (so its whole process tree can be measured); Crawlee and Playwright come from
// bench/.crawlee/, which the bench installs on demand.
//
//   node bench/crawlee-site.mjs START_URL CONCURRENCY OUT.jsonl [SEEDS.txt]
//
// SEEDS.txt (one URL per line) are added to the start URL, so Crawlee renders the same pages as
// spacrawl on a site whose links it cannot see; bench/sites.mjs counts as "found" only the pages
// reachable from the start URL over the links Crawlee read. Each handled page is one JSON line:
// {url, title, links, readAt, lastChangeAt} (ms since the epoch; lastChangeAt from spacrawl's link
// clock, injected before the page's scripts, to measure the wait after the page was final).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [startUrl, conc, outFile, seedsFile] = process.argv.slice(2);
const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-bench-'));
process.env.CRAWLEE_STORAGE_DIR = storage;
process.env.CRAWLEE_LOG_LEVEL ??= 'WARNING';

const require = createRequire(path.join(HERE, '.crawlee', 'package.json'));
const { PlaywrightCrawler, Configuration } = await import(pathToFileURL(require.resolve('crawlee')).href);
const { chromium } = await import(pathToFileURL(require.resolve('playwright')).href);
const { installMutationClock, lastLinkChangeAt } = await import(pathToFileURL(path.join(HERE, '..', 'dist', 'src', 'browser', 'clock-scripts.js')).href);

const out = fs.createWriteStream(outFile);
const concurrency = Number(conc);
const crawler = new PlaywrightCrawler(
  {
    launchContext: { launcher: chromium, launchOptions: { executablePath: process.env.BENCH_BROWSER ?? '/usr/bin/chromium', headless: true } },
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    maxRequestRetries: 1,
    navigationTimeoutSecs: 60,
    requestHandlerTimeoutSecs: 60,
    preNavigationHooks: [
      async ({ page }, gotoOptions) => {
        gotoOptions.waitUntil = 'networkidle';
        await page.addInitScript(installMutationClock);
      },
    ],
    async requestHandler({ page, request, enqueueLinks }) {
      const readAt = Date.now();
      const lastChangeAt = await page.evaluate(lastLinkChangeAt).catch(() => null);
      const title = await page.title();
      const links = await page.$$eval('a[href]', (as) => as.map((a) => a.href));
      await enqueueLinks({ strategy: 'same-hostname' });
      out.write(`${JSON.stringify({ url: request.loadedUrl ?? request.url, title, links, readAt, lastChangeAt })}\n`);
    },
  },
  new Configuration({ persistStorage: false, purgeOnStart: true }),
);
const seeds = seedsFile ? fs.readFileSync(seedsFile, 'utf8').split('\n').filter(Boolean) : [];
await crawler.run([startUrl, ...seeds]);
await new Promise((resolve) => out.end(resolve));
fs.rmSync(storage, { recursive: true, force: true });
