/**
 * `crawl --baseline OLD`: the crawl just made compared with an earlier one (the baseline), so
 * that a CI gate fails only on what is new. Known findings (in the baseline too) are reported
 * as known and never fail; `--fail-on` names which NEW findings fail:
 * - `new`: every new finding of an error- or warning-level rule (visual changes included);
 * - `new:RULE` (comma-separated, e.g. `new:broken-link,new:js-error`): new findings of those rules;
 * - a plain rule id (`broken-link`): with a baseline, also only its new findings.
 * Findings of an optional check that ran in one of the two crawls only (`--a11y` …) are "not
 * compared": neither new nor known, never failing (see `checks.ts`).
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PageRecord } from '../model/record.js';
import type { AuditIssue } from '../report/audit.js';
import type { Budget } from '../report/budget.js';
import { checkSameOrigins, diffCrawls } from './diff.js';
import { originsOf, sourceSiteOrigins } from './side.js';
import { mapOriginHint } from './map-origin.js';
import { DiffInputError } from './errors.js';
import { failingFindings, findingKey, LINK_RULES } from './findings.js';
import { writeDiffReport } from './formats/index.js';
import { memorySource, openRecordSource, type RecordSource } from './source.js';
import { diffSummary } from './terminal.js';
import type { CrawlDiff, Finding } from './types.js';

export { parseGateFailOn, type GateFailOn } from './findings.js';

/** What this crawl's records and reports are written to, to refuse a baseline that would be overwritten. */
export interface CrawlTargets {
  outputDir: string | null;
  outFile: string | null;
  stateFile: string | null;
}

/**
 * Open the baseline before the crawl starts, so that a bad one stops it with exit 2.
 * @throws DiffInputError when the baseline is missing or not a crawl (see `openRecordSource`),
 *   or is a file or folder this crawl writes (it would compare the crawl with itself)
 */
export async function openBaseline(input: string, targets: CrawlTargets): Promise<RecordSource> {
  const real = (p: string | null): string | null => {
    if (!p) return null;
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const b = real(input);
  const ours = [targets.outputDir, targets.outFile, targets.stateFile, targets.outputDir && path.join(targets.outputDir, 'pages.jsonl')].map(real);
  if (b && ours.includes(b)) throw new DiffInputError('bad-option', `--baseline ${input} is written by this crawl: copy the baseline elsewhere first`);
  try {
    return await openRecordSource(input);
  } catch (err) {
    // Name the flag, as every other file flag's message does.
    if (err instanceof DiffInputError) throw new DiffInputError(err.code, `--baseline ${err.message}`, { cause: err });
    throw err;
  }
}

/**
 * Refuse, before anything is crawled, a baseline of another site: one whose site origins (its
 * seeds' origins) share none with this crawl's seeds. The same check runs again on the records
 * after the crawl (`diffCrawls`).
 * @param source - the baseline, from {@link openBaseline} (read once here)
 * @param seeds - this crawl's seed URLs
 * @throws DiffInputError (`different-sites`), naming `--baseline` and this crawl
 */
export async function checkBaselineSite(source: RecordSource, seeds: readonly string[]): Promise<void> {
  if (seeds.length === 0) return; // a worker joining a shared crawl: its seeds are in the frontier
  const older = await sourceSiteOrigins(source);
  const newer = originsOf(seeds);
  checkSameOrigins(older, newer, [`--baseline ${source.label}`, 'this crawl'], `a baseline is an earlier crawl of the same site; ${mapOriginHint(older, newer, source.originMap)}`);
}

/** The crawl compared with its baseline. */
export interface BaselineResult {
  /** The diff, baseline → this crawl (the diff's formats render it). */
  diff: CrawlDiff;
  /** New findings that fail under the gate's rules (ignored ones never do). */
  failing: Finding[];
  /** Whether an audit issue of this crawl is new: any of its findings (one per referrer for a link rule) is absent from the baseline. */
  isNew(issue: AuditIssue): boolean;
  /** Whether an audit issue of this crawl comes from a check that did not run in the baseline (see `checks.ts`). */
  notCompared(issue: AuditIssue): boolean;
}

/** Options of {@link compareWithBaseline}. */
export interface BaselineCompareOptions {
  /** The gate's rules (see {@link GateFailOn.rules}). */
  failOn: readonly string[];
  /** This crawl's screenshots folder, or `null`. */
  screenshotsDir: string | null;
  /** `slow-page` threshold of both audits (ms). */
  slowMs: number;
  /** Ignore patterns of both audits. */
  ignore: readonly RegExp[];
  /** `--budget` of both audits (`budget` findings), or `null`. @default none */
  budget?: Budget | null;
  /** Changed-pixel ratio above which a page changed visually. @default 0.001 */
  visualThreshold?: number;
  /** Folder for diff images, or `null`. */
  visualDir: string | null;
}

/**
 * Compare this crawl's records (re-readable: read in several passes) with the baseline (`diffCrawls`, with screenshots when both
 * have them): new findings, known ones, visual changes, and which new ones fail.
 * @throws DiffInputError `different-sites` when the baseline is a crawl of another site
 */
export async function compareWithBaseline(baseline: RecordSource, records: Iterable<PageRecord>, o: BaselineCompareOptions): Promise<BaselineResult> {
  const current = memorySource('this crawl', records, o.screenshotsDir);
  const diff = await diffCrawls(baseline, current, {
    slowMs: o.slowMs,
    ignore: o.ignore,
    budget: o.budget ?? null,
    visual: { threshold: o.visualThreshold, diffDir: o.visualDir },
  });
  const fresh = new Set(diff.findings.new.map(findingKey));
  const uncompared = new Set(diff.findings.notCompared.map(findingKey));
  return { diff, failing: failingFindings(diff, o.failOn), isNew: (i) => issueIn(i, fresh), notCompared: (i) => issueIn(i, uncompared) };
}

/** `true` when a finding of the audit issue `i` (one per referrer for a link rule) has its key in `keys`. */
function issueIn(i: AuditIssue, keys: ReadonlySet<string>): boolean {
  if (keys.size === 0) return false;
  if (!LINK_RULES.has(i.rule)) return keys.has(findingKey({ rule: i.rule, page: i.url, url: i.url, subject: i.subject }));
  if (i.referrers.length === 0) return keys.has(findingKey({ rule: i.rule, page: null, url: i.url }));
  return i.referrers.some((r) => keys.has(findingKey({ rule: i.rule, page: r.url, url: i.url })));
}

/** File names of the baseline diff inside `--output-dir`. */
export const BASELINE_REPORT_FILES = { markdown: 'diff.md', html: 'diff.html', json: 'diff.json' } as const;

/**
 * Print the diff's summary (new findings first) and write `diff.md`, `diff.html` and
 * `diff.json` into `outputDir` when there is one.
 */
export function reportBaseline(r: BaselineResult, failOn: readonly string[], outputDir: string | null, log: (line: string) => void): void {
  for (const line of diffSummary(r.diff, failOn).split('\n')) log(line.replace(/^spacrawl diff: /, 'baseline: '));
  if (!outputDir) return;
  for (const [format, name] of Object.entries(BASELINE_REPORT_FILES)) writeDiffReport({ format, path: path.join(outputDir, name) }, { diff: r.diff, failOn });
}
