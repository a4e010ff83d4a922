import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRecords } from '../helpers/report-fixture.js';
import { runInProcess } from '../helpers/cli.js';
import { SummaryCounter } from '../../src/report/summary.js';

// `spacrawl export --records`: the reports of a crawl that wrote files (--out, --output-dir)
// rather than a state file, written again from those files without crawling.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-export-records-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const records = buildRecords();
const jsonl = path.join(dir, 'crawl.jsonl');
fs.writeFileSync(jsonl, records.map((r) => `${JSON.stringify(r)}\n`).join(''));

async function expectedSummary(): Promise<{ pages: number; errors: number; ok: number }> {
  const counter = new SummaryCounter();
  for (const r of records) counter.add(r);
  const s = counter.snapshot(0, 'done');
  return { pages: s.pages, errors: s.errors, ok: s.ok };
}

describe('export --records', () => {
  it('a JSON Lines file: every record into the reports, the same counts as the crawl, time unknown said on stderr', async () => {
    const csv = path.join(dir, 'pages.csv');
    const r = await runInProcess(['export', '--records', jsonl, '--report', `csv:${csv}`, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { pages: number; errors: number; ok: number; elapsedMs: number; endReason: string };
    const want = await expectedSummary();
    expect({ pages: summary.pages, errors: summary.errors, ok: summary.ok, elapsedMs: summary.elapsedMs, endReason: summary.endReason }).toEqual({ ...want, elapsedMs: 0, endReason: 'done' });
    expect(want.pages).toBeGreaterThan(5);
    // One CSV row per record, after the header.
    expect(fs.readFileSync(csv, 'utf8').trim().split('\n').length - 1).toBe(records.length);
    expect(r.stderr).toBe(`exported ${records.length} records (${want.pages} pages) from ${jsonl}\ncrawl time and end unknown (not in a JSON Lines file): the summary says 0 s and done\n`);
  });

  it("an --output-dir folder: its pages.jsonl, with the crawl's time and end from its report.json", async () => {
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    fs.copyFileSync(jsonl, path.join(out, 'pages.jsonl'));
    fs.writeFileSync(path.join(out, 'report.json'), `{\n  "schemaVersion": 1,\n  "summary": ${JSON.stringify({ elapsedMs: 61_604, endReason: 'max-time', checks: [] })},\n  "issues": []\n}\n`);
    const r = await runInProcess(['export', '--records', out, '--report', `jsonl:${path.join(dir, 'again.jsonl')}`, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ elapsedMs: 61_604, endReason: 'max-time' });
    expect(r.stderr.split('\n')[1]).toBe('crawl time 1 min 02 s, ended (max-time), from its report.json');
    expect(fs.readFileSync(path.join(dir, 'again.jsonl'), 'utf8').trim().split('\n').length).toBe(records.length);
  });

  it('a line that is not a record (torn by a crash) is skipped and said on stderr', async () => {
    const torn = path.join(dir, 'torn.jsonl');
    fs.writeFileSync(torn, `${fs.readFileSync(jsonl, 'utf8')}{"url":"https://site.test/half`);
    const r = await runInProcess(['export', '--records', torn, '--report', `json:${path.join(dir, 'torn.json')}`]);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([`spacrawl: ${torn}: skipped 1 line that is not a record`, `exported ${records.length} records (${(await expectedSummary()).pages} pages) from ${torn}`]);
  });

  it('a line whose fields are not of the kinds spacrawl writes (an edited file, another program) is skipped and said, never a crash', async () => {
    const odd = path.join(dir, 'odd.jsonl');
    const first = records[0]!;
    const bad = [
      { ...first, url: 'https://site.test/objects', pageErrors: [{ message: 'x' }] },
      { ...first, url: 'https://site.test/number-title', title: 42 },
      { ...first, url: 'https://site.test/links-string', links: 'https://site.test/a' },
    ];
    fs.writeFileSync(odd, `${fs.readFileSync(jsonl, 'utf8')}${bad.map((b) => `${JSON.stringify(b)}\n`).join('')}`);
    const r = await runInProcess(['export', '--records', odd, '--report', `json:${path.join(dir, 'odd.json')}`]);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').slice(0, 2)).toEqual([`spacrawl: ${odd}: skipped 3 lines that are not a record`, `exported ${records.length} records (${(await expectedSummary()).pages} pages) from ${odd}`]);
  });

  it('bad input is exit 2 with one line: nothing there, not a crawl, two sources', async () => {
    const notCrawl = path.join(dir, 'notes.txt');
    fs.writeFileSync(notCrawl, 'hello\n');
    const cases: [string[], string][] = [
      [['--records', path.join(dir, 'nope.jsonl')], `spacrawl: ${path.join(dir, 'nope.jsonl')}: no such file or folder\n`],
      [['--records', notCrawl], `spacrawl: ${notCrawl} is not a crawl: no JSON record with a "url" (expected the JSON Lines of --out, a --state file or an --output-dir folder)\n`],
      [['--records', jsonl, '--state', path.join(dir, 'x.db')], 'spacrawl: --records cannot also be provided when using --state\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await runInProcess(['export', ...args, '--report', `json:${path.join(dir, 'r.json')}`]);
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({ code: 2, stderr, stdout: '' });
    }
  });
});
