/**
 * The audit of issue 17 through the crawl and the command line: the options reach every visit
 * (the audit site gives exactly its planted findings), pages measured alone never load while
 * another page loads (counted on the server), the mobile throttling applies, the summary says
 * when vitals were measured under contention, and the flags are checked before anything is
 * crawled. One browser for the file (the crawls share it); the command-line cases exit before
 * launching one.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { MENU_STATE, startAuditSite } from '../fixtures/sites/audit.js';
import { launchBrowser } from '../src/browser/launch.js';
import { finishReports, planReports, type ReportingOptions } from '../src/cli/reporting.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import { isPage, type PageRecord } from '../src/model/record.js';
import { audit } from '../src/report/audit.js';
import { parseBudget } from '../src/report/budget.js';
import { SummaryCounter } from '../src/report/summary.js';

const BIN = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'), 'bin', 'run.js');

let browser: Browser;
let auditSite: FixtureServer;
/** Six pages whose documents take 300 ms: crawled four at a time, they overlap unless measured alone. */
let slowSite: FixtureServer;

beforeAll(async () => {
  browser = (await launchBrowser()).browser;
  auditSite = await startAuditSite();
  slowSite = await startFixtureServer((_req, url) => {
    if (url.pathname === '/') return { body: html('Slow', [1, 2, 3, 4, 5, 6].map((i) => `<a href="/p${i}">P${i}</a>`).join(' ')), delayMs: 300 };
    // Each page shows the round-trip time the browser believes in (navigator.connection.rtt) in its title.
    if (/^\/p\d$/.test(url.pathname)) return { body: html('', `<p>A page.</p><script>document.title = 'rtt ' + navigator.connection.rtt</script>`), delayMs: 300 };
    return { status: 404, body: html('Not found', '') };
  });
});

afterAll(async () => {
  await auditSite?.close();
  await slowSite?.close();
  await browser?.close();
});

/** Crawl with `opts` (sharing the file's browser); the records and the summary's notes. */
async function crawlWith(opts: CrawlOptions): Promise<{ records: PageRecord[]; notes: string[] }> {
  const crawler = new Crawler({ browser, soft404: false, ...opts });
  const records: PageRecord[] = [];
  for await (const r of crawler.records()) records.push(r);
  return { records, notes: crawler.result().notes };
}

const path_ = (url: string): string => new URL(url).pathname;

describe('the audit through the crawl', () => {
  it('the audit site gives exactly its planted findings; --fail-on takes the new rules', async () => {
    const { records, notes } = await crawlWith({ seeds: [`${auditSite.origin}/`], concurrency: 4, settleTimeoutMs: 2_500, click: 'all', a11y: true, vitals: true });
    const pages = records.filter(isPage);
    expect(pages).toHaveLength(17);
    const budget = parseBudget('bytes=150KB,cls=0.1,tbt=100');
    const issues = audit(records, { budget }).issues.filter((i) => /^(a11y-|budget|unrendered|hydration|stuck|empty|js-only)/.test(i.rule));
    expect(issues.map((i) => `${i.rule} ${path_(i.url)}`).sort()).toEqual(
      [
        'a11y-critical /a11y/bad',
        'a11y-serious /a11y/bad',
        'a11y-moderate /a11y/bad',
        'a11y-minor /a11y/bad',
        'a11y-critical /a11y/menu',
        'a11y-critical /a11y/menu',
        'budget /vitals/heavy',
        'unrendered-template /spa/template',
        'hydration-error /spa/hydration',
        'stuck-loading /spa/stuck',
        'empty-render /spa/empty',
        'js-only-title /bots/spa',
        'js-only-links /bots/spa',
        'js-only-content /bots/spa',
      ].sort(),
    );
    expect(pages.find((r) => path_(r.url) === '/a11y/menu')!.a11y!.states).toEqual([MENU_STATE]);
    expect(notes.some((n) => /^vitals were measured with up to 4 pages in flight on \d+ CPU cores?: .*--vitals-concurrency 1 measures each page alone/.test(n))).toBe(true);
    // --fail-on accepts every new rule, and fails on them.
    const reporting: ReportingOptions = { reports: [], outputDir: null, failOn: ['a11y-critical', 'budget'], failOnWarnings: false, ignore: [], slowMs: 3000, json: false, screenshotsDir: null, budget };
    const plan = planReports(reporting);
    const counter = new SummaryCounter();
    for (const r of records) counter.add(r);
    const outcome = finishReports(records, counter.snapshot(0, 'done'), reporting, plan, () => {});
    expect(outcome.failing.map((i) => `${i.rule} ${path_(i.url)}`).sort()).toEqual(['a11y-critical /a11y/bad', 'a11y-critical /a11y/menu', 'a11y-critical /a11y/menu', 'budget /vitals/heavy']);
  });

  it('--vitals-concurrency 1: no page loads while another is measured; --vitals-throttle mobile applies', async () => {
    slowSite.reset();
    const { records, notes } = await crawlWith({ seeds: [`${slowSite.origin}/`], concurrency: 4, vitals: true, vitalsConcurrency: 1, vitalsThrottle: 'mobile' });
    const pages = records.filter(isPage);
    expect(pages.map((r) => path_(r.url)).sort()).toEqual(['/', '/p1', '/p2', '/p3', '/p4', '/p5', '/p6']);
    expect(slowSite.documents()).toHaveLength(7);
    expect(slowSite.peakDocumentsInFlight()).toBe(1);
    for (const r of pages) expect({ alone: r.vitals!.alone, throttle: r.vitals!.throttle }).toEqual({ alone: true, throttle: 'mobile' });
    // The pages ran under Lighthouse's request latency (562.5 ms; the browser reports it rounded to 25 ms).
    const rtts = pages.filter((r) => r.title?.startsWith('rtt ')).map((r) => Number(r.title!.slice(4)));
    expect(rtts).toHaveLength(6);
    for (const rtt of rtts) expect(rtt).toBeGreaterThanOrEqual(550);
    expect(notes.filter((n) => n.startsWith('vitals'))).toEqual([]);
  });

  it('without the gate the same crawl loads pages side by side, and says the vitals are not alone', async () => {
    slowSite.reset();
    const { records } = await crawlWith({ seeds: [`${slowSite.origin}/`], concurrency: 4, vitals: true });
    expect(slowSite.peakDocumentsInFlight()).toBeGreaterThan(1);
    for (const r of records.filter(isPage)) expect({ alone: r.vitals!.alone, throttle: r.vitals!.throttle }).toEqual({ alone: false, throttle: 'none' });
    const rtts = records.filter((r) => r.title?.startsWith('rtt ')).map((r) => Number(r.title!.slice(4)));
    expect(rtts).toHaveLength(6);
    for (const rtt of rtts) expect(rtt).toBeLessThan(550);
  });
});

describe('the flags', () => {
  const usage = (args: string[]): { code: number | null; stderr: string } => {
    const r = spawnSync(process.execPath, [BIN, 'crawl', 'http://127.0.0.1:9/', ...args], { encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, stderr: r.stderr.trim() };
  };

  it('are checked before anything is crawled (exit 2, one line)', () => {
    const cases: [string[], RegExp][] = [
      [['--budget', 'lcp=2500'], /--budget needs --vitals/],
      [['--vitals', '--budget', 'lcp=fast'], /--budget: expected metric=value/],
      [['--vitals-concurrency', '1'], /^Error: --vitals-concurrency needs --vitals$|--vitals-concurrency needs --vitals/],
      [['--vitals-throttle', 'mobile'], /--vitals-throttle needs --vitals/],
      [['--a11y', '--a11y-tags', 'wcag2a,<bad>'], /a11y-tags must be axe-core tag names/],
      [['--fail-on', 'a11y-critical,nope'], /unknown --fail-on rule "nope"/],
    ];
    for (const [args, message] of cases) {
      const r = usage(args);
      expect({ args, code: r.code, lines: r.stderr.split('\n').length }).toEqual({ args, code: 2, lines: 1 });
      expect(r.stderr).toMatch(message);
    }
  });
});
