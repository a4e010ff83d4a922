/**
 * The audit of issue 17 through the crawl and the command line: the options reach every visit
 * (the audit site gives exactly its planted findings), pages measured alone never load while
 * another page loads (counted on the server), the mobile throttling applies, the summary says
 * when vitals were measured under contention, and the flags are checked before anything is
 * crawled. One browser for the file (the crawls share it); the command-line cases exit before
 * launching one.
 */
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html, startFixtureServer, type FixtureServer } from '../fixtures/server.js';
import { HEAVY_TBT_LIMIT_MS, MENU_STATE, PLANTED_FINDINGS, startAuditSite } from '../fixtures/sites/audit.js';
import { sharedBrowser } from './helpers/browser.js';
import { runInProcess } from './helpers/cli.js';
import { planReports, type ReportingOptions } from '../src/cli/report-plan.js';
import { Crawler } from '../src/crawl/crawler.js';
import type { CrawlOptions } from '../src/crawl/options.js';
import { isPage, type PageRecord } from '../src/model/record.js';
import { audit, failingIssues } from '../src/report/audit.js';
import { parseBudget } from '../src/report/budget.js';
import { SummaryCounter } from '../src/report/summary.js';
import { auditView } from '../src/report/audit-view.js';
import { renderHtml } from '../src/report/formats/html.js';
import { renderMarkdown } from '../src/report/formats/markdown.js';


let browser: Browser;
let auditSite: FixtureServer;
/** Six pages whose documents take 300 ms: crawled four at a time, they overlap unless measured alone. */
let slowSite: FixtureServer;

beforeAll(async () => {
  browser = await sharedBrowser();
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
    const budget = parseBudget(`bytes=150KB,cls=0.1,tbt=${HEAVY_TBT_LIMIT_MS}`);
    const issues = audit(records, { budget }).issues.filter((i) => /^(a11y-|budget|unrendered|hydration|stuck|empty|js-only)/.test(i.rule));
    expect(issues.map((i) => `${i.rule} ${path_(i.url)}`).sort()).toEqual(PLANTED_FINDINGS);
    expect(pages.find((r) => path_(r.url) === '/a11y/menu')!.a11y!.states).toEqual([MENU_STATE]);
    expect(notes.some((n) => /^vitals were measured with up to 4 pages in flight on \d+ CPU cores?: .*--vitals-concurrency 1 measures each page alone/.test(n))).toBe(true);
    // --fail-on accepts every new rule, and fails on them.
    const reporting: ReportingOptions = { reports: [], outputDir: null, failOn: ['a11y-critical', 'budget'], failOnWarnings: false, ignore: [], slowMs: 3000, json: false, screenshotsDir: null, budget };
    planReports(reporting);
    const counter = new SummaryCounter();
    for (const r of records) counter.add(r);
    const failing = failingIssues(audit(records, { budget: reporting.budget ?? null }), reporting.failOn);
    expect(failing.map((i) => `${i.rule} ${path_(i.url)}`).sort()).toEqual(['a11y-critical /a11y/bad', 'a11y-critical /a11y/menu', 'a11y-critical /a11y/menu', 'budget /vitals/heavy']);

    // The reports' view: a11y grouped by axe rule across pages, each vital's worst pages first
    // with the budget, the server's HTML next to the rendered page, worst first.
    const view = auditView(records, budget);
    expect(view.a11y.map((g) => [g.rule, g.impact, g.pages.map((p) => [path_(p.url), p.nodes, p.states]), g.nodes])).toEqual([
      ['image-alt', 'critical', [['/a11y/bad', 2, []], ['/a11y/menu', 1, [MENU_STATE]]], 3],
      ['label', 'critical', [['/a11y/menu', 1, [MENU_STATE]]], 1],
      ['color-contrast', 'serious', [['/a11y/bad', 1, []]], 1],
      ['html-xml-lang-mismatch', 'moderate', [['/a11y/bad', 1, []]], 1],
      ['aria-deprecated-role', 'minor', [['/a11y/bad', 1, []]], 1],
    ]);
    expect(view.a11yPages).toBe(17);
    expect(view.vitalsPages).toEqual({ measured: 17, alone: 0, throttled: 0 });
    const byMetric = new Map(view.vitals.map((v) => [v.metric, v]));
    for (const m of ['bytes', 'cls', 'tbt'] as const) {
      const v = byMetric.get(m)!;
      expect([m, v.limit, v.over, path_(v.pages[0]!.url), v.pages[0]!.overLimit]).toEqual([m, budget[m], 1, '/vitals/heavy', budget[m]]);
      expect(v.pages.length).toBe(10);
      for (let i = 1; i < v.pages.length; i++) expect(v.pages[i]!.value).toBeLessThanOrEqual(v.pages[i - 1]!.value);
    }
    expect(byMetric.get('lcp')!.limit).toBeNull();
    expect({ pages: view.bots.pages, jsOnlyLinkPages: view.bots.jsOnlyLinkPages, noServerTitle: view.bots.noServerTitle }).toEqual({ pages: 17, jsOnlyLinkPages: 1, noServerTitle: 1 });
    expect(view.bots.worst[0]).toMatchObject({ serverTitle: false, serverLinks: 0, renderedLinks: 3, jsOnlyLinks: 3, serverText: 0 });
    expect(path_(view.bots.worst[0]!.url)).toBe('/bots/spa');

    const summary = counter.snapshot(0, 'done');
    const input = { records, summary: { ...summary, notes }, audit: audit(records, { budget }), failOn: ['a11y-critical'], screenshotsDir: null, budget };
    const html = renderHtml(input, null);
    expect([...html.matchAll(/data-a11y-rule="([^"]+)" data-impact="(\w+)" data-pages="(\d+)" data-nodes="(\d+)"/g)].map((m) => m.slice(1).join(' '))).toEqual([
      'image-alt critical 2 3',
      'label critical 1 1',
      'color-contrast serious 1 1',
      'html-xml-lang-mismatch moderate 1 1',
      'aria-deprecated-role minor 1 1',
    ]);
    expect(html).toContain(`<li class="state">${MENU_STATE.replace(/"/g, '&quot;')}</li>`);
    expect([...html.matchAll(/data-metric="(\w+)" data-over="(\d+)"/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual(['lcp 0', 'cls 1', 'tbt 1', 'fcp 0', 'ttfb 0', 'bytes 1', 'requests 0']);
    expect(html).toMatch(/id="vitals-conditions">17 pages measured; pages measured while other pages of the crawl loaded on the same CPU cores/);
    expect(html).toMatch(/<section id="bots">.*<td class="num" data-v="3">0 \/ 3<\/td>/s);
    expect(html).toContain(notes.find((n) => n.startsWith('vitals were measured'))!.replace(/'/g, '&#39;'));
    const md = renderMarkdown(input);
    expect(md).toContain('- `image-alt` (critical) on 2 pages, 3 elements');
    expect(md).toMatch(/\| bytes \| 150 KB \| 1 \| \[[^\]]*\/vitals\/heavy\]/);
    expect(md).toContain('### What clients without JavaScript see');
  });

  it('--vitals-concurrency 1: no page loads while another is measured; --vitals-throttle mobile applies', async () => {
    slowSite.reset();
    const { records, notes } = await crawlWith({ seeds: [`${slowSite.origin}/`], concurrency: 4, vitals: true, vitalsConcurrency: 1, vitalsThrottle: 'mobile' });
    const pages = records.filter(isPage);
    expect(pages.map((r) => path_(r.url)).sort()).toEqual(['/', '/p1', '/p2', '/p3', '/p4', '/p5', '/p6']);
    expect(slowSite.documents()).toHaveLength(7);
    expect(slowSite.peakDocumentsInFlight()).toBe(1);
    for (const r of pages) expect({ alone: r.vitals!.alone, throttle: r.vitals!.throttle }).toEqual({ alone: true, throttle: 'mobile' });
    // The pages ran under Lighthouse's request latency (562.5 ms; the browser reports it rounded to 25 ms,
    // with up to 10 % noise: Chromium's network-quality privacy noise).
    const rtts = pages.filter((r) => r.title?.startsWith('rtt ')).map((r) => Number(r.title!.slice(4)));
    expect(rtts).toHaveLength(6);
    for (const rtt of rtts) expect(rtt).toBeGreaterThanOrEqual(450);
    expect(notes.filter((n) => n.startsWith('vitals'))).toEqual([]);
  });

  it('without the gate the same crawl loads pages side by side, and says the vitals are not alone', async () => {
    slowSite.reset();
    const { records } = await crawlWith({ seeds: [`${slowSite.origin}/`], concurrency: 4, vitals: true });
    expect(slowSite.peakDocumentsInFlight()).toBeGreaterThan(1);
    for (const r of records.filter(isPage)) expect({ alone: r.vitals!.alone, throttle: r.vitals!.throttle }).toEqual({ alone: false, throttle: 'none' });
    const rtts = records.filter((r) => r.title?.startsWith('rtt ')).map((r) => Number(r.title!.slice(4)));
    expect(rtts).toHaveLength(6);
    for (const rtt of rtts) expect(rtt).toBeLessThan(450);
  });
});

describe('the flags', () => {
  const usage = async (args: string[]): Promise<{ code: number | null; stderr: string }> => {
    const r = await runInProcess(['crawl', 'http://127.0.0.1:9/', ...args]);
    return { code: r.code, stderr: r.stderr.trim() };
  };

  it('are checked before anything is crawled (exit 2, one line)', async () => {
    const cases: [string[], RegExp][] = [
      [['--budget', 'lcp=2500'], /--budget needs --vitals/],
      [['--vitals', '--budget', 'lcp=fast'], /--budget: expected metric=value/],
      [['--vitals-concurrency', '1'], /^Error: --vitals-concurrency needs --vitals$|--vitals-concurrency needs --vitals/],
      [['--vitals-throttle', 'mobile'], /--vitals-throttle needs --vitals/],
      [['--a11y', '--a11y-tags', 'wcag2a,<bad>'], /a11y-tags must be axe-core tag names/],
      [['--fail-on', 'a11y-critical,nope'], /unknown --fail-on rule "nope"/],
    ];
    for (const [args, message] of cases) {
      const r = await usage(args);
      expect({ args, code: r.code, lines: r.stderr.split('\n').length }).toEqual({ args, code: 2, lines: 1 });
      expect(r.stderr).toMatch(message);
    }
  });
});
