import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVersionedSite, type SiteVersion, type VersionedSite } from '../../fixtures/sites/versions.js';
import type { DiffReport } from '../../src/diff/types.js';
import { runCli, type Run } from './cli-run.js';
import { pathOf } from './helpers.js';

let site: VersionedSite;
let tmp: string;
/** The crawls: A, A again and B against A's baseline, B again against B's. */
const runs: Record<string, Run> = {};

/** The flags of every crawl here: one page at a time, the fixture's unstable parts hidden or masked, `.ad` masked. */
const SHOT_FLAGS = ['--concurrency', '1', '--no-progress', '--hide', '.cookie-banner', '--visual-mask', '.served-at', '--visual-mask', '.ad'];
/** No timing change counts: two crawls of a local site on a busy machine may differ by seconds. */
const NO_TIMINGS = ['--threshold-ms', '3600000'];

/** Crawl one version with `--output-dir <dir>` (report folder with screenshots/). */
async function crawlVersion(v: SiteVersion, dir: string, extra: string[] = []): Promise<Run> {
  site.setVersion(v);
  return runCli(['crawl', `${site.server.origin}/`, '--output-dir', dir, ...SHOT_FLAGS, ...extra], tmp);
}

async function diffJson(a: string, b: string, extra: string[] = []): Promise<{ run: Run; report: DiffReport }> {
  const run = await runCli(['diff', a, b, '--json', ...NO_TIMINGS, ...extra], tmp);
  return { run, report: JSON.parse(run.stdout) as DiffReport };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-visual-'));
  site = await startVersionedSite();
  runs.a = await crawlVersion('A', 'a');
  runs.a2 = await crawlVersion('A', 'a2', ['--baseline', 'a', '--fail-on', 'new']);
  runs.b = await crawlVersion('B', 'b', ['--baseline', 'a', '--fail-on', 'new', '--log-format', 'json']);
  runs.b2 = await crawlVersion('B', 'b2', ['--baseline', 'b/pages.jsonl', '--fail-on', 'broken-link,new:visual-change']);
  runs.a11y = await crawlVersion('A', 'a11y', ['--a11y', '--baseline', 'a', '--fail-on', 'new']);
}, 300_000);

afterAll(async () => {
  await site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('visual diff of two crawls with screenshots', () => {
  it('A → A again: every page compared, no visual change, nothing at all changed, exit 0 even under --fail-on visual-change', async () => {
    const { run, report } = await diffJson('a', 'a2', ['--fail-on', 'visual-change']);
    expect(run.code).toBe(0);
    expect(report.visual).toMatchObject({ threshold: 0.001, compared: 7, missing: 0, changes: [] });
    expect(report.findings.new).toEqual([]);
    expect(run.stderr).toContain('\nno changes\n');
  }, 60_000);

  it('A → B: /docs/a (the red box), /guide (now a 404) and /promo (now a soft 404) changed; the masked ad and the animations do not count; a diff image and a visual-change finding each', async () => {
    const { run, report } = await diffJson('a', 'b', ['--fail-on', 'visual-change', '--visual-dir', 'vd']);
    expect(run.code).toBe(1);
    expect(report.visual!.changes.map((c) => pathOf(c.url)).sort()).toEqual(['/docs/a', '/guide', '/promo']);
    const c = report.visual!.changes.find((x) => pathOf(x.url) === '/docs/a')!;
    // The box is 300 × 120 CSS pixels: grey → red.
    expect(c.changedPixels).toBe(300 * 120);
    expect(c.diff).toBe(path.join(tmp, 'vd', path.basename(c.new)));
    expect(fs.existsSync(c.diff!)).toBe(true);
    for (const x of report.visual!.changes) expect(fs.existsSync(x.diff!)).toBe(true);
    expect(report.findings.new.filter((f) => f.rule === 'visual-change' && pathOf(f.url) === '/docs/a').map((f) => [pathOf(f.url), f.message])).toEqual([
      ['/docs/a', `${((300 * 120 * 100) / (c.width * c.height)).toFixed(2)} % of pixels changed (36,000 of ${(c.width * c.height).toLocaleString('en-US')})`],
    ]);
  }, 60_000);

  it('--visual-threshold above the change: no visual change; the HTML report shows before, after and difference of a changed page', async () => {
    expect((await diffJson('a', 'b', ['--visual-threshold', '50'])).report.visual!.changes).toEqual([]);
    fs.mkdirSync(path.join(tmp, 'out'));
    const r = await runCli(['diff', 'a', 'b', ...NO_TIMINGS, '--report', 'html:out/diff.html'], tmp);
    expect(r.stderr).not.toContain('spacrawl:');
    expect(r.code).toBe(1); // the broken link, under the default --fail-on
    const html = fs.readFileSync(path.join(tmp, 'out', 'diff.html'), 'utf8');
    const srcs = [...html.matchAll(/<img src="([^"]+)"/g)].map((m) => decodeURIComponent(m[1]!));
    const folders = srcs.map((s) => s.split('/').slice(0, -1).join('/'));
    expect(folders).toEqual(['../a/screenshots', '../b/screenshots', 'visual-diff', '../a/screenshots', '../b/screenshots', 'visual-diff', '../a/screenshots', '../b/screenshots', 'visual-diff']);
    for (const s of srcs) expect(fs.existsSync(path.join(tmp, 'out', s))).toBe(true);
  }, 60_000);
});

describe('a baseline that is a copy of an earlier --output-dir', () => {
  it('`cp -r ci ci-base`, then B crawled into ci: the copy\'s own screenshots are compared, not ci/screenshots its report.json names', async () => {
    // The CI pattern: keep the last report folder as the baseline, crawl again into the same folder.
    await crawlVersion('A', 'ci');
    fs.cpSync(path.join(tmp, 'ci'), path.join(tmp, 'ci-base'), { recursive: true });
    await crawlVersion('B', 'ci');
    const { report } = await diffJson('ci-base', 'ci');
    const base = path.join(tmp, 'ci-base', 'screenshots');
    expect(report.visual!.changes.map((c) => [pathOf(c.url), path.dirname(c.old)]).sort()).toEqual([
      ['/docs/a', base],
      ['/guide', base],
      ['/promo', base],
    ]);
    expect(report.visual).toMatchObject({ compared: 6, missing: 0 });
    // A copy without its screenshots/ is never compared through the other folder: a notice says so.
    fs.cpSync(path.join(tmp, 'ci-base', 'pages.jsonl'), path.join(tmp, 'ci-bare', 'pages.jsonl'));
    fs.cpSync(path.join(tmp, 'ci-base', 'report.json'), path.join(tmp, 'ci-bare', 'report.json'));
    const bare = (await diffJson('ci-bare', 'ci')).report;
    expect([bare.visual, bare.notices]).toEqual([
      { threshold: 0.001, compared: 0, missing: 6, changes: [] },
      [`screenshots not compared: the records name them, but the screenshots folder of OLD (ci-bare, --old-screenshots) was not found next to the records: give it with that flag (6 screenshots not compared)`],
    ]);
  }, 180_000);
});

describe('crawl --baseline', () => {
  it('A against A: no new finding, no visual change, exit 0 under --fail-on new; the diff reports are in --output-dir', () => {
    expect(runs.a2!.code).toBe(0);
    expect(runs.a2!.stderr).toContain('\nbaseline: a (7 pages) → this crawl (7 pages)\n0 new findings\n0 fixed findings, 1 unchanged\n');
    // Timings may change on a busy machine (they never fail): everything else is unchanged.
    expect(runs.a2!.stderr).toMatch(/\nchanges: 0 pages added, 0 pages removed, 0 status changes, 0 title changes, 0 redirect changes, 0 new soft 404s, 0 pages that lost links, \d+ timing changes?, 0 visual changes\n/);
    expect(runs.a2!.stderr).toContain('\npasses under --fail-on new: no new finding of those rules\n');
    const d = JSON.parse(fs.readFileSync(path.join(tmp, 'a2', 'diff.json'), 'utf8')) as DiffReport;
    expect([d.findings.new.length, d.findings.unchanged.length, d.visual!.compared, d.visual!.changes.length]).toEqual([0, 1, 7, 0]);
    expect(fs.readFileSync(path.join(tmp, 'a2', 'diff.md'), 'utf8')).toContain('**✅ Passes** under `--fail-on new`');
  });

  it('B against A: exit 1 under --fail-on new; new findings (the broken link, the visual changes) marked new in the HTML report, the known one known', () => {
    expect(runs.b!.code).toBe(1);
    const d = JSON.parse(fs.readFileSync(path.join(tmp, 'b', 'diff.json'), 'utf8')) as DiffReport;
    expect(d.findings.new.map((f) => `${f.rule} ${pathOf(f.url)}`).sort()).toEqual([
      'broken-link /guide',
      'broken-link /promo',
      'visual-change /docs/a',
      'visual-change /guide',
      'visual-change /promo',
    ]);
    expect(d.failing).toBe(5);
    const html = fs.readFileSync(path.join(tmp, 'b', 'index.html'), 'utf8');
    const tagOf = (url: string): string | undefined => new RegExp(`<li class="issue" data-url="${url.replace(/[/.]/g, '\\$&')}">[^]*?<span class="tag (new|known)"`).exec(html)?.[1];
    expect(tagOf(`${site.server.origin}/guide`)).toBe('new');
    expect(tagOf(`${site.server.origin}/docs/b`)).toBe('known');
    expect(fs.readdirSync(path.join(tmp, 'b', 'visual-diff')).length).toBe(3);
    // junit.xml fails on the new findings only: the known broken link of /docs/b is in system-out.
    const junit = fs.readFileSync(path.join(tmp, 'b', 'junit.xml'), 'utf8');
    const failures = [...junit.matchAll(/<failure type="([\w-]+)" message="([^"]*)"/g)].map((m) => m[1]);
    expect(failures.filter((t) => t === 'broken-link')).toHaveLength(2);
    expect(/<testcase[^>]*name="[^"]*\/docs\/b"[^>]*>(?:(?!<\/testcase>)[^])*<failure/.test(junit)).toBe(false);
  });

  it('--log-format json: one "baseline" event after the summary carries the verdict and the exit code', () => {
    const events = runs.b!.stderr.trim().split('\n').map((l) => JSON.parse(l) as { event: string } & Record<string, unknown>);
    expect(events.map((e) => e.event).slice(-2)).toEqual(['summary', 'baseline']);
    const { time: _t, ...verdict } = events.at(-1)!;
    expect(verdict).toEqual({ level: 'warn', event: 'baseline', baseline: 'a', new: 5, fixed: 0, unchanged: 1, notCompared: 0, visualChanges: 3, failOn: ['new'], failing: 5, exitCode: 1 });
  });

  it('B against B: its broken links are known and never fail, even under --fail-on broken-link; no visual change', () => {
    expect(runs.b2!.stderr).toContain('0 new findings\n');
    expect(runs.b2!.code).toBe(0);
    // Nothing fails, so junit.xml has no failure either (its broken links go to system-out).
    const junit = fs.readFileSync(path.join(tmp, 'b2', 'junit.xml'), 'utf8');
    expect([junit.includes('<failure'), /<testsuite [^>]*failures="0"/.test(junit)]).toEqual([false, true]);
    const d = JSON.parse(fs.readFileSync(path.join(tmp, 'b2', 'diff.json'), 'utf8')) as DiffReport;
    expect(d.visual!.changes).toEqual([]);
    expect(d.findings.unchanged.filter((f) => f.rule === 'broken-link').length).toBe(2);
  });

  it('A with --a11y against A without: the a11y findings are "not compared", never new, so --fail-on new passes; index.html tags them', () => {
    const d = JSON.parse(fs.readFileSync(path.join(tmp, 'a11y', 'diff.json'), 'utf8')) as DiffReport;
    const a11y = d.findings.notCompared.filter((f) => f.rule.startsWith('a11y-'));
    expect(a11y.length).toBeGreaterThan(0);
    expect(a11y.length).toBe(d.findings.notCompared.length);
    expect(d.checks.uncompared).toEqual([{ check: 'a11y', ranIn: 'new', findings: a11y.length }]);
    expect([d.findings.new, d.findings.fixed, d.failing]).toEqual([[], [], 0]);
    expect(runs.a11y!.code).toBe(0);
    expect(runs.a11y!.stderr).toContain(`\nnot compared: a11y check ran only in NEW (${a11y.length} finding${a11y.length === 1 ? '' : 's'} not compared)\n`);
    const html = fs.readFileSync(path.join(tmp, 'a11y', 'index.html'), 'utf8');
    expect(html.match(/>not compared<\/span>/g)?.length).toBeGreaterThan(0);
    expect(html).not.toContain('<span class="tag new"');
  });

  it('--fail-on new without --baseline, and a missing baseline, are usage errors (exit 2) before anything is crawled', async () => {
    const r1 = await runCli(['crawl', `${site.server.origin}/`, '--fail-on', 'new'], tmp);
    expect([r1.code, r1.stderr]).toEqual([2, 'spacrawl: --fail-on new: "new" needs --baseline (the crawl to compare with)\n']);
    const r2 = await runCli(['crawl', `${site.server.origin}/`, '--baseline', 'nowhere.jsonl'], tmp);
    expect([r2.code, r2.stderr]).toEqual([2, 'spacrawl: --baseline nowhere.jsonl: no such file or folder\n']);
    const r3 = await runCli(['crawl', `${site.server.origin}/`, '--baseline', 'a', '--output-dir', 'a'], tmp);
    expect([r3.code, r3.stderr]).toEqual([2, 'spacrawl: --baseline a is written by this crawl: copy the baseline elsewhere first\n']);
    // The folders the refused crawl made for its output are gone again; one that was there stays.
    fs.mkdirSync(path.join(tmp, 'kept'));
    const r4 = await runCli(['crawl', `${site.server.origin}/`, '--output-dir', 'refused/out', '--screenshots', 'refused/shots', '--baseline', 'nowhere.jsonl'], tmp);
    const r5 = await runCli(['crawl', `${site.server.origin}/`, '--output-dir', 'kept', '--baseline', 'nowhere.jsonl'], tmp);
    expect([r4.code, r5.code, fs.existsSync(path.join(tmp, 'refused')), fs.readdirSync(path.join(tmp, 'kept'))]).toEqual([2, 2, false, []]);
    // A baseline of another site is refused before the crawl: the site gets no request.
    const other = path.join(tmp, 'other-site.jsonl');
    fs.writeFileSync(other, `${JSON.stringify({ url: 'http://127.0.0.1:9/', depth: 0, status: 200, links: [] })}\n`);
    const before = site.server.log.length;
    const r6 = await runCli(['crawl', `${site.server.origin}/`, '--baseline', other, '--output-dir', 'other-out'], tmp);
    expect([r6.code, r6.stderr, site.server.log.length - before, fs.existsSync(path.join(tmp, 'other-out'))]).toEqual([
      2,
      `spacrawl: --baseline ${other} and this crawl are crawls of different sites (http://127.0.0.1:9 vs ${site.server.origin}): a baseline is an earlier crawl of the same site; if it is the same site on another origin, pass --map-origin http://127.0.0.1:9=${site.server.origin}\n`,
      0,
      false,
    ]);
  }, 60_000);
});
