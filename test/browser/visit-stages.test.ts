/**
 * Each stage of a visit (src/browser/visit/) run on its own on a fixture page, without a crawl:
 * one browser for the file, a fresh context and tab per test, a real HTTP server that counts
 * what it was asked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../../fixtures/server.js';
import { GARBAGE_MB, LATE_API_MS, NETWORK_CALLS, startStageSite } from '../../fixtures/sites/stages.js';
import { CLICK_EVERYWHERE } from '../../src/browser/click-memory.js';
import { sharedBrowser } from '../helpers/browser.js';
import { recordSends } from '../helpers/cdp-sends.js';
import { collectIfGrown, HEAP_GROWTH_FLOOR_BYTES, heapBytes, RendererHeaps, type HeapUsage, type HeapWatch } from '../../src/browser/renderer-heap.js';
import { ContextPool, type PoolSlot } from '../../src/browser/pool.js';
import { openTab, type VisitTab } from '../../src/browser/tab.js';
import { sleep } from '../../src/browser/timeout.js';
import { visitPage } from '../../src/browser/visit.js';
import { newVisitContext, type VisitContext } from '../../src/browser/visit/context.js';
import { discover } from '../../src/browser/visit/discover.js';
import { extract } from '../../src/browser/visit/extract.js';
import { intercept } from '../../src/browser/visit/intercept.js';
import { leave } from '../../src/browser/visit/leave.js';
import { limits } from '../../src/browser/visit/limits.js';
import { navigate } from '../../src/browser/visit/navigate.js';
import { observe } from '../../src/browser/visit/observe.js';
import { runStages, type Stage, type StageFailure } from '../../src/browser/visit/pipeline.js';
import { screenshot } from '../../src/browser/visit/screenshot.js';
import { settle } from '../../src/browser/visit/settle.js';
import { UNHEARD_CALL_WAIT_MS } from '../../src/browser/visit/activity.js';
import { settleState } from '../../src/browser/settle-scripts.js';
import { VisitAbort, type DocumentResponse, type VisitOptions } from '../../src/browser/visit/types.js';

let browser: Browser;
let pool: ContextPool;
let site: FixtureServer;
/** Another origin (another port), for cross-origin frames. */
let other: FixtureServer;
let slot: (PoolSlot & { tab: VisitTab }) | null = null;

beforeAll(async () => {
  browser = await sharedBrowser();
  pool = new ContextPool(browser, { userAgent: 'spacrawl-stage-test', recycleAfter: 1000 });
  other = await startFixtureServer(() => ({ body: html('Other', '<a href="/elsewhere">Elsewhere</a>') }));
  site = await startStageSite(other.origin);
});

afterEach(() => {
  if (slot) pool.release(slot, true);
  slot = null;
});

afterAll(async () => {
  await pool?.close();
  await site?.close();
  await other?.close();
});

const OPTS: VisitOptions = { navigationTimeoutMs: 10_000, settleTimeoutMs: 5_000, quietMs: 500, screenshotPath: null, maxDialogs: 10 };

/** A visit context on a fresh tab for `target` (a path of the site), with `opts` over {@link OPTS}. */
async function contextFor(target: string, opts: Partial<VisitOptions> = {}): Promise<VisitContext> {
  slot = await pool.acquire();
  return newVisitContext(slot.tab, `${site.origin}${target}`, { ...OPTS, ...opts });
}

/** Run `stages` over `ctx`; returns the failures reported. */
async function run(ctx: VisitContext, stages: Stage<VisitContext>[]): Promise<StageFailure[]> {
  const failures: StageFailure[] = [];
  await runStages(ctx, stages, (f) => failures.push(f));
  return failures;
}

/** A stand-in for the navigate stage: plain `page.goto` to the context's URL (through `step`). */
function gotoStage(waitUntil: 'domcontentloaded' | 'load' = 'domcontentloaded'): Stage<VisitContext> {
  return {
    name: 'goto',
    async action(ctx) {
      const resp = await ctx.step(ctx.page.goto(ctx.requestedUrl, { waitUntil }));
      if (resp && !ctx.activity.mainResponse) ctx.activity.mainResponse = resp;
    },
  };
}

/** A stage that runs `fn` (a probe between stages). */
function probe(fn: (ctx: VisitContext) => Promise<void> | void): Stage<VisitContext> {
  return { name: 'probe', action: async (ctx) => void (await fn(ctx)) };
}

/** When the page sent each `/api/tick` the site has received (ms since the epoch, by its `sent` query). */
const ticks = (): number[] => site.log.filter((r) => r.path === '/api/tick').map((r) => Number(new URL(r.target, site.origin).searchParams.get('sent')));

const hrefs = (ctx: VisitContext): Promise<(string | null)[]> => ctx.page.$$eval('a', (as) => as.map((a) => a.getAttribute('href')));

describe('limits', () => {
  it('cancellation aborts the stage that is waiting, and the cleanup records the total time', async () => {
    const controller = new AbortController();
    const ctx = await contextFor('/a', { signal: controller.signal });
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = Date.now();
      controller.abort();
    }, 100);
    const failures = await run(ctx, [limits(), { name: 'wait', action: (c) => c.step(sleep(30_000)) }]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ stage: 'wait', phase: 'action' });
    expect(failures[0]!.error).toBeInstanceOf(VisitAbort);
    expect((failures[0]!.error as VisitAbort).recordError).toEqual({ code: 'interrupted', message: 'crawl interrupted' });
    expect(ctx.aborted).toBe(true);
    // From the visit's start to the abort at least (a Node timer may fire a millisecond before its 100 ms).
    expect(abortedAt).toBeGreaterThan(0);
    expect(ctx.result.timings.total).toBeGreaterThanOrEqual(abortedAt - ctx.startedAt);
    expect(ctx.result.timings.total).toBeLessThan(30_000);
  });

  it('a signal aborted before the visit stops it at its first step', async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx = await contextFor('/a', { signal: controller.signal });
    let reached = false;
    const wait: Stage<VisitContext> = {
      name: 'wait',
      action: async (c) => {
        await c.step(sleep(0));
        reached = true;
      },
    };
    const failures = await run(ctx, [limits(), wait]);
    expect(reached).toBe(false);
    expect((failures[0]!.error as VisitAbort).recordError.code).toBe('interrupted');
    expect(site.count('/a')).toBe(0);
  });
});

describe('observe', () => {
  it('records console errors, uncaught exceptions, dialogs and failed requests, and nothing once cleaned up', async () => {
    const ctx = await contextFor('/noisy');
    const failures = await run(ctx, [observe(), gotoStage('load'), probe(() => sleep(300))]);
    expect(failures).toEqual([]);
    const r = ctx.result;
    expect(r.consoleErrors).toEqual(['boom']);
    expect(r.pageErrors).toHaveLength(1);
    expect(r.pageErrors[0]).toMatch(/^TypeError: bad thing \(at http:\/\/127\.0\.0\.1:\d+\/noisy:\d+:\d+\)$/);
    expect(r.dialogs).toEqual([{ type: 'alert', message: 'hello' }]);
    expect(r.failedRequests).toEqual([{ url: `${site.origin}/missing`, status: 404, failure: null, resourceType: 'fetch' }]);
    expect(r.respondedAt).not.toBeNull();
    expect(ctx.activity.mainResponse?.url()).toBe(`${site.origin}/noisy`);
    // The listeners are gone: what the page does now is not recorded.
    await ctx.page.evaluate(() => console.error('after'));
    await sleep(100);
    expect(r.consoleErrors).toEqual(['boom']);
  });

  it("a call the page stops reading after the server answered is not a failed request; one the server never answered, or answered 404, is", async () => {
    const ctx = await contextFor('/aborts');
    const aborted = async (c: VisitContext): Promise<void> => {
      await c.page.waitForFunction(() => document.title === 'Aborted', undefined, { timeout: 10_000 });
      // The failures' events reach the crawler after the page's own promises: wait for the two
      // expected (the aborts all happened at once), then a while for any other.
      for (let waited = 0; c.result.failedRequests.length < 2 && waited < 10_000; waited += 50) await sleep(50);
      await sleep(300);
    };
    const failures = await run(ctx, [observe(), gotoStage('load'), probe(aborted)]);
    expect(failures).toEqual([]);
    const byUrl = (a: { url: string }, b: { url: string }): number => a.url.localeCompare(b.url);
    expect([...ctx.result.failedRequests].sort(byUrl)).toEqual(
      [
        { url: `${site.origin}/api/no-answer`, status: null, failure: 'net::ERR_ABORTED', resourceType: 'fetch' },
        { url: `${site.origin}/gone`, status: 404, failure: null, resourceType: 'fetch' },
      ].sort(byUrl),
    );
    for (const path of ['/api/half-body', '/api/no-answer', '/api/stream', '/gone']) expect([path, site.count(path)]).toEqual([path, 1]);
  });

  it('more dialogs than maxDialogs abort the visit with too-many-dialogs', async () => {
    const ctx = await contextFor('/dialogs', { maxDialogs: 2 });
    const failures = await run(ctx, [observe(), gotoStage('load')]);
    expect(failures).toHaveLength(1);
    expect((failures[0]!.error as VisitAbort).recordError).toEqual({ code: 'too-many-dialogs', message: 'more than 2 dialogs; visit abandoned' });
    expect(ctx.result.dialogs).toEqual([
      { type: 'alert', message: '1' },
      { type: 'alert', message: '2' },
      { type: 'alert', message: '3' },
    ]);
  });
});

describe('intercept', () => {
  it('stops a redirect hop that onDocument refuses: the target is never requested', async () => {
    const asked: DocumentResponse[] = [];
    const ctx = await contextFor('/hop', {
      onDocument: (doc) => {
        asked.push(doc);
        return doc.location?.endsWith('/target') ? { stop: 'scope' } : 'follow';
      },
    });
    site.reset();
    const failures = await run(ctx, [intercept(), gotoStage()]);
    expect(failures).toEqual([]);
    expect(asked).toEqual([{ url: `${site.origin}/hop`, status: 302, location: `${site.origin}/target`, initial: true }]);
    expect(ctx.result.stopped).toEqual({ reason: 'scope', target: `${site.origin}/target`, kind: 'http' });
    expect(ctx.document.hops).toEqual([{ url: `${site.origin}/hop`, status: 302, kind: 'http' }]);
    expect(ctx.document.ownStatus).toBe(302);
    expect(site.log.map((l) => l.path)).toEqual(['/hop']);
    // The paused responses are the tab's again.
    expect(ctx.tab.intercepting).toBe(false);
  });

  it('answers a non-HTML document from its headers with an empty page: nothing is rendered or downloaded', async () => {
    const asked: DocumentResponse[] = [];
    const ctx = await contextFor('/file.pdf', { onDocument: (doc) => (asked.push(doc), 'follow') });
    const failures = await run(ctx, [intercept(), gotoStage()]);
    expect(failures).toEqual([]);
    expect(asked).toEqual([{ url: `${site.origin}/file.pdf`, status: 200, location: null, initial: true }]);
    expect(ctx.document.nonHtml).toEqual({ status: 200, contentType: 'application/pdf', url: `${site.origin}/file.pdf`, retryAfter: null });
    expect(ctx.document.decided).toBe(true);
    expect(await ctx.page.content()).toBe('<html><head></head><body></body></html>');
  });
});

describe('navigate', () => {
  it('passes the politeness gate, follows HTTP redirects and reads the answer: chain, status, headers', async () => {
    const calls: string[] = [];
    const ctx = await contextFor('/old', {
      beforeNavigate: async () => void calls.push(`gate (server saw ${site.count('/old')})`),
      onNavigationSent: () => void calls.push('sent'),
      onMainResponse: (status, headers) => (calls.push(`answer ${status} ${headers['content-type']}`), false),
    });
    site.reset();
    const failures = await run(ctx, [observe(), intercept(), navigate()]);
    expect(failures).toEqual([]);
    expect(calls).toEqual(['gate (server saw 0)', 'sent', 'answer 200 text/html; charset=utf-8']);
    const r = ctx.result;
    expect({ finalUrl: r.finalUrl, status: r.status, contentType: r.contentType, robotsHeaders: r.robotsHeaders, retryAfter: r.retryAfter, error: r.error }).toEqual({
      finalUrl: `${site.origin}/new`,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      robotsHeaders: ['noindex', 'otherbot: nofollow'],
      retryAfter: null,
      error: null,
    });
    expect(r.redirectChain).toEqual([{ url: `${site.origin}/old`, status: 301, kind: 'http' }]);
    expect(site.log.map((l) => l.path)).toEqual(['/old', '/new']);
  });

  it('resumes the scripts of the page the previous visit paused before navigating', async () => {
    const first = await contextFor('/a');
    await run(first, [leave(), observe(), intercept(), navigate()]);
    expect(first.tab.paused).toBe(true);
    const ctx = newVisitContext(first.tab, `${site.origin}/scripted`, OPTS);
    const failures = await run(ctx, [observe(), intercept(), navigate()]);
    expect(failures).toEqual([]);
    expect(ctx.tab.paused).toBe(false);
    expect(ctx.result.status).toBe(200);
    expect(await ctx.page.title()).toBe('Scripted');
  });

  it('ends the visit with the error when nothing answers', async () => {
    const ctx = await contextFor('/a');
    const dead = await startFixtureServer(() => ({ body: '' }));
    const url = `${dead.origin}/gone`;
    await dead.close();
    const gone = newVisitContext(ctx.tab, url, OPTS);
    const ends: unknown[] = [];
    const failures = await run(gone, [observe(), intercept(), navigate(), probe(() => void ends.push('went on'))]);
    expect(failures).toEqual([]);
    expect(ends).toEqual([]);
    expect(gone.result.error).toEqual({ code: 'network', message: 'ERR_CONNECTION_REFUSED' });
    expect(gone.result.status).toBeNull();
  });
});

describe('settle', () => {
  it('waits for a link a script adds after a slow API answer', async () => {
    const ctx = await contextFor('/late');
    site.reset();
    let atDomContentLoaded: (string | null)[] = [];
    const failures = await run(ctx, [observe(), gotoStage(), probe(async (c) => void (atDomContentLoaded = await hrefs(c))), settle()]);
    expect(failures).toEqual([]);
    expect(atDomContentLoaded).toEqual([]);
    expect(await hrefs(ctx)).toEqual(['/late-target']);
    expect(ctx.result.settled).toBe(true);
    expect(site.count('/api/late')).toBe(1);
    expect(ctx.result.timings.settledMs).not.toBeNull();
    // The API's wait is server wait (measured by the browser's network timings).
    expect(ctx.result.timings.serverWaitMs!).toBeGreaterThanOrEqual(LATE_API_MS - 10);
    expect(ctx.document.deciding).toBe(false);
  });

  it('the answer that finds the page settled carries its read: the extract stage makes no call of its own, and reads the late link', async () => {
    const ctx = await contextFor('/late');
    const sends = recordSends(ctx.tab.cdp);
    const failures = await run(ctx, [observe(), gotoStage(), settle(), extract()]);
    expect(failures).toEqual([]);
    expect(ctx.result.settled).toBe(true);
    expect(ctx.result.links.map((l) => l.href)).toEqual([`${site.origin}/late-target`]);
    const evaluations = sends.filter((c) => c.method === 'Runtime.evaluate').map((c) => String(c.params?.expression));
    const reads = evaluations.filter((e) => e.includes('.extractPage('));
    // One read, made inside a settle question (the settle stage's questions before it carry none).
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain('awaitQuiet');
    expect(ctx.settledRead).toBeNull();
    // Judged settled when read: after the link came, within the visit.
    const t = ctx.result.timings;
    expect(t.settledMs!).toBeGreaterThanOrEqual(t.lastChangeMs!);
    expect(t.settledMs!).toBeLessThanOrEqual(Date.now() - ctx.startedAt);
  });

  it('an answer that ran the page\'s timeouts early carries its read too, once the page is quiet after them', async () => {
    const ctx = await contextFor('/timer');
    const sends = recordSends(ctx.tab.cdp);
    const seen = { read: false };
    const failures = await run(ctx, [observe(), gotoStage('load'), settle(), probe((c) => void (seen.read = c.settledRead !== null)), extract()]);
    expect(failures).toEqual([]);
    expect(ctx.result.settled).toBe(true);
    // The timeout ran (fast-forwarded: the settle does not wait 400 ms for it), and changed no link.
    expect(await ctx.page.evaluate('window.__ran === true')).toBe(true);
    expect(ctx.result.links.map((l) => l.href)).toEqual([`${site.origin}/a`]);
    // Read in the settle answer (a busy machine may take more than one question to get there),
    // never by a call of the extract stage's own.
    expect(seen.read).toBe(true);
    const evaluations = sends.filter((c) => c.method === 'Runtime.evaluate').map((c) => String(c.params?.expression));
    const reads = evaluations.filter((e) => e.includes('.extractPage('));
    expect(reads.length).toBeGreaterThanOrEqual(1);
    expect(reads.filter((e) => !e.includes('awaitQuiet'))).toEqual([]);
  });

  it('asks for the server\'s HTML of the document while the page settles; the extract stage takes that answer and asks for none of its own', async () => {
    const ctx = await contextFor('/timer');
    const seen: { afterSettle: VisitContext['serverBody'] } = { afterSettle: undefined };
    const failures = await run(ctx, [observe(), gotoStage('load'), settle(), probe((c) => void (seen.afterSettle = c.serverBody)), extract()]);
    expect(failures).toEqual([]);
    expect(seen.afterSettle?.of).toBe(ctx.activity.mainResponse);
    // The same request, not a second one.
    expect(ctx.serverBody).toBe(seen.afterSettle);
    const body = await ctx.serverBody!.body;
    expect(body?.toString('utf8')).toContain('<a href="/a">A</a>');
  });

  it('history.back() within the document is scheduled work until its popstate, a fragment navigation until its hashchange; a traversal that would leave the document is refused and schedules nothing', async () => {
    slot = await pool.acquire();
    const page = slot.tab.page;
    await page.goto(`${other.origin}/`);
    await page.waitForFunction(() => document.readyState === 'complete');
    /**
     * The page's scheduled work before, right after and once the event it awaits has fired and a
     * task has passed (its other listeners run after the one whose promise this continues).
     */
    const scheduledAround = (act: 'back' | 'hash' | 'push'): Promise<number[]> =>
      page.evaluate(async (how) => {
        const read = (): number => (window as unknown as { __spacrawl: { read: () => { scheduled: number } } }).__spacrawl.read().scheduled;
        const before = read();
        const fired = new Promise((r) => addEventListener(how === 'back' ? 'popstate' : 'hashchange', r, { once: true }));
        if (how === 'back') history.back();
        else if (how === 'hash') location.hash = `#h${Math.random()}`;
        else history.pushState({}, '', `#p${Math.random()}`);
        const during = read();
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([fired, new Promise((r) => (timer = setTimeout(r, 300)))]);
        clearTimeout(timer);
        await new Promise((r) => setTimeout(r, 0));
        return [before, during, read()];
      }, act);
    // The tab's entry before this page is another visit's: going there is refused, nothing waits.
    expect(await scheduledAround('back')).toEqual([0, 0, 0]);
    await page.evaluate(() => history.pushState({}, '', '?step=2'));
    // Within the document: pending from the call until popstate has fired.
    expect(await scheduledAround('back')).toEqual([0, 1, 0]);
    expect(new URL(page.url()).search).toBe('');
    // A fragment navigation: pending from the assignment until its hashchange; pushState fires
    // no hashchange and waits for none, even to another fragment.
    expect(await scheduledAround('hash')).toEqual([0, 1, 0]);
    expect(await scheduledAround('push')).toEqual([0, 0, 0]);
  });

  it("the page's count of its calls over HTTP and the requests heard of agree exactly (no page is held for a call that was heard of)", async () => {
    const ctx = await contextFor('/calls', { settleTimeoutMs: 10_000 });
    site.reset();
    const failures = await run(ctx, [observe(), gotoStage(), settle()]);
    expect(failures).toEqual([]);
    const state = await ctx.page.evaluate(settleState);
    expect([state.callsStarted, ctx.activity.callsSeen]).toEqual([NETWORK_CALLS, NETWORK_CALLS]);
    expect(ctx.result.settled).toBe(true);
    expect(['', '?r', '?x', '?hop', '?frame'].map((q) => site.count(`/api/one${q}`))).toEqual([1, 1, 1, 1, 1]);
  });

  it('a call the browser refuses before sending it (never heard of) holds the settle for UNHEARD_CALL_WAIT_MS at most', async () => {
    const ctx = await contextFor('/refused-call', { settleTimeoutMs: 8_000 });
    other.reset();
    let settledAt = 0;
    const failures = await run(ctx, [observe(), gotoStage(), settle(), probe(() => void (settledAt = Date.now()))]);
    expect(failures).toEqual([]);
    const state = await ctx.page.evaluate(settleState);
    expect([state.callsStarted, ctx.activity.callsSeen]).toEqual([1, 0]);
    expect(ctx.result.settled).toBe(true);
    // Held until the call was UNHEARD_CALL_WAIT_MS old (the page noted when it made it), then let go.
    const calledAt = await ctx.page.evaluate(() => (window as unknown as { calledAt: number }).calledAt);
    expect(settledAt - calledAt).toBeGreaterThanOrEqual(UNHEARD_CALL_WAIT_MS - 50);
    expect(other.count('/x')).toBe(0);
  });

  it('a page whose main thread gets no idle period is answered at the plain early window, not at the end of the in-page wait', async () => {
    const ctx = await contextFor('/a');
    await run(ctx, [gotoStage('load')]);
    const report = await ctx.page.evaluate(async (req) => {
      const s = (window as unknown as { __spacrawl: { onIdle: unknown; awaitQuiet: (r: typeof req) => Promise<{ contentQuietForMs: number; idleSinceChange: boolean }> } }).__spacrawl;
      // A renderer shared with busy tabs: no idle period ever comes, idle callbacks run only at their timeout.
      s.onIdle = (f: (d: { didTimeout: boolean; timeRemaining: () => number }) => void, timeout: number) => setTimeout(() => f({ didTimeout: true, timeRemaining: () => 0 }), timeout);
      document.body.append(document.createElement('p'));
      const t0 = performance.now();
      const r = await s.awaitQuiet(req);
      return { ...r, tookMs: performance.now() - t0 };
    }, { earlyMs: 100, idleEarlyMs: 50, linksOnly: false, quietMs: 500, minWaitMs: 0, maxMs: 3_000, fastForwards: 0 });
    // Answered once the content had been quiet for the early window (100 ms), without an idle
    // period: before, the wait asked for idle until the end of its cap (here 3 s) and answered then.
    // The upper bound leaves a busy renderer 1.9 s to run the page's timers.
    expect(report.idleSinceChange).toBe(false);
    expect(report.contentQuietForMs).toBeGreaterThanOrEqual(100);
    expect(report.tookMs).toBeGreaterThanOrEqual(100);
    expect(report.tookMs).toBeLessThan(2_000);
  });

  it('gives up at the cap on a page that polls for ever: settled false', async () => {
    const settleTimeoutMs = 1_500;
    const ctx = await contextFor('/poll', { settleTimeoutMs });
    let settleStart = 0;
    const failures = await run(ctx, [observe(), gotoStage(), probe(() => void (settleStart = Date.now())), settle()]);
    expect(failures).toEqual([]);
    expect(ctx.result.settled).toBe(false);
    expect(Date.now() - settleStart).toBeGreaterThanOrEqual(settleTimeoutMs);
    expect(ticks().length).toBeGreaterThanOrEqual(3);
  });
});

describe('extract', () => {
  it('reads the document, its same-origin frames (srcdoc too) and lists the cross-origin one', async () => {
    const ctx = await contextFor('/frames');
    const failures = await run(ctx, [gotoStage('load'), extract()]);
    expect(failures).toEqual([]);
    const r = ctx.result;
    expect({ title: r.title, finalUrl: r.finalUrl, noContent: r.noContent, redirectChain: r.redirectChain }).toEqual({
      title: 'Frames',
      finalUrl: `${site.origin}/frames`,
      noContent: false,
      redirectChain: [],
    });
    expect(r.links).toEqual([
      { href: `${site.origin}/a`, text: 'A', source: 'anchor', rel: '' },
      { href: `${site.origin}/inner`, text: '', source: 'frame-src', rel: '' },
      { href: `${other.origin}/x`, text: '', source: 'frame-src', rel: '' },
      { href: `${site.origin}/in-frame`, text: 'F', source: 'frame', rel: '' },
      { href: `${site.origin}/in-srcdoc`, text: 'S', source: 'frame', rel: '' },
    ]);
    expect(r.frames).toEqual([`${other.origin}/x`]);
    expect(r.meta).toEqual({ description: null, canonical: null, h1Count: 0 });
    expect(r.anchors).toBeNull();
  });

  it('a page that moved itself during load is a client hop from the URL it arrived at', async () => {
    const ctx = await contextFor('/moves', { collectAnchors: true });
    const failures = await run(ctx, [gotoStage('load'), extract()]);
    expect(failures).toEqual([]);
    expect(ctx.result.finalUrl).toBe(`${site.origin}/moved`);
    expect(ctx.result.redirectChain).toEqual([{ url: `${site.origin}/moves`, status: null, kind: 'client' }]);
    expect(ctx.result.anchors).toEqual([]);
  });
});

describe('screenshot', () => {
  it('writes a PNG of the page when asked, and nothing otherwise', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-shot-'));
    try {
      const file = path.join(dir, 'page.png');
      const ctx = await contextFor('/new', { screenshotPath: file });
      expect(await run(ctx, [gotoStage('load'), screenshot()])).toEqual([]);
      expect(ctx.result.screenshot).toBe(true);
      expect(fs.readFileSync(file).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const none = newVisitContext(ctx.tab, ctx.requestedUrl, OPTS);
      expect(await run(none, [screenshot()])).toEqual([]);
      expect(none.result.screenshot).toBe(false);
      expect(fs.readdirSync(dir)).toEqual(['page.png']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('discover', () => {
  it('clicks a button that reveals a link, and counts the click', async () => {
    const click = { limit: 10, exclude: [], policy: CLICK_EVERYWHERE, repeat: 1, clickWaitMs: 500, budgetMs: 10_000, maxRevealDepth: 1 };
    const ctx = await contextFor('/more', { click });
    const failures = await run(ctx, [observe(), gotoStage('load'), discover()]);
    expect(failures).toEqual([]);
    expect(ctx.result.links).toEqual([{ href: `${site.origin}/revealed`, text: 'Revealed', source: 'click', rel: '' }]);
    expect(ctx.result.clicks).toBe(1);
  });
});

describe('leave', () => {
  it('pauses the page on cleanup: its timers stop, the tab is marked paused', async () => {
    const ctx = await contextFor('/poll');
    let ticking = 0;
    const failures = await run(ctx, [
      leave(),
      gotoStage(),
      probe(async () => {
        const before = ticks().length;
        await sleep(500);
        ticking = ticks().length - before;
      }),
    ]);
    const pausedAt = Date.now();
    expect(failures).toEqual([]);
    expect(ticking).toBeGreaterThan(0);
    expect(ctx.tab.paused).toBe(true);
    await sleep(500);
    // By the time the page sent each tick, not the time it reached the server: a tick sent right
    // before the pause may reach a busy server after it (CI: 20 counted against 19).
    expect(ticks().filter((sent) => sent > pausedAt)).toEqual([]);
    expect(ticks().length).toBeGreaterThan(0);
  });

  const held = async (tab: VisitTab): Promise<number> => heapBytes((await tab.cdp.send('Runtime.getHeapUsage')) as HeapUsage);
  /** The heap watch of the renderer `tab` renders in. */
  const watchOf = async (tab: VisitTab): Promise<HeapWatch> => tab.heaps.watch((await tab.cdp.send('Runtime.getIsolateId')).id);

  it('collects the garbage of a paused tab whose heap grew, and waits for it before the next visit', async () => {
    const ctx = await contextFor('/garbage');
    let before = 0;
    await run(ctx, [leave(), gotoStage('load'), probe(async () => void (before = await held(ctx.tab)))]);
    // The page's boot left V8 holding its garbage: far more than the floor (the MB of arrays it dropped).
    expect(before).toBeGreaterThan(2 * HEAP_GROWTH_FLOOR_BYTES);
    expect(ctx.tab.tidying).not.toBeNull();
    const tab = ctx.tab;
    pool.release(slot!, false);
    slot = await pool.acquire();
    expect(slot.tab).toBe(tab);
    // acquire() waited for the collection: it ended, and V8 gave the space back.
    expect(tab.tidying).toBeNull();
    const watch = await watchOf(tab);
    expect(watch.collecting).toBeNull();
    expect(watch.visitsSinceCollect).toBe(0);
    expect(watch.heldAfterCollect).toBeGreaterThan(0);
    expect(watch.heldAfterCollect).toBeLessThan(16 * 1024 * 1024);
    expect(await held(tab)).toBeLessThan(16 * 1024 * 1024);
    expect(GARBAGE_MB * 1024 * 1024).toBeGreaterThan(2 * HEAP_GROWTH_FLOOR_BYTES);
  });

  it("leaves a light page's tab alone visit after visit, and collects it after a page whose DOM grew Blink's heap", async () => {
    const collected: string[] = [];
    const visits = ['/a', '/a', '/a', '/a', '/a', '/big-dom', '/a'];
    let blinkBefore = 0;
    for (const [i, path] of visits.entries()) {
      const ctx = await contextFor(path);
      // The last visit's leave paused the tab's scripts; the navigate stage resumes them (not used here).
      const resume = probe(async (c) => void (await c.tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: false })));
      const steps = [leave(), resume, gotoStage('load')];
      if (path === '/big-dom') steps.push(probe(async () => void (blinkBefore = ((await ctx.tab.cdp.send('Runtime.getHeapUsage')) as HeapUsage).embedderHeapUsedSize ?? 0)));
      await run(ctx, steps);
      await ctx.tab.tidying;
      if ((await watchOf(ctx.tab)).visitsSinceCollect === 0) collected.push(`${i + 1}${path}`);
      // The same tab each time (afterEach discards it after the last visit).
      if (i < visits.length - 1) {
        pool.release(slot!, false);
        slot = null;
      }
    }
    // The growth was Blink's (V8's heap alone would not have passed the floor).
    expect(blinkBefore).toBeGreaterThan(HEAP_GROWTH_FLOOR_BYTES);
    expect(collected).toEqual(['6/big-dom']);
  });

  it('the tabs of one renderer share its watch: their visits count together, and one collection runs at a time', async () => {
    const context = await browser.newContext();
    try {
      const heaps = new RendererHeaps();
      const tabs = [await openTab(context, null, 'load', heaps), await openTab(context, null, 'load', heaps)];
      for (const t of tabs) await t.page.goto(`${site.origin}/a`);
      const [a, b] = tabs as [VisitTab, VisitTab];
      const isolates = await Promise.all(tabs.map(async (t) => (await t.cdp.send('Runtime.getIsolateId')).id));
      // One renderer, one isolate: one watch, counting both tabs' visits.
      expect(isolates[0]).toBe(isolates[1]);
      expect(await collectIfGrown(a.cdp, heaps)).toBe(false);
      expect(await collectIfGrown(b.cdp, heaps)).toBe(false);
      expect(heaps.size).toBe(1);
      expect(heaps.watch(isolates[0]!).visitsSinceCollect).toBe(2);
      // Grown past the floor: the two tabs ending together start one collection, not two.
      await a.page.evaluate((mb) => {
        (window as unknown as { junk: number[][] }).junk = Array.from({ length: mb * 2 }, (_, i) => new Array(65536).fill(i + 0.5));
      }, (2 * HEAP_GROWTH_FLOOR_BYTES) / (1024 * 1024));
      await a.page.evaluate(() => void ((window as unknown as { junk: unknown }).junk = null));
      const ran = await Promise.all([collectIfGrown(a.cdp, heaps), collectIfGrown(b.cdp, heaps)]);
      expect(ran.filter(Boolean)).toHaveLength(1);
      const watch = heaps.watch(isolates[0]!);
      expect(watch.visitsSinceCollect).toBe(0);
      expect(watch.heldAfterCollect).toBeLessThan(HEAP_GROWTH_FLOOR_BYTES);
    } finally {
      await context.close();
    }
  });

  it('leaves a tab whose visit failed as it is (broken, not paused)', async () => {
    const ctx = await contextFor('/poll');
    ctx.result.contextBroken = true;
    await run(ctx, [leave(), gotoStage()]);
    expect(ctx.tab.paused).toBe(false);
  });
});

describe('visitPage', () => {
  it('composes the stages: a redirected page read, settled, and its tab paused', async () => {
    slot = await pool.acquire();
    const r = await visitPage(slot.tab, `${site.origin}/old`, OPTS);
    expect({ finalUrl: r.finalUrl, status: r.status, title: r.title, settled: r.settled, error: r.error, contextBroken: r.contextBroken }).toEqual({
      finalUrl: `${site.origin}/new`,
      status: 200,
      title: 'New',
      settled: true,
      error: null,
      contextBroken: false,
    });
    expect(r.redirectChain).toEqual([{ url: `${site.origin}/old`, status: 301, kind: 'http' }]);
    expect(r.links).toEqual([{ href: `${site.origin}/a`, text: 'A', source: 'anchor', rel: '' }]);
    expect(r.robotsHeaders).toEqual(['noindex', 'otherbot: nofollow']);
    expect(r.timings.total).not.toBeNull();
    expect(slot.tab.paused).toBe(true);
    expect(slot.tab.intercepting).toBe(false);
  });
});
