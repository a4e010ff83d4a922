import fs from 'node:fs';
import path from 'node:path';
import { OptionsError } from '../crawl/options-error.js';
import { checkWritableFile, describeFsError, ensureWritableDir } from '../util/files.js';
import { failingIssues, RULES, type AuditIssue } from '../report/audit.js';
import { parseFailOn } from '../diff/findings.js';
import { FORMATTERS, parseReportSpec, writeReport, type ReportInput, type ReportSpec } from '../report/formats.js';
import { CSV_NOTE } from '../report/formats/csv.js';
import type { Reporter } from '../report/reporter.js';
import type { Budget } from '../report/budget.js';
import { compilePattern } from '../url/scope.js';
import type { DataStream } from './io.js';
import { sameFile } from './records-file.js';

/** How a crawl's findings are reported and judged. */
export interface ReportingOptions {
  /** `--report FORMAT[:PATH]` values. */
  reports: readonly string[];
  /** `--output-dir`: every format under its conventional name. */
  outputDir: string | null;
  /** `--fail-on` rules (default `broken-link,server-error`; `none` never fails). */
  failOn: readonly string[];
  /** `--fail-on-warnings`: every error- and warning-level rule fails. */
  failOnWarnings: boolean;
  /** `--ignore-url` patterns (globs or /regex/) plus the lines of `.spacrawlignore`. */
  ignore: readonly string[];
  /** `slow-page` threshold (ms). */
  slowMs: number;
  /** `--budget`: limits on the pages' vitals for the `budget` rule, or `null` (absent: none). */
  budget?: Budget | null;
  /** `--json` owns stdout. */
  json: boolean;
  /** Absolute `--screenshots` folder, or `null`. */
  screenshotsDir: string | null;
}

export { DEFAULT_FAIL_ON } from './cli-options.js';

/**
 * Check the reporting flags before anything is crawled: known formats and rules, at most one
 * stream on stdout, writable paths, valid ignore patterns.
 * @throws OptionsError with a one-line message (DiffInputError for an unknown `--fail-on` rule; both are usage errors, exit 2)
 */
export function planReports(o: ReportingOptions): { specs: ReportSpec[]; ignore: RegExp[] } {
  const specs = o.reports.map(parseReportSpec);
  if (o.outputDir) {
    try {
      ensureWritableDir(o.outputDir);
    } catch (err) {
      throw new OptionsError(`cannot write to --output-dir ${o.outputDir}: ${describeFsError(err)}`);
    }
    for (const [format, f] of Object.entries(FORMATTERS)) specs.push({ format, path: path.join(o.outputDir, f.fileName), implied: true });
  }
  const toStdout = specs.filter((s) => s.path === null).length;
  if (toStdout > 1) throw new OptionsError('only one report may go to stdout: give the others a PATH (FORMAT:PATH)');
  if (toStdout && o.json) throw new OptionsError('--json prints the summary on stdout: give every --report a PATH');
  for (const s of specs) {
    if (s.path === null) continue;
    try {
      checkWritableFile(s.path);
    } catch (err) {
      throw new OptionsError(`cannot write report ${s.path}: ${describeFsError(err)}`);
    }
  }
  // The one --fail-on grammar (`new` comes from parseGateFailOn, which refuses it without a baseline).
  parseFailOn(o.failOn.join(','));
  return { specs, ignore: o.ignore.map(compilePattern) };
}

/** Patterns from a `.spacrawlignore` file: one per line, `#` comments and blank lines skipped. */
export function readIgnoreFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/**
 * The issues that fail the build: those `--fail-on` names (see `failingIssues`), and with
 * `--baseline` only the new ones.
 */
export function failingNow(end: ReportInput): AuditIssue[] {
  return failingIssues(end.audit, end.failOn).filter((i) => end.isNew?.(i) ?? true);
}

/** Failing issues named one per line on the log after the issue table. */
const MAX_FAILING_LINES = 10;

/**
 * The issue table on the log after the reports: issue counts by rule, how many were ignored,
 * and what fails the build by name (a person at the terminal should not need a report for that).
 */
export class IssueTable implements Reporter {
  constructor(private readonly log: (line: string) => void) {}

  onEnd(end: ReportInput): void {
    const result = end.audit;
    const failing = failingNow(end);
    const rows = Object.entries(result.counts);
    const log = this.log;
    if (rows.length) {
      log('issues:');
      for (const [rule, n] of rows) log(`  ${RULES[rule as keyof typeof RULES].severity.padEnd(7)} ${rule.padEnd(20)} ${n}`);
    }
    const ignored = result.issues.filter((i) => i.ignored).length;
    if (ignored) log(`  (${ignored} ignored by --ignore-url / .spacrawlignore)`);
    if (failing.length) {
      log(`failing (${failing.length}):`);
      for (const i of failing.slice(0, MAX_FAILING_LINES)) {
        const from = i.referrers[0];
        const more = i.referrers.length > 1 ? ` (+${i.referrers.length - 1} more)` : '';
        log(`  ${i.rule.padEnd(14)} ${i.url}  ${i.message}${from ? ` ← ${from.url}${from.text ? ` "${from.text.slice(0, 60)}"` : ''}${more}` : ''}`);
      }
      if (failing.length > MAX_FAILING_LINES) log(`  … and ${failing.length - MAX_FAILING_LINES} more (see the reports)`);
    }
  }
}

/**
 * The report files (and a report on stdout), written at the end from the records read back.
 * A `jsonl` report whose path is the file the records are read from is that file already.
 */
export class ReportFiles implements Reporter {
  /**
   * @param specs - the reports
   * @param recordsFile - the JSON Lines file the records are read back from
   * @param stdout - where a report without a path goes
   */
  constructor(
    private readonly specs: readonly ReportSpec[],
    private readonly recordsFile: string,
    private readonly stdout: DataStream,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /**
   * Write every report; the note of a CSV report asked for by `--report` (what it leaves out,
   * {@link CSV_NOTE}) goes to the log (an `--output-dir` folder has pages.jsonl beside it).
   * @throws OptionsError when a report cannot be written
   */
  onEnd(end: ReportInput): void {
    for (const s of this.specs) {
      if (s.format === 'jsonl' && s.path !== null && sameFile(s.path, this.recordsFile)) continue;
      writeReport(s, end, this.stdout);
      if (s.format === 'csv' && !s.implied) this.log(`${s.path === null ? 'csv on stdout' : path.basename(s.path)}: ${CSV_NOTE}`);
    }
  }
}
