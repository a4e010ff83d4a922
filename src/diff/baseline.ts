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
import path from 'node:path';
import type { PageRecord } from '../model/record.js';
import type { AuditIssue } from '../report/audit.js';
import type { Budget } from '../report/budget.js';
import { diffCrawls } from './diff.js';
import { failingFindings, findingKey, LINK_RULES } from './findings.js';
import { writeDiffReport } from './formats/index.js';
import { memorySource, type RecordSource } from './source.js';
import { diffSummary } from './terminal.js';
import type { CrawlDiff, Finding } from './types.js';

export { parseGateFailOn, type GateFailOn } from './findings.js';

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
