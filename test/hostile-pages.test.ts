/**
 * Hostile and broken pages: pages that crash their renderer, flood the crawler with events, or
 * otherwise misbehave. Each record must stay true (the status the server sent, an honest error)
 * and bounded, and the other pages of the crawl must be unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { launchBrowser } from '../src/browser/launch.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';

let browser: Browser;
let server: FixtureServer;

/** A script that nests 20,000 elements and lays them out: Chromium's renderer crashes (stack exhausted in style/layout). */
const CRASH_NOW = '<script>let e = document.body; for (let i = 0; i < 20000; i++) { const d = document.createElement("div"); e.appendChild(d); e = d; } document.body.offsetHeight;</script>';

beforeAll(async () => {
  browser = (await launchBrowser()).browser;
  server = await startFixtureServer((_req, url) => {
    const p = url.pathname;
    if (p === '/crash-home') return { body: html('Home', '<a href="/crash-early">c</a> <a href="/dialogs-early">d</a> <a href="/fine">f</a>') };
    // The renderer crashes while the document is parsed, before DOMContentLoaded.
    if (p === '/crash-early') return { body: html('Crash', `<a href="/never">n</a>${CRASH_NOW}<p>after</p>`) };
    // Asks again and again while the document is parsed.
    if (p === '/dialogs-early') return { body: html('Dialogs', '<a href="/never">n</a><script>for (;;) alert("again")</script>') };
    if (p === '/moved') return { status: 302, headers: { location: '/crash-early' } };
    // 20,000 console.error lines, then a link.
    if (p === '/console-flood') return { body: html('Flood', '<script>for (let i = 0; i < 20000; i++) console.error("flood " + i)</script><a href="/one-error">o</a>') };
    if (p === '/one-error') return { body: html('One', '<script>console.error("just one")</script>') };
    // A 300,000-character title (rendered, and in the server's HTML).
    if (p === '/long-title') return { body: html(`Start ${'T'.repeat(300_000)} end`, '<a href="/fine">f</a>') };
    // Three requests for URLs of 10,000 characters (the fixture server takes up to 16 KB of headers), one for a short one: all 404.
    // And a link of 10,000 characters that only the script adds.
    if (p === '/long-urls') return { body: html('Long URLs', '<script>for (let i = 0; i < 3; i++) fetch("/gone/" + i + "?" + "q".repeat(10000)).catch(() => {}); fetch("/gone/short").catch(() => {}); const a = document.createElement("a"); a.href = "/js?" + "q".repeat(10000); a.textContent = "js"; document.body.append(a)</script>') };
    if (p === '/fine') return { body: html('Fine', '') };
    return { status: 404, body: html('Not found', '') };
  });
});
afterAll(async () => {
  await browser.close();
  await server.close();
});

/** Crawl with the test's browser (its own: these pages crash renderers); records by path. */
async function run(opts: Omit<CrawlOptions, 'browser'>): Promise<Map<string, PageRecord>> {
  const recs: PageRecord[] = [];
  for await (const r of crawl({ browser, retryBaseMs: 100, ...opts })) recs.push(r);
  return new Map(recs.map((r) => [new URL(r.url).pathname, r]));
}

describe('a visit aborted while its document loads', () => {
  it('keeps the status, URL and content type the server sent, next to the error', async () => {
    const recs = await run({ seeds: [`${server.origin}/crash-home`], concurrency: 1, settleTimeoutMs: 2000 });
    expect([...recs.keys()].sort()).toEqual(['/crash-early', '/crash-home', '/dialogs-early', '/fine']);
    const pick = (r: PageRecord | undefined) => r && { status: r.status, finalUrl: r.finalUrl, contentType: r.contentType, error: r.error?.code ?? null, title: r.title, links: r.links };
    expect(pick(recs.get('/crash-early'))).toEqual({ status: 200, finalUrl: `${server.origin}/crash-early`, contentType: 'text/html; charset=utf-8', error: 'page-crashed', title: null, links: [] });
    expect(pick(recs.get('/dialogs-early'))).toEqual({ status: 200, finalUrl: `${server.origin}/dialogs-early`, contentType: 'text/html; charset=utf-8', error: 'too-many-dialogs', title: null, links: [] });
    expect(pick(recs.get('/fine'))).toEqual({ status: 200, finalUrl: `${server.origin}/fine`, contentType: 'text/html; charset=utf-8', error: null, title: 'Fine', links: [] });
    expect(server.count('/never')).toBe(0);
  });

  it('behind a redirect: the chain and the final answer', async () => {
    const recs = await run({ seeds: [`${server.origin}/moved`], concurrency: 1, settleTimeoutMs: 2000 });
    const r = recs.get('/moved');
    expect(r && { status: r.status, finalUrl: r.finalUrl, chain: r.redirectChain, error: r.error?.code }).toEqual({
      status: 200,
      finalUrl: `${server.origin}/crash-early`,
      chain: [{ url: `${server.origin}/moved`, status: 302, kind: 'http' }],
      error: 'page-crashed',
    });
  });
});

describe('a page that floods its console', () => {
  it('is recorded whole while the crawler stops hearing its console; the next visit of the tab hears it again', async () => {
    // Counts the console messages Playwright hands the crawler's pages, without listening (a
    // listener of the test's own would keep them coming).
    let delivered = 0;
    const counted = new WeakSet<Page>();
    const hook = setInterval(() => {
      for (const c of browser.contexts()) {
        for (const page of c.pages()) {
          if (counted.has(page)) continue;
          counted.add(page);
          // Playwright's client Page is a Node EventEmitter.
          const emitter = page as unknown as { emit: (event: string | symbol, ...args: unknown[]) => boolean };
          const emit = emitter.emit.bind(page);
          emitter.emit = (event, ...args) => {
            if (event === 'console') delivered++;
            return emit(event, ...args);
          };
        }
      }
    }, 5);
    try {
      // Concurrency 1: both pages are visited in the same tab.
      const recs = await run({ seeds: [`${server.origin}/console-flood`], concurrency: 1, settleTimeoutMs: 3000 });
      const pick = (r: PageRecord | undefined) => r && { status: r.status, title: r.title, links: r.links, error: r.error, settled: r.settled, consoleErrors: r.consoleErrors.length, first: r.consoleErrors[0] };
      expect(pick(recs.get('/console-flood'))).toEqual({ status: 200, title: 'Flood', links: [`${server.origin}/one-error`], error: null, settled: true, consoleErrors: 50, first: 'flood 0' });
      expect(recs.get('/one-error')?.consoleErrors).toEqual(['just one']);
      // Every message reached the crawler before; now about the first thousand do.
      expect(delivered).toBeGreaterThanOrEqual(1000);
      expect(delivered).toBeLessThan(10_000);
    } finally {
      clearInterval(hook);
    }
  });
});

describe('a page with an enormous title', () => {
  it('keeps the first 1000 characters of it, rendered and as the server sent it', async () => {
    const recs = await run({ seeds: [`${server.origin}/long-title`], concurrency: 1, maxDepth: 0 });
    const r = recs.get('/long-title')!;
    const title = `Start ${'T'.repeat(994)}`;
    expect({ title: r.title, serverTitle: r.serverHtml?.title, links: r.links, error: r.error }).toEqual({ title, serverTitle: title, links: [`${server.origin}/fine`], error: null });
    expect(JSON.stringify(r).length).toBeLessThan(20_000);
  });
});

describe('a page that requests enormous URLs', () => {
  it('lists them in failedRequests and jsOnlyLinkSamples cut to 2000 characters', async () => {
    const recs = await run({ seeds: [`${server.origin}/long-urls`], concurrency: 1, maxDepth: 0 });
    const r = recs.get('/long-urls')!;
    const long = (i: number): string => `${`${server.origin}/gone/${i}?${'q'.repeat(10000)}`.slice(0, 2000)}…`;
    expect(r.failedRequests.map((f) => `${f.status} ${f.url}`).sort()).toEqual([long(0), long(1), long(2), `${server.origin}/gone/short`].map((u) => `404 ${u}`).sort());
    // The link itself is kept whole (it is the URL crawled); the sample naming it is cut.
    const js = `${server.origin}/js?${'q'.repeat(10000)}`;
    expect(r.links).toEqual([js]);
    expect(r.serverHtml?.jsOnlyLinkSamples).toEqual([`${js.slice(0, 2000)}…`]);
    expect(r.error).toBeNull();
  });
});
