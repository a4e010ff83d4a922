/**
 * The context pool's start (src/browser/pool.ts) and the crawl command's early launch
 * (src/cli/early-launch.ts), on real Chromium: how many contexts and tabs the first visits
 * open, which renderer they share, and who closes a browser launched before the crawl.
 */
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContextPool } from '../../src/browser/pool.js';
import { BrowserNotFoundError } from '../../src/browser/locate.js';
import { startEarlyLaunch } from '../../src/cli/early-launch.js';
import { html, startFixtureServer } from '../../fixtures/server.js';
import { sharedBrowser } from '../helpers/browser.js';

let browser: Browser;

beforeAll(async () => {
  browser = await sharedBrowser();
});

/**
 * The contexts opened since `before` (a snapshot of `browser.contexts()`), and their pages. A
 * context another test file left closing in the shared browser is in `before`, so it counts
 * neither while it lingers nor once it is gone.
 */
const openSince = (before: ReadonlySet<BrowserContext>): { contexts: number; pages: number } => {
  const mine = browser.contexts().filter((c) => !before.has(c));
  return { contexts: mine.length, pages: mine.reduce((n, c) => n + c.pages().length, 0) };
};
const snapshot = (): ReadonlySet<BrowserContext> => new Set(browser.contexts());

describe('ContextPool', () => {
  let pool: ContextPool | null = null;
  afterAll(async () => {
    await pool?.close();
  });

  it('opens a context with tabsPerContext tabs at once, before any navigates: they share one renderer; a slot beyond them opens the next context', async () => {
    const server = await startFixtureServer(() => ({ body: html('Page', '') }));
    const before = snapshot();
    pool = new ContextPool(browser, { userAgent: 'spacrawl-pool-test', recycleAfter: 100, tabsPerContext: 2 });
    // Asked for at once: one context is opened, not two.
    const slots = await Promise.all([1, 2].map(() => pool!.acquire()));
    expect(new Set(slots.map((s) => s.context)).size).toBe(1);
    expect(openSince(before)).toEqual({ contexts: 1, pages: 2 });
    const later = await pool.acquire();
    expect(slots.map((s) => s.context)).not.toContain(later.context);
    // The next context opened two tabs too: one for this slot, one for the next.
    expect(openSince(before)).toEqual({ contexts: 2, pages: 4 });
    const isolates: string[] = [];
    for (const s of [...slots, later]) {
      await s.tab.page.goto(`${server.origin}/`);
      isolates.push((await s.tab.cdp.send('Runtime.getIsolateId')).id);
    }
    // One renderer process (one V8 isolate) for the two tabs of a context, another for the next.
    expect(isolates[0]).toBe(isolates[1]);
    expect(isolates[2]).not.toBe(isolates[0]);
    for (const s of [...slots, later]) pool.release(s, false);
    await pool.close();
    pool = null;
    await server.close();
    expect(openSince(before)).toEqual({ contexts: 0, pages: 0 });
  });

  it('prewarm(2) opens the tabs of one context before any visit; the first two visits take them, a third opens the next context', async () => {
    const before = snapshot();
    pool = new ContextPool(browser, { userAgent: 'spacrawl-pool-test', recycleAfter: 100, tabsPerContext: 2 });
    pool.prewarm(2);
    pool.prewarm(2); // once: a second call while warming does nothing
    const first = await pool.acquire(); // waits for the first warming slot to be ready
    const second = await pool.acquire(); // and this one for the other
    expect(openSince(before)).toEqual({ contexts: 1, pages: 2 });
    const third = await pool.acquire();
    expect(openSince(before)).toEqual({ contexts: 2, pages: 4 });
    expect(new Set([first.tab.page, second.tab.page, third.tab.page]).size).toBe(3);
    for (const s of [first, second, third]) pool.release(s, false);
    pool.prewarm(2); // the pool has slots: nothing more
    await pool.close();
    pool = null;
    expect(openSince(before)).toEqual({ contexts: 0, pages: 0 });
  });

  it('without tabsPerContext, slots asked for at once each get a context of their own', async () => {
    const before = snapshot();
    pool = new ContextPool(browser, { userAgent: 'spacrawl-pool-test', recycleAfter: 100 });
    const slots = await Promise.all([1, 2].map(() => pool!.acquire()));
    expect(new Set(slots.map((s) => s.context)).size).toBe(2);
    expect(openSince(before)).toEqual({ contexts: 2, pages: 2 });
    for (const s of slots) pool.release(s, false);
    await pool.close();
    pool = null;
    expect(openSince(before)).toEqual({ contexts: 0, pages: 0 });
  });

  it('prewarm opens the first tab alone (the first page waits for it) and the others once it is ready', async () => {
    const before = snapshot();
    // The pool's browser, with each context it opens counted against the tabs already open then
    // (the order itself, not a count taken at some moment after the first acquire: on a busy
    // machine the next context may already be open by the time the test looks).
    const tabsAtOpen: number[] = [];
    const watched = {
      newContext: (o?: BrowserContextOptions): Promise<BrowserContext> => {
        tabsAtOpen.push(openSince(before).pages);
        return browser.newContext(o);
      },
    } as unknown as Browser;
    pool = new ContextPool(watched, { userAgent: 'spacrawl-pool-test', recycleAfter: 100 });
    pool.prewarm(3);
    const first = await pool.acquire();
    expect(first.tab.page.isClosed()).toBe(false);
    const others = [await pool.acquire(), await pool.acquire()];
    expect(openSince(before)).toEqual({ contexts: 3, pages: 3 });
    // The first context opened with no tab open yet; the two others once the first tab was.
    expect(tabsAtOpen).toHaveLength(3);
    expect(tabsAtOpen[0]).toBe(0);
    expect(tabsAtOpen.slice(1).every((n) => n >= 1)).toBe(true);
    for (const s of [first, ...others]) pool.release(s, false);
    await pool.close();
    pool = null;
    expect(openSince(before)).toEqual({ contexts: 0, pages: 0 });
  });

  it('a pool closed while warming leaves no context open', async () => {
    const before = snapshot();
    const p = new ContextPool(browser, { userAgent: 'spacrawl-pool-test', recycleAfter: 100 });
    p.prewarm(3);
    await p.close();
    expect(openSince(before)).toEqual({ contexts: 0, pages: 0 });
  });
});

describe('the crawl command\'s early launch', () => {
  it('is handed to a crawl with the same browser settings, and closed by close() unless the crawl closed it', async () => {
    const early = startEarlyLaunch({ browserPath: null, proxy: null });
    const b = await early.for({});
    expect(b).not.toBeNull();
    expect(b!.isConnected()).toBe(true);
    await early.close();
    expect(b!.isConnected()).toBe(false);
    await early.close(); // closed already: nothing to do, no error
  });

  it('has started once Playwright was asked to launch and left the event loop for a moment, before the browser is up (the command loads the crawl\'s modules meanwhile)', async () => {
    const early = startEarlyLaunch({ browserPath: null, proxy: null });
    let up = false;
    const launching = early.for({})!.then((b) => {
      up = true;
      return b;
    });
    await early.started;
    // Chromium takes 150 ms and more to answer here; the command waits SPAWN_LEAD_MS at most after launch().
    expect(up).toBe(false);
    expect((await launching).isConnected()).toBe(true);
    await early.close();
  });

  it('is not handed to a crawl that asks for another proxy (a Redis worker joining a crawl takes its options): that one launches its own', async () => {
    const early = startEarlyLaunch({ browserPath: null, proxy: null });
    expect(early.for({ proxy: 'http://127.0.0.1:9' })).toBeNull();
    await early.close();
  });

  it('a browser that cannot be found rejects for the crawl that takes it, with the usual error; close() still resolves', async () => {
    const early = startEarlyLaunch({ browserPath: '/nonexistent/chromium', proxy: null });
    await expect(early.started).resolves.toBeUndefined();
    await expect(early.for({ browserPath: '/nonexistent/chromium' })).rejects.toBeInstanceOf(BrowserNotFoundError);
    await expect(early.close()).resolves.toBeUndefined();
  });
});
