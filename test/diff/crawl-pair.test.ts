import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVersionedSite, type SiteVersion, type VersionedSite } from '../../fixtures/sites/versions.js';
import { sharedBrowser } from '../helpers/browser.js';
import { crawl } from '../../src/crawl/crawler.js';
import { SqliteFrontier } from '../../src/store/sqlite/frontier.js';
import { diffCrawls } from '../../src/diff/diff.js';
import { openRecordSource } from '../../src/diff/source.js';
import { isEmptyDiff, type CrawlDiff } from '../../src/diff/types.js';
import type { PageRecord } from '../../src/model/record.js';
import { runCli } from './cli-run.js';
import { EXPECTED_NEW_FINDINGS, EXPECTED_UNCHANGED_FINDINGS, expectedUrlChanges } from './fixture-records.js';
import { identity, pathOf, urlChanges, writeJsonl } from './helpers.js';

/**
 * Timing changes are left out of these comparisons (a threshold no page reaches): two crawls of
 * a local site on a busy machine may differ by seconds. Timings are tested on built records.
 */
const NO_TIMINGS = { thresholdMs: 3_600_000 };

let browser: Browser;
let site: VersionedSite;
let tmp: string;
const file = (name: string): string => path.join(tmp, name);

/** Crawl one version of the site at concurrency 1 (a stable order: `/go` after its targets). */
async function crawlVersion(v: SiteVersion, state?: string): Promise<PageRecord[]> {
  site.setVersion(v);
  const seeds = [`${site.server.origin}/`];
  const frontier = state ? SqliteFrontier.open(state, { crawlKey: { seeds, scope: 'host' } }) : undefined;
  const out: PageRecord[] = [];
  for await (const r of crawl({ seeds, browser, concurrency: 1, frontier })) out.push(r);
  return out;
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-diff-crawl-'));
  browser = await sharedBrowser();
  site = await startVersionedSite();
  writeJsonl(file('a.jsonl'), await crawlVersion('A', file('a.db')));
  writeJsonl(file('b.jsonl'), await crawlVersion('B'));
}, 180_000);

afterAll(async () => {
  await site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function diffFiles(a: string, b: string): Promise<CrawlDiff> {
  const older = await openRecordSource(file(a));
  const newer = a === b ? older : await openRecordSource(file(b));
  try {
    return await diffCrawls(older, newer, NO_TIMINGS);
  } finally {
    await older.close();
    await newer.close();
  }
}

describe('diff of two real crawls of a site in two versions', () => {
  it('the crawls are what the fixture says: /go a redirect record, /promo a soft 404 in B', () => {
    const b = fs.readFileSync(file('b.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as PageRecord);
    expect(b.filter((r) => r.redirect).map((r) => pathOf(r.url))).toEqual(['/go']);
    expect(b.filter((r) => r.soft404).map((r) => [pathOf(r.url), r.soft404Reason])).toEqual([['/promo', 'not-found-heading']]);
  });

  it('A → B reports exactly the known differences, from JSON Lines and from a state file alike', async () => {
    for (const a of ['a.jsonl', 'a.db']) {
      const d = await diffFiles(a, 'b.jsonl');
      expect(urlChanges(d)).toEqual(expectedUrlChanges(site.server.origin));
      expect(d.findings.new.map(identity)).toEqual(EXPECTED_NEW_FINDINGS);
      expect(d.findings.fixed).toEqual([]);
      expect(d.findings.unchanged.map(identity)).toEqual(EXPECTED_UNCHANGED_FINDINGS);
      expect([d.old.pages, d.new.pages]).toEqual([7, 7]);
    }
  });

  it('A → A reports nothing', async () => {
    const d = await diffFiles('a.jsonl', 'a.jsonl');
    expect(isEmptyDiff(d)).toBe(true);
    expect(d.findings.unchanged.map(identity)).toEqual(EXPECTED_UNCHANGED_FINDINGS);
  });

  it('the CLI: --fail-on broken-link exits 1 for A → B only; A → A and B → A exit 0; the state file is read', async () => {
    const args = ['--fail-on', 'broken-link', '--threshold-ms', '3600000'];
    const ab = await runCli(['diff', 'a.jsonl', 'b.jsonl', ...args, '--report', 'markdown:diff.md'], tmp);
    expect(ab.code).toBe(1);
    expect(ab.stderr).toContain('2 new findings (broken-link 2)\n  ✗ broken-link /guide on /about ("Guide"): HTTP 404\n');
    expect(fs.readFileSync(file('diff.md'), 'utf8')).toContain('### New findings (2)');
    expect((await runCli(['diff', 'a.jsonl', 'a.jsonl', ...args], tmp)).code).toBe(0);
    expect((await runCli(['diff', 'b.jsonl', 'a.jsonl', ...args], tmp)).code).toBe(0);
    const fromState = await runCli(['diff', 'a.db', 'b.jsonl', ...args, '--json'], tmp);
    expect(fromState.code).toBe(1);
    expect((JSON.parse(fromState.stdout) as { failing: number }).failing).toBe(2);
  });
});
