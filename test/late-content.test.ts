import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLateSite, type LateSite } from '../fixtures/sites/late.js';
import { sharedBrowser } from './helpers/browser.js';
import { crawl } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import type { PageRecord } from '../src/model/record.js';
import { expectWellFormed, pagesOf, pathOf, sorted } from './helpers/records.js';

let browser: Browser;
let site: LateSite;

beforeAll(async () => {
  browser = await sharedBrowser();
  // Every page's link arrives 1.5 s after the page opened its connection: three times the
  // 500 ms quiet window, so a page read when it first went quiet has no link yet.
  site = await startLateSite(1500);
});

afterAll(async () => {
  await site?.close();
});

/** Crawl from `path` (depth 1 by default); the records, and when each arrived (ms since epoch). */
async function crawlFrom(path: string, opts: Partial<CrawlOptions> = {}): Promise<{ records: PageRecord[]; arrived: Map<string, number> }> {
  const records: PageRecord[] = [];
  const arrived = new Map<string, number>();
  for await (const r of crawl({ seeds: [`${site.origin}${path}`], maxDepth: 1, settleTimeoutMs: 10_000, click: 'off', soft404: false, ...opts, browser })) {
    records.push(r);
    arrived.set(pathOf(r.url), Date.now());
  }
  expectWellFormed(records);
  return { records, arrived };
}

describe('content that arrives over a connection the page keeps open', () => {
  it.each([
    ['/ws', 'ws', 'WebSocket feed'],
    ['/sse', 'sse', 'Event stream'],
    ['/sse-named', 'sse-named', 'Named events'],
  ])('%s: read once the first message arrived, then settled when quiet (not at the cap)', async (path, push, title) => {
    const { records, arrived } = await crawlFrom(path);
    const target = `/from-${push}`;
    const rec = records.find((r) => pathOf(r.url) === path)!;
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title });
    expect(rec.links).toEqual([`${site.origin}${target}`]);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(sorted([path, target]));
    // The page was read after the server pushed its message, and well before the 10 s cap.
    expect(arrived.get(path)!).toBeGreaterThanOrEqual(site.sentAt.get(push)!);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeLessThan(10_000);
  });

  it('long polling: the first poll is waited for; the re-poll the server holds does not keep the page unsettled', async () => {
    const { records, arrived } = await crawlFrom('/poll');
    const rec = records.find((r) => pathOf(r.url) === '/poll')!;
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title: 'Long poll' });
    expect(rec.links).toEqual([`${site.origin}/from-poll`]);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/from-poll', '/poll']);
    expect(arrived.get('/poll')!).toBeGreaterThanOrEqual(site.sentAt.get('poll')!);
    // The page really re-polled, and that request was still held when the page was read.
    const repolls = site.log.filter((l) => l.target === '/api/poll?cursor=1');
    expect(repolls).toHaveLength(1);
    expect(repolls[0]!.at).toBeLessThan(arrived.get('/poll')!);
  });

  it('a WebSocket whose first message is a greeting: the answer to what the page sent once greeted (its subscription) is waited for and read', async () => {
    const { records, arrived } = await crawlFrom('/ws-ask');
    const rec = records.find((r) => pathOf(r.url) === '/ws-ask')!;
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title: 'Subscribed socket' });
    expect(rec.links).toEqual([`${site.origin}/from-ws-greeting`, `${site.origin}/from-ws-ask`]);
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/from-ws-ask', '/from-ws-greeting', '/ws-ask']);
    expect(arrived.get('/ws-ask')!).toBeGreaterThanOrEqual(site.sentAt.get('ws-ask')!);
  });

  it('a socket that never answers what the page sent holds the page for 2 s only: settled, the greeting\'s link read, well before the cap', async () => {
    const { records } = await crawlFrom('/ws-unanswered', { maxDepth: 0, settleTimeoutMs: 8_000 });
    expect(records.find((r) => pathOf(r.url) === '/ws-unanswered')).toMatchObject({ status: 200, settled: true, error: null, title: 'Unanswered socket', links: [`${site.origin}/from-ws-greeting`] });
  });

  it('the page\'s WebSocket and EventSource behave as the browser\'s own (instanceof, constants, removeEventListener)', async () => {
    const { records } = await crawlFrom('/intact', { maxDepth: 0 });
    expect(records.map((r) => [r.title, r.settled])).toEqual([['true 1 function true 2 0 /from-sse-named', true]]);
  });

  it('a WebSocket that never says anything is waited for up to the settle cap only: settled false, no error', async () => {
    const { records } = await crawlFrom('/ws-silent', { maxDepth: 0, settleTimeoutMs: 2000 });
    expect(records).toHaveLength(1);
    const rec = records[0]!;
    expect(rec).toMatchObject({ status: 200, settled: false, error: null, title: 'Silent socket', links: [] });
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(2000);
    expect(site.log.filter((l) => l.kind === 'websocket' && l.target === '/socket-silent').length).toBeGreaterThanOrEqual(1);
  });
});

describe('an app that starts after a timeout', () => {
  const asked = (target: string): number => site.log.filter((l) => l.target === target).length;

  it('a page that has rendered nothing waits for its pending timeout (1.5 s, past the quiet window): its link is read, no empty root', async () => {
    const before = asked('/api/deferred');
    const { records } = await crawlFrom('/deferred');
    const rec = records.find((r) => pathOf(r.url) === '/deferred')!;
    // The header's link is outside the app root: the root showing nothing is what counts.
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title: 'Deferred start', links: [`${site.origin}/from-header`, `${site.origin}/from-deferred`] });
    expect(rec.spa.emptyRoot).toBeNull();
    expect(sorted(pagesOf(records).map((r) => pathOf(r.url)))).toEqual(['/deferred', '/from-deferred', '/from-header']);
    // The app's call was made once, after its timeout, and the page read well before the 10 s cap.
    expect(asked('/api/deferred') - before).toBe(1);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(1500);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeLessThan(10_000);
  });

  it('one whose timeout comes after the settle cap is read at the cap, as it is: settled false, the root empty, its call never made', async () => {
    const { records } = await crawlFrom('/deferred-late', { maxDepth: 0, settleTimeoutMs: 2000 });
    expect(pagesOf(records).map((r) => pathOf(r.url))).toEqual(['/deferred-late']);
    const rec = records.find((r) => pathOf(r.url) === '/deferred-late')!;
    expect(rec).toMatchObject({ status: 200, settled: false, error: null, title: 'Deferred start', links: [`${site.origin}/from-header`] });
    expect(rec.spa.emptyRoot).toBe('#root');
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(2000);
    // The page is paused once read: its timeout (4.5 s) never runs.
    await new Promise((r) => setTimeout(r, 3000));
    expect(asked('/api/deferred-late')).toBe(0);
  });

  it('one that polls with setInterval until its start (1.5 s) is waited for the same way: its link is read, no empty root', async () => {
    const { records } = await crawlFrom('/deferred-poll');
    const rec = records.find((r) => pathOf(r.url) === '/deferred-poll')!;
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title: 'Polled start', links: [`${site.origin}/from-header`, `${site.origin}/from-deferred`] });
    expect(rec.spa.emptyRoot).toBeNull();
    expect(asked('/api/deferred-poll')).toBe(1);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(1500);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeLessThan(10_000);
  });

  it('one that shows a loading placeholder (a spinner and "Loading…") until its poll starts it is waited for too: its link is read', async () => {
    const { records } = await crawlFrom('/deferred-loading');
    const rec = records.find((r) => pathOf(r.url) === '/deferred-loading')!;
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title: 'Polled start', links: [`${site.origin}/from-header`, `${site.origin}/from-deferred`] });
    expect(asked('/api/deferred-loading')).toBe(1);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(1500);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeLessThan(10_000);
  });

  it('a started page with little to show and an endless interval that changes nothing is not held for it: settled, well before the cap', async () => {
    const { records } = await crawlFrom('/heartbeat', { maxDepth: 0, settleTimeoutMs: 10_000 });
    const rec = records.find((r) => pathOf(r.url) === '/heartbeat')!;
    expect(rec).toMatchObject({ status: 200, settled: true, error: null, title: 'Heartbeat', links: [`${site.origin}/from-header`] });
    expect(rec.spa.emptyRoot).toBeNull();
    // Read by its quiet window (500 ms), not held to the 10 s cap as a page that has not started.
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeLessThan(5_000);
  });

  it('one whose interval never renders anything is read at the settle cap: settled false, the root empty', async () => {
    const { records } = await crawlFrom('/poll-forever', { maxDepth: 0, settleTimeoutMs: 2000 });
    const rec = records.find((r) => pathOf(r.url) === '/poll-forever')!;
    expect(rec).toMatchObject({ status: 200, settled: false, error: null, title: 'Polls for ever', links: [`${site.origin}/from-header`] });
    expect(rec.spa.emptyRoot).toBe('#root');
    expect(rec.spa.busy).toEqual([]);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(2000);
  });

  it('one whose root says "Loading…" for ever is read at the cap with the placeholder as its busy indicator (stuck-loading), not as empty', async () => {
    const { records } = await crawlFrom('/loading-forever', { maxDepth: 0, settleTimeoutMs: 2000 });
    const rec = records.find((r) => pathOf(r.url) === '/loading-forever')!;
    expect(rec).toMatchObject({ status: 200, settled: false, error: null, links: [`${site.origin}/from-header`] });
    expect(rec.spa.emptyRoot).toBeNull();
    expect(rec.spa.busy).toEqual(['placeholder #root']);
    expect(rec.timings.settledMs!, JSON.stringify(rec.timings)).toBeGreaterThanOrEqual(2000);
  });
});
