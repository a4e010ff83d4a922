// --metrics (issue 19, point 7) at the library level: a crawl behind a login whose session
// expires, scraped over HTTP while it runs; at the end its counters match the summary.
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOGIN_PASSWORD, LOGIN_USER, startLoginApp } from '../fixtures/sites/login-app.js';
import { Crawler, SummaryCounter, type PageRecord } from '../src/index.js';
import { sharedBrowser } from './helpers/browser.js';
import { CrawlMetrics, parseMetricsAddress } from '../src/report/metrics.js';

const RECIPE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/login/form-login.mjs');
let browser: Browser;

beforeAll(async () => {
  browser = await sharedBrowser();
}, 60_000);
afterAll(async () => {
});

/** `name{labels} value` lines of an exposition, as `name{labels}` → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

describe('--metrics', () => {
  it('parses addresses: PORT alone binds 127.0.0.1', () => {
    expect(parseMetricsAddress('9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseMetricsAddress('0.0.0.0:9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    expect(parseMetricsAddress('localhost:99999')).toBeNull();
    expect(parseMetricsAddress('http://x:1')).toBeNull();
  });

  it('scraped during a crawl whose session expires; at the end the counters match the summary', async () => {
    const app = await startLoginApp({ expireAfterRequests: 4 });
    let crawler: Crawler | null = null;
    const metrics = new CrawlMetrics({ counts: async () => (crawler ? crawler.frontierCounts() : null), labels: { crawl_id: 'test', worker_id: 'w1' } });
    const url = await metrics.listen({ host: '127.0.0.1', port: 0 });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      crawler = new Crawler({
        seeds: [`${app.origin}/`],
        browser,
        soft404: false,
        concurrency: 2,
        login: RECIPE,
        loginEnv: { APP_USER: LOGIN_USER, APP_PASSWORD: LOGIN_PASSWORD },
        onEvent: (e) => metrics.observe(e),
      });
      const counter = new SummaryCounter();
      const scrapes: string[] = [];
      const records: PageRecord[] = [];
      for await (const r of crawler.records()) {
        records.push(r);
        counter.add(r);
        if (records.length === 3) {
          const res = await fetch(url);
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
          scrapes.push(await res.text());
        }
      }
      const during = samples(scrapes[0]!);
      expect(during.get('spacrawl_frontier_urls{state="done",crawl_id="test",worker_id="w1"}')).toBeGreaterThanOrEqual(1);
      expect(during.get('spacrawl_logins_total{kind="first",result="ok",crawl_id="test",worker_id="w1"}')).toBe(1);
      const s = counter.snapshot(0, 'done', new Set(), [], []);
      const end = samples(await (await fetch(url)).text());
      const v = (name: string): number => end.get(name.replace('}', ',crawl_id="test",worker_id="w1"}')) ?? 0;
      const logins = crawler.result().logins!;
      expect(v('spacrawl_pages_total{outcome="ok"}')).toBe(s.ok);
      expect(v('spacrawl_pages_total{outcome="redirect"}')).toBe(s.redirects);
      expect(v('spacrawl_pages_total{outcome="skipped"}')).toBe(Object.values(s.skipped).reduce((a, b) => a + b, 0));
      expect(v('spacrawl_skipped_total{reason="logout"}')).toBe(s.skipped.logout);
      expect(v('spacrawl_logins_total{kind="relogin",result="ok"}')).toBe(logins.relogins);
      expect(logins.relogins).toBe(app.expiries());
      expect(app.expiries()).toBeGreaterThanOrEqual(1);
      expect(end.get('spacrawl_logged_out_visits_total{crawl_id="test",worker_id="w1"}')).toBe(logins.loggedOutVisits);
      expect(end.get('spacrawl_retries_total{reason="logged out",crawl_id="test",worker_id="w1"}') ?? 0).toBeGreaterThanOrEqual(logins.relogins);
      expect([...end.keys()].every((k) => k.startsWith('spacrawl_'))).toBe(true);
    } finally {
      await metrics.close();
      await app.close();
    }
  }, 180_000);
});

describe('--metrics-linger (CLI)', () => {
  it('after the end the endpoint serves the final values (crawl_running 0, every page counted) until the linger ends or a signal comes', async () => {
    const { spawn } = await import('node:child_process');
    const { startPagedSite } = await import('../fixtures/sites/paged.js');
    const { assertBuilt, BIN } = await import('./helpers/cli.js');
    assertBuilt();
    const site = await startPagedSite(7, 20);
    try {
      const run = (linger: string[]): { child: ReturnType<typeof spawn>; stderr: () => string; exit: Promise<number | null> } => {
        const child = spawn(process.execPath, [BIN, 'crawl', `${site.origin}/`, '--no-soft404', '--click', 'off', '--no-progress', '--metrics', '127.0.0.1:0', ...linger], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        return { child, stderr: () => err, exit: new Promise((r) => child.on('close', (code) => r(code))) };
      };
      const until = async (cond: () => boolean): Promise<void> => {
        const end = Date.now() + 90_000;
        while (!cond()) {
          if (Date.now() > end) throw new Error('timed out waiting');
          await new Promise((r) => setTimeout(r, 20));
        }
      };

      const lingering = run(['--metrics-linger', '120']);
      await until(() => /serving the final values/.test(lingering.stderr()));
      const url = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(lingering.stderr())![1]!;
      expect(lingering.stderr()).toContain(`metrics: serving the final values at ${url} for 120 s`);
      const m = samples(await (await fetch(url)).text());
      expect(m.get('spacrawl_crawl_running')).toBe(0);
      expect(m.get('spacrawl_pages_total{outcome="ok"}')).toBe(7);
      expect(m.get('spacrawl_frontier_urls{state="done"}')).toBe(7);
      expect(m.get('spacrawl_frontier_urls{state="queued"}')).toBe(0);
      expect(m.get('spacrawl_frontier_urls{state="in_flight"}')).toBe(0);
      expect(lingering.child.exitCode).toBeNull(); // still serving
      const t0 = Date.now();
      lingering.child.kill('SIGINT');
      expect(await lingering.exit).toBe(0); // the crawl's own exit code: the signal only ended the wait
      expect(Date.now() - t0).toBeLessThan(60_000);
      await expect(fetch(url)).rejects.toThrow();

      // Without --metrics-linger the endpoint closes with the crawl, as before.
      const plain = run([]);
      expect(await plain.exit).toBe(0);
      expect(plain.stderr()).not.toContain('serving the final values');
    } finally {
      await site.close();
    }
  });
});
