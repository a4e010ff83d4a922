import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright';
import { afterAll, describe, expect, it } from 'vitest';
import { crawl } from '../src/index.js';
import { sharedBrowser } from './helpers/browser.js';
import { collect, expectWellFormed, pagesOf, sorted } from './helpers/records.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SITES = path.resolve(REPO, '../shared/sites');
const SITE = 'typedoc-axios';
const present = fs.existsSync(path.join(SITES, SITE, 'pages.txt')) && fs.existsSync(path.join(SITES, 'serve.mjs'));

if (!present) console.warn(`shared-sites.test.ts: ${path.join(SITES, SITE)} is absent; the real-site crawl is SKIPPED`);

let server: ChildProcess | null = null;
let browser: Browser | null = null;
const requests: string[] = [];

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
});

/** Start `serve.mjs <site> 0` and resolve with the port from its "listening on N" line. */
function serve(site: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(SITES, 'serve.mjs'), site, '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    let buf = '';
    let port: number | null = null;
    child.stdout!.setEncoding('utf8');
    // Keep draining stdout (a line per request): a full pipe would stall the server.
    child.stdout!.on('data', (chunk: string) => {
      buf += chunk;
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = /^listening on (\d+)$/.exec(line.trim());
        if (m && port === null) {
          port = Number(m[1]);
          resolve(port);
        } else if (line.startsWith('REQ ')) requests.push(line);
      }
    });
    child.stderr!.on('data', () => {});
    child.once('exit', (code) => {
      if (port === null) reject(new Error(`serve.mjs exited with ${code} before listening`));
    });
    setTimeout(() => port === null && reject(new Error('serve.mjs did not report a port within 10 s')), 10_000);
  });
}

/** Page path as pages.txt spells it: the final URL's pathname, a trailing `index.html` folded into `/`. */
function pagePath(finalUrl: string): string {
  const p = new URL(finalUrl).pathname;
  return p.endsWith('/index.html') ? p.slice(0, -'index.html'.length) : p;
}

describe(`real site: ${SITE}`, () => {
  (present ? it : it.skip)('finds exactly the pages listed in pages.txt at concurrency 4', async () => {
    const expected = fs
      .readFileSync(path.join(SITES, SITE, 'pages.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(expected).toHaveLength(66);

    const port = await serve(SITE);
    browser = await sharedBrowser();
    const records = await collect(crawl({ seeds: [`http://127.0.0.1:${port}/`], concurrency: 4, browser }));

    const pages = pagesOf(records);
    const found = pages.map((r) => pagePath(r.finalUrl ?? r.url));
    expect(sorted(new Set(found))).toEqual(sorted(expected));
    for (const r of pages) expect({ url: r.url, status: r.status, error: r.error }).toEqual({ url: r.url, status: 200, error: null });
    expectWellFormed(records);
  }, 240_000);
});
