import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffCrawls } from '../../src/diff/diff.js';
import { openRecordSource } from '../../src/diff/source.js';
import type { CrawlDiff, DiffReport } from '../../src/diff/types.js';
import type { PageRecord } from '../../src/model/record.js';
import { runCli } from './cli-run.js';
import { page } from './fixture-records.js';
import { writeJsonl } from './helpers.js';

let tmp: string;
const at = (...p: string[]): string => path.join(tmp, ...p);

/** A 100 × 100 PNG, white, with a black square of `side` px at the top left. */
function png(file: string, side: number): void {
  const img = new PNG({ width: 100, height: 100 });
  for (let y = 0; y < 100; y++) {
    for (let x = 0; x < 100; x++) {
      const i = (y * 100 + x) * 4;
      const v = x < side && y < side ? 0 : 255;
      img.data[i] = img.data[i + 1] = img.data[i + 2] = v;
      img.data[i + 3] = 255;
    }
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, PNG.sync.write(img));
}

/** Two pages with screenshots named `home.png` and `about.png`. */
const records = (): PageRecord[] => [page('/', 'Home', [['/about', 'About']], { screenshot: 'home.png' }), page('/about', 'About', [], { screenshot: 'about.png' })];

/** The report.json an `--output-dir` crawl writes, reduced to its head: schemaVersion, summary, then issues and pages. */
function reportJson(dir: string, summary: Record<string, unknown>): void {
  fs.writeFileSync(path.join(dir, 'report.json'), `${JSON.stringify({ schemaVersion: 1, summary: { pages: 2, ...summary }, issues: [], pages: [] }, null, 2)}\n`);
}

async function diffOf(a: string, b: string): Promise<CrawlDiff> {
  const older = await openRecordSource(a);
  const newer = await openRecordSource(b);
  try {
    return await diffCrawls(older, newer);
  } finally {
    await older.close();
    await newer.close();
  }
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-shot-dirs-'));
  // A: an --output-dir folder with its screenshots inside.
  fs.mkdirSync(at('a'));
  writeJsonl(at('a', 'pages.jsonl'), records());
  png(at('a', 'screenshots', 'home.png'), 0);
  png(at('a', 'screenshots', 'about.png'), 0);
  // B: an --output-dir folder whose screenshots went elsewhere (--screenshots), as its report.json records.
  fs.mkdirSync(at('b'));
  writeJsonl(at('b', 'pages.jsonl'), records());
  reportJson(at('b'), { screenshotsDir: at('elsewhere', 'shots-b') });
  png(at('elsewhere', 'shots-b', 'home.png'), 30); // 900 of 10,000 pixels changed
  png(at('elsewhere', 'shots-b', 'about.png'), 0);
  // C: --out JSON Lines and --screenshots elsewhere, no report: the folder cannot be known.
  writeJsonl(at('c.jsonl'), records());
  // D: an --output-dir folder whose screenshots/ lacks one file.
  fs.mkdirSync(at('d'));
  writeJsonl(at('d', 'pages.jsonl'), records());
  png(at('d', 'screenshots', 'home.png'), 0);
}, 180_000); // the build takes minutes on a busy machine

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('screenshots written outside --output-dir', () => {
  it("are found through the folder's report.json and compared", async () => {
    const d = await diffOf(at('a'), at('b'));
    expect(d.visual).toMatchObject({ compared: 2, missing: 0 });
    expect(d.visual!.changes.map((c) => [c.url, c.changedPixels, c.new])).toEqual([['https://site.test/', 900, at('elsewhere', 'shots-b', 'home.png')]]);
    expect(d.notices).toEqual([]);
  });

  it('a side whose screenshots folder is unknown: a notice and every page counted, never a silent skip', async () => {
    const d = await diffOf(at('a'), at('c.jsonl'));
    expect(d.visual).toEqual({ threshold: 0.001, compared: 0, missing: 2, changes: [] });
    expect(d.notices).toEqual([
      `screenshots not compared: the records name them, but the screenshots folder of NEW (${at('c.jsonl')}, --new-screenshots) was not found next to the records: give it with that flag (2 screenshots not compared)`,
    ]);
  });

  it('a record that names a screenshot outside its folder (an edited file: ../, an absolute path) is compared as a page without one: nothing read there, no diff image written there', async () => {
    // E: A's pages, but the home page's record names a PNG beside the folder, which differs.
    fs.mkdirSync(at('e'), { recursive: true });
    writeJsonl(at('e', 'pages.jsonl'), [page('/', 'Home', [['/about', 'About']], { screenshot: '../outside.png' }), page('/about', 'About', [], { screenshot: 'about.png' })]);
    png(at('e', 'screenshots', 'about.png'), 0);
    png(at('e', 'outside.png'), 50);
    const d = await diffOf(at('a'), at('e'));
    expect(d.visual).toMatchObject({ compared: 1, missing: 0, changes: [] });
  });

  it('a file named by a record but missing: a notice naming it, counted in missing', async () => {
    const d = await diffOf(at('a'), at('d'));
    expect(d.visual).toMatchObject({ compared: 1, missing: 1, missingFiles: [at('d', 'screenshots', 'about.png')], changes: [] });
    expect(d.notices).toEqual([`1 screenshot named in the records could not be read, those pages not compared: ${at('d', 'screenshots', 'about.png')}`]);
  });

  it('the CLI prints the notice on stderr and keeps it in the json report; --new-screenshots resolves it', async () => {
    const r = await runCli(['diff', 'a', 'c.jsonl', '--json'], tmp);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('\nnote: screenshots not compared: the records name them, but the screenshots folder of NEW (c.jsonl, --new-screenshots) was not found next to the records: give it with that flag (2 screenshots not compared)\n');
    expect((JSON.parse(r.stdout) as DiffReport).visual).toMatchObject({ compared: 0, missing: 2 });
    const given = await runCli(['diff', 'a', 'c.jsonl', '--json', '--new-screenshots', 'elsewhere/shots-b'], tmp);
    const report = JSON.parse(given.stdout) as DiffReport;
    expect([report.visual!.compared, report.visual!.changes.length, report.notices]).toEqual([2, 1, []]);
  }, 60_000);
});
