// Page reads carried as JSON text (see src/browser/json-result.ts): the same values as
// Playwright's own transport, also on pages that change what JSON.stringify writes.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { crawl } from '../../src/crawl/crawler.js';
import { asJsonExpression, evaluateInTabJson, evaluateJson } from '../../src/browser/json-result.js';
import { extractPage, type ExtractResult } from '../../src/browser/page-scripts.js';
import type { PageRecord } from '../../src/model/record.js';
import { sharedBrowser } from '../helpers/browser.js';

// Prototype.js 1.6 gives arrays a toJSON that turns them into JSON strings (so JSON.stringify of
// an array of links writes a string); another page replaces JSON.stringify with its own.
const PROTOTYPE_STYLE = '<script>Array.prototype.toJSON = function () { return "[" + this.join(",") + "]"; };</script>';
const OWN_STRINGIFY = '<script>JSON.stringify = () => "{}";</script>';
// A page that breaks the globals a page read might lean on (the settle state's encoding uses none).
const BROKEN_GLOBALS = '<script>Object.keys = () => { throw new Error("keys"); }; Number.isFinite = () => true; String = () => "s"; Object.entries = () => [];</script>';
const LINKS = '<a href="/a">A</a> <a href="/b">B</a>';

let server: FixtureServer;
let browser: Browser;

beforeAll(async () => {
  server = await startFixtureServer((_req, url) => {
    if (url.pathname === '/') return { body: html('Home', `${LINKS} <a href="/proto">P</a> <a href="/own">O</a> <a href="/globals">G</a>`) };
    if (url.pathname === '/proto') return { body: html('Proto', LINKS, PROTOTYPE_STYLE) };
    if (url.pathname === '/own') return { body: html('Own', LINKS, OWN_STRINGIFY) };
    if (url.pathname === '/globals') return { body: html('Globals', LINKS, BROKEN_GLOBALS) };
    return { body: html(url.pathname.slice(1).toUpperCase(), '') };
  });
  browser = await sharedBrowser();
});
afterAll(async () => {
  await server.close();
});

describe('evaluateJson', () => {
  it('gives what page.evaluate gives, through Playwright or through a CDP session of the tab: on a plain page, on one whose arrays have a toJSON, on one with its own JSON.stringify, on one with broken globals', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      for (const path of ['/', '/proto', '/own', '/globals']) {
        await page.goto(`${server.origin}${path}`);
        const viaCdp = await evaluateInTabJson<ExtractResult>(cdp, asJsonExpression(`(${extractPage.toString()})()`));
        expect(viaCdp.links.map((l) => new URL(l.href).pathname), path).toEqual(path === '/' ? ['/a', '/b', '/proto', '/own', '/globals'] : ['/a', '/b']);
        // Playwright's own transport gives nothing (undefined) on the page with broken globals.
        if (path === '/globals') continue;
        const direct = await page.evaluate(extractPage);
        expect([await evaluateJson(page, extractPage), viaCdp], path).toEqual([direct, direct]);
        expect(await evaluateJson(page, (n: number) => ({ n, list: [n, n + 1], none: null }), 4), path).toEqual({ n: 4, list: [4, 5], none: null });
      }
    } finally {
      await context.close();
    }
  });

  it('a crawl reads the links and titles of those pages, and each settles, also the one whose globals are broken', async () => {
    const recs: PageRecord[] = [];
    for await (const r of crawl({ seeds: [`${server.origin}/`], browser, concurrency: 2 })) recs.push(r);
    const byPath = new Map(recs.map((r) => [new URL(r.url).pathname, r]));
    expect([...byPath.keys()].sort()).toEqual(['/', '/a', '/b', '/globals', '/own', '/proto']);
    for (const p of ['/proto', '/own', '/globals']) expect(byPath.get(p)!.links.map((l) => new URL(l).pathname).sort(), p).toEqual(['/a', '/b']);
    expect(recs.map((r) => [new URL(r.url).pathname, r.settled]).sort()).toEqual([...byPath.keys()].sort().map((p) => [p, true]));
    expect(byPath.get('/globals')!.title).toBe('Globals');
    expect(byPath.get('/proto')!.title).toBe('Proto');
    expect(byPath.get('/own')!.title).toBe('Own');
  });
});
