import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DiffReport, Finding } from '../../src/diff/types.js';
import { runCli, type Run } from './cli-run.js';
import { pathOf } from './helpers.js';

let tmp: string;
let port: number;
const runs: Record<string, Run> = {};

/** A port free right now (the demo is given it, so that every run here crawls one origin). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port: p } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(p));
    });
  });
}

/** A demo crawl (15 pages, /live read at the settle cap): minutes on a busy machine, so killed only after 5. */
const demo = (...args: string[]): Promise<Run> => runCli(['demo', '--port', String(port), '--concurrency', '2', ...args], tmp, 300_000);
/** Timing changes are left out: two crawls on a busy machine may differ by seconds. */
const NO_TIMINGS = ['--threshold-ms', '3600000'];
const ids = (fs: Finding[]): string[] => fs.map((f) => `${f.rule} ${f.page === null ? '(none)' : pathOf(f.page)} → ${pathOf(f.url)}`).sort();

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-demo-diff-'));
  port = await freePort();
  runs.a = await demo('--output-dir', 'a');
  runs.a2 = await demo('--output-dir', 'a2');
  runs.b = await demo('--changed', '--output-dir', 'b', '--baseline', 'a');
}, 900_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('spacrawl demo --changed: the demo in two versions, compared', () => {
  it('each run exits 0 and writes a report folder with screenshots; --changed says it serves version B', () => {
    for (const r of Object.values(runs)) expect(r.code).toBe(0);
    expect(runs.a!.stderr.split('\n')[0]).toBe(`demo site on http://127.0.0.1:${port}/ (a client-rendered app: the HTML the server sends has no links)`);
    expect(runs.b!.stderr.split('\n')[0]).toBe(`demo site (changed: version B) on http://127.0.0.1:${port}/ (a client-rendered app: the HTML the server sends has no links)`);
    for (const dir of ['a', 'a2', 'b']) expect(fs.readdirSync(path.join(tmp, dir, 'screenshots')).length).toBe(15);
  });

  it('diff A B reports exactly the known differences, and exits 1 for the new broken link', async () => {
    const r = await runCli(['diff', 'a', 'b', '--json', ...NO_TIMINGS, '--report', 'markdown:ab.md', '--report', 'html:ab.html'], tmp, 180_000);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.stdout) as DiffReport;
    const at = (p: string): string => `http://127.0.0.1:${port}${p}`;
    expect(d.pages.added.map((p) => [pathOf(p.url), p.title])).toEqual([['/status', 'Status history']]);
    expect(d.pages.removed.map((p) => [pathOf(p.url), p.title])).toEqual([['/status-history', 'Status history']]);
    expect(d.statusChanges).toEqual([{ url: at('/docs/advanced'), old: { status: 200, error: null, redirect: false }, new: { status: 404, error: null, redirect: false } }]);
    expect(d.titleChanges).toEqual([{ url: at('/pricing'), old: 'Pricing', new: 'Pricing and plans' }]);
    expect(d.redirectChanges).toEqual([{ url: at('/old-pricing'), old: at('/pricing'), new: at('/about') }]);
    expect(d.lostLinks).toEqual([{ url: at('/live'), links: [at('/status-history')] }]);
    expect(d.soft404s).toEqual([]);
    // The banner on /; the /live clock is masked.
    expect(d.visual!.changes.map((c) => pathOf(c.url))).toEqual(['/']);
    expect([d.visual!.compared, d.visual!.missing]).toEqual([14, 0]);
    expect(ids(d.findings.new)).toEqual(['broken-link /docs → /docs/advanced', 'js-only-links /status → /status', 'missing-description /status → /status', 'visual-change / → /']);
    expect(ids(d.findings.fixed)).toEqual([
      'js-only-links /docs/advanced → /docs/advanced',
      'js-only-links /status-history → /status-history',
      'missing-description /docs/advanced → /docs/advanced',
      'missing-description /status-history → /status-history',
    ]);
    expect(d.failing).toBe(1);
    expect(r.stderr).toContain(
      [
        'changes: 1 page added, 1 page removed, 1 status change, 1 title change, 1 redirect change, 0 new soft 404s, 1 page that lost links, 0 timing changes, 1 visual change',
        '  + /status "Status history"',
        '  - /status-history "Status history"',
        '  status /docs/advanced: 200 → 404',
        '  title /pricing: "Pricing" → "Pricing and plans"',
        '  redirect /old-pricing: /pricing → /about',
        '  lost links /live: /status-history',
      ].join('\n'),
    );
    const md = fs.readFileSync(path.join(tmp, 'ab.md'), 'utf8');
    expect(md).toContain('**❌ Fails** under `--fail-on broken-link,server-error`: 1 new finding.');
    expect(md).toContain('### Title changes (1)');
    expect(fs.readFileSync(path.join(tmp, 'ab.html'), 'utf8')).toContain('<h2 id="visual">');
  }, 120_000);

  it('two runs of the unchanged demo: no change at all, every screenshot the same', async () => {
    const r = await runCli(['diff', 'a', 'a2', '--json', ...NO_TIMINGS], tmp, 180_000);
    expect(r.code).toBe(0);
    const d = JSON.parse(r.stdout) as DiffReport;
    expect([d.visual!.compared, d.visual!.changes.length, d.findings.new.length, d.findings.fixed.length]).toEqual([15, 0, 0, 0]);
    expect(r.stderr).toContain('\nno changes\n');
  }, 120_000);

  it('--changed --baseline A compares in one step: the diff on the terminal and diff.md, diff.html, diff.json in --output-dir', () => {
    expect(runs.b!.stderr).toContain('\nbaseline: a (15 pages) → this crawl (15 pages)\n4 new findings (broken-link 1, visual-change 1, js-only-links 1, missing-description 1)\n');
    expect(runs.b!.stderr).toContain('\n  title /pricing: "Pricing" → "Pricing and plans"\n  redirect /old-pricing: /pricing → /about\n');
    for (const f of ['diff.md', 'diff.html', 'diff.json']) expect(fs.existsSync(path.join(tmp, 'b', f))).toBe(true);
    const d = JSON.parse(fs.readFileSync(path.join(tmp, 'b', 'diff.json'), 'utf8')) as DiffReport;
    expect(ids(d.findings.new)).toEqual(['broken-link /docs → /docs/advanced', 'js-only-links /status → /status', 'missing-description /status → /status', 'visual-change / → /']);
  });
});
