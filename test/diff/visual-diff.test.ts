import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVersionedSite, type SiteVersion, type VersionedSite } from '../../fixtures/sites/versions.js';
import type { DiffReport } from '../../src/diff/types.js';
import { buildCli, runCli, type Run } from './cli-run.js';
import { pathOf } from './helpers.js';

let site: VersionedSite;
let tmp: string;

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
  buildCli();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-visual-'));
  site = await startVersionedSite();
  await crawlVersion('A', 'a');
  await crawlVersion('A', 'a2');
  await crawlVersion('B', 'b');
}, 240_000);

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
