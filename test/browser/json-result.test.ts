// Page reads carried as JSON text (see src/browser/json-result.ts): the same values as
// Playwright's own transport, also on pages that change what JSON.stringify writes.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { crawl } from '../../src/crawl/crawler.js';
import { evaluateJson } from '../../src/browser/json-result.js';
import { extractPage } from '../../src/browser/page-scripts.js';
import type { PageRecord } from '../../src/model/record.js';
import { sharedBrowser } from '../helpers/browser.js';

// Prototype.js 1.6 gives arrays a toJSON that turns them into JSON strings (so JSON.stringify of
// an array of links writes a string); another page replaces JSON.stringify with its own.
const PROTOTYPE_STYLE = '<script>Array.prototype.toJSON = function () { return "[" + this.join(",") + "]"; };</script>';
const OWN_STRINGIFY = '<script>JSON.stringify = () => "{}";</script>';
const LINKS = '<a href="/a">A</a> <a href="/b">B</a>';

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer((_req, url) => {
    if (url.pathname === '/') return { body: html('Home', `${LINKS} <a href="/proto">P</a> <a href="/own">O</a>`) };
    if (url.pathname === '/proto') return { body: html('Proto', LINKS, PROTOTYPE_STYLE) };
    if (url.pathname === '/own') return { body: html('Own', LINKS, OWN_STRINGIFY) };
    return { body: html(url.pathname.slice(1).toUpperCase(), '') };
  });
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

describe('evaluateJson', () => {
  it('gives what page.evaluate gives: on a plain page, on one whose arrays have a toJSON, on one with its own JSON.stringify', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      for (const path of ['/', '/proto', '/own']) {
        await page.goto(`${server.origin}${path}`);
        const viaJson = await evaluateJson(page, extractPage);
        const direct = await page.evaluate(extractPage);
        expect(viaJson, path).toEqual(direct);
        expect(viaJson.links.map((l) => new URL(l.href).pathname), path).toEqual(path === '/' ? ['/a', '/b', '/proto', '/own'] : ['/a', '/b']);
        expect(await evaluateJson(page, (n: number) => ({ n, list: [n, n + 1], none: null }), 4), path).toEqual({ n: 4, list: [4, 5], none: null });
      }
    } finally {
      await context.close();
    }
  });

  it('a crawl reads the links and titles of those pages', async () => {
    const recs: PageRecord[] = [];
    for await (const r of crawl({ seeds: [`${server.origin}/`], browser, concurrency: 2 })) recs.push(r);
    const byPath = new Map(recs.map((r) => [new URL(r.url).pathname, r]));
    expect([...byPath.keys()].sort()).toEqual(['/', '/a', '/b', '/own', '/proto']);
    for (const p of ['/proto', '/own']) expect(byPath.get(p)!.links.map((l) => new URL(l).pathname).sort(), p).toEqual(['/a', '/b']);
    expect(byPath.get('/proto')!.title).toBe('Proto');
    expect(byPath.get('/own')!.title).toBe('Own');
  });
});
