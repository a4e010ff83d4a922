import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PageRecord } from '../../src/model/record.js';
import { expectUsageError, runCli } from './cli-run.js';
import { crawlA, crawlB, O } from './fixture-records.js';
import { writeJsonl, writeStateFile } from './helpers.js';

let tmp: string;
const run = (...args: string[]) => runCli(['diff', ...args], tmp);

/** The records of a crawl as an older spacrawl wrote them: no redirect, soft404Reason, meta, linkChecks, serverWaitMs. */
function older(records: PageRecord[]): object[] {
  return records.map((r) => {
    const { redirect: _r, soft404Reason: _s, meta: _m, linkChecks: _l, anchors: _a, fragmentLinks: _f, ...rest } = r;
    const { serverWaitMs: _w, ...timings } = r.timings;
    return { ...rest, timings };
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-diff-cli-'));
  writeJsonl(path.join(tmp, 'a.jsonl'), crawlA());
  writeJsonl(path.join(tmp, 'b.jsonl'), crawlB());
  writeJsonl(path.join(tmp, 'old-a.jsonl'), older(crawlA()));
  writeJsonl(path.join(tmp, 'other.jsonl'), crawlB().map((r) => JSON.parse(JSON.stringify(r).replaceAll(O, 'https://other.test')) as object));
  fs.writeFileSync(path.join(tmp, 'notes.txt'), 'these are notes\nnot a crawl\n');
  fs.mkdirSync(path.join(tmp, 'report-b'));
  fs.copyFileSync(path.join(tmp, 'b.jsonl'), path.join(tmp, 'report-b', 'pages.jsonl'));
  await writeStateFile(path.join(tmp, 'a.db'), crawlA());
}, 120_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const SUMMARY_AB = [
  'spacrawl diff: a.jsonl (7 pages) → b.jsonl (7 pages)',
  '2 new findings (broken-link 2)',
  '  ✗ broken-link /guide on /about ("Guide"): HTTP 404',
  '  ✗ broken-link /promo on / ("Summer promotion"): soft 404: answers 200 but renders a "not found" screen',
  '0 fixed findings, 1 unchanged',
  'changes: 1 page added, 1 page removed, 1 status change, 1 title change, 1 redirect change, 1 new soft 404, 1 page that lost links, 0 timing changes',
  '  + /news "News"',
  '  - /old "Old page"',
  '  status /guide: 200 → 404',
  '  title /about: "About" → "About us"',
  '  redirect /go: /docs/a → /docs/b',
  '  soft 404 /promo (not-found-heading)',
  '  lost links /: /old',
];

describe('spacrawl diff OLD NEW', () => {
  it('A → B: the summary on stderr, new findings first; exit 1 under --fail-on broken-link', async () => {
    const r = await run('a.jsonl', 'b.jsonl', '--fail-on', 'broken-link');
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toBe([...SUMMARY_AB, 'fails under --fail-on broken-link: 2 new findings', ''].join('\n'));
  });

  it('A → A reports nothing and exits 0; B → A only fixes, exits 0; --fail-on none or other rules exit 0', async () => {
    const same = await run('a.jsonl', 'a.jsonl', '--fail-on', 'broken-link');
    expect(same.code).toBe(0);
    expect(same.stderr).toContain('\nno changes\n');
    expect(same.stderr).toContain('0 new findings\n0 fixed findings, 1 unchanged\n');
    const back = await run('b.jsonl', 'a.jsonl', '--fail-on', 'broken-link');
    expect(back.code).toBe(0);
    expect(back.stderr).toContain('2 fixed findings (broken-link 2), 1 unchanged');
    expect((await run('a.jsonl', 'b.jsonl')).code).toBe(1); // default: broken-link,server-error
    expect((await run('a.jsonl', 'b.jsonl', '--fail-on', 'none')).code).toBe(0);
    expect((await run('a.jsonl', 'b.jsonl', '--fail-on', 'js-error,server-error')).code).toBe(0);
  });

  it('--fail-on takes the grammar of crawl --fail-on: new and new:RULE count new findings, as a plain rule id does', async () => {
    const codes: [string, number | null][] = [];
    for (const failOn of ['new', 'new:broken-link', 'new:js-error,new:server-error', 'broken-link,new:js-error', 'warnings']) {
      codes.push([failOn, (await run('a.jsonl', 'b.jsonl', '--fail-on', failOn)).code]);
    }
    expect(codes).toEqual([
      ['new', 1],
      ['new:broken-link', 1],
      ['new:js-error,new:server-error', 0],
      ['broken-link,new:js-error', 1],
      ['warnings', 1],
    ]);
    // Only new findings fail: B → A has none (the broken links are fixed there).
    expect((await run('b.jsonl', 'a.jsonl', '--fail-on', 'new')).code).toBe(0);
    const r = await run('a.jsonl', 'b.jsonl', '--fail-on', 'new:broken-link', '--json');
    expect((JSON.parse(r.stdout) as { failOn: string[]; failing: number })).toMatchObject({ failOn: ['broken-link'], failing: 2 });
    expectUsageError(await run('a.jsonl', 'b.jsonl', '--fail-on', 'new:broken-links'), 'unknown --fail-on rule "broken-links" (did you mean "broken-link"?): expected rule ids (spacrawl rules lists them), warnings, none, new or new:RULE');
  });

  it('--budget judges both crawls: budget findings of pages over it, compared only where both measured vitals', async () => {
    const vitals = { lcp: 5000, cls: 0, tbt: 0, fcp: 900, ttfb: 50, transferBytes: 1000, requests: 3, alone: true, throttle: 'none' };
    const measured = crawlA().map((r) => (r.url === `${O}/` ? { ...r, vitals } : r));
    writeJsonl(path.join(tmp, 'vitals-a.jsonl'), measured);
    writeJsonl(path.join(tmp, 'vitals-b.jsonl'), measured);
    type Out = { findings: { unchanged: { rule: string; url: string }[]; notCompared: { rule: string }[] }; checks: { uncompared: unknown[] } };
    const judged = JSON.parse((await run('vitals-a.jsonl', 'vitals-b.jsonl', '--budget', 'lcp=2500', '--json')).stdout) as Out;
    expect(judged.findings.unchanged.filter((f) => f.rule === 'budget').map((f) => f.url)).toEqual([`${O}/`]);
    const against = JSON.parse((await run('vitals-a.jsonl', 'a.jsonl', '--budget', 'lcp=2500', '--json')).stdout) as Out;
    expect([against.findings.notCompared.map((f) => f.rule), against.checks.uncompared]).toEqual([['budget'], [{ check: 'vitals', ranIn: 'old', findings: 1 }]]);
  });

  it('reads a state file, a report folder and an older-schema file as sides', async () => {
    const r = await run('a.db', 'report-b', '--fail-on', 'broken-link', '--json');
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as { failing: number; old: { source: string }; new: { source: string }; titleChanges: unknown[] };
    expect([json.failing, json.old.source, json.new.source, json.titleChanges.length]).toEqual([2, 'a.db', 'report-b', 1]);
    const old = await run('old-a.jsonl', 'b.jsonl', '--fail-on', 'broken-link', '--json');
    expect(old.code).toBe(1);
    const d = JSON.parse(old.stdout) as { findings: { new: { rule: string; url: string }[] }; redirectChanges: { url: string }[] };
    expect(d.findings.new.filter((f) => f.rule === 'broken-link').map((f) => f.url)).toEqual([`${O}/guide`, `${O}/promo`]);
    expect(d.redirectChanges.map((x) => x.url)).toEqual([`${O}/go`]);
  });

  it('--report writes markdown, json, html and junit; a report without PATH goes to stdout', async () => {
    const r = await run('a.jsonl', 'b.jsonl', '--report', 'markdown:d.md', '--report', 'json:d.json', '--report', 'html:d.html', '--report', 'junit:d.xml');
    expect(r.code).toBe(1);
    const md = fs.readFileSync(path.join(tmp, 'd.md'), 'utf8');
    expect(md.startsWith('## spacrawl diff\n\n**❌ Fails** under `--fail-on broken-link,server-error`: 2 new findings.\n')).toBe(true);
    expect(md.indexOf('### New findings (2)')).toBeLessThan(md.indexOf('### Pages added (1)'));
    expect(JSON.parse(fs.readFileSync(path.join(tmp, 'd.json'), 'utf8'))).toMatchObject({ schemaVersion: 1, failing: 2, failOn: ['broken-link', 'server-error'] });
    expect(fs.readFileSync(path.join(tmp, 'd.html'), 'utf8')).toContain('<h2 id="new">New findings (2)</h2>');
    expect(XMLValidator.validate(fs.readFileSync(path.join(tmp, 'd.xml'), 'utf8'))).toBe(true);
    const out = await run('a.jsonl', 'b.jsonl', '--report', 'markdown');
    expect(out.stdout).toBe(md);
  });

  it('bad input is exit 2 with one line: a missing file, a file that is not a crawl, two different sites, a bad flag', async () => {
    expectUsageError(await run('a.jsonl', 'missing.jsonl'), 'missing.jsonl: no such file or folder');
    expectUsageError(await run('notes.txt', 'b.jsonl'), 'notes.txt is not a crawl: no JSON record with a "url" (expected the JSON Lines of --out, a --state file or an --output-dir folder)');
    expectUsageError(await run('a.jsonl', 'other.jsonl'), 'a.jsonl and other.jsonl are crawls of different sites (https://site.test vs https://other.test): if it is the same site on another origin, pass --map-origin https://site.test=https://other.test; else --force to compare them anyway');
    expectUsageError(await run('a.jsonl', 'b.jsonl', '--fail-on', 'broken-links'), 'unknown --fail-on rule "broken-links" (did you mean "broken-link"?): expected rule ids (spacrawl rules lists them), warnings, none, new or new:RULE');
    expectUsageError(await run('a.jsonl', 'b.jsonl', '--report', 'csv:x.csv'), 'unknown report format "csv" for diff (known: markdown, json, html, junit)');
    expectUsageError(await run('a.jsonl', 'b.jsonl', '--report', 'markdown', '--json'), '--json prints the diff on stdout: give every --report a PATH');
    const forced = await run('a.jsonl', 'other.jsonl', '--force', '--fail-on', 'none');
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('changes: 7 pages added, 7 pages removed,');
  });
});
