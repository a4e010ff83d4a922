import fs from 'node:fs';
import path from 'node:path';
import { OptionsError } from '../crawl/options.js';
import { checkWritableFile, describeFsError, ensureWritableDir } from '../util/files.js';
import { audit, failingIssues, RULES, type AuditIssue, type AuditResult } from '../report/audit.js';
import { FORMATTERS, parseReportSpec, writeReport, type ReportInput, type ReportSpec } from '../report/formats.js';
import { renderMarkdownCapped } from '../report/formats/markdown.js';
import type { PageRecord } from '../model/record.js';
import type { CrawlSummary } from '../model/summary.js';
import { compilePattern } from '../url/scope.js';

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
  /** `--json` owns stdout. */
  json: boolean;
  /** Absolute `--screenshots` folder, or `null`. */
  screenshotsDir: string | null;
}

/** Default `--fail-on`: what the crawl command has always failed on. */
export const DEFAULT_FAIL_ON: readonly string[] = ['broken-link', 'server-error'];

/**
 * Check the reporting flags before anything is crawled: known formats and rules, at most one
 * stream on stdout, writable paths, valid ignore patterns.
 * @throws OptionsError with a one-line message
 */
export function planReports(o: ReportingOptions): { specs: ReportSpec[]; ignore: RegExp[] } {
  const specs = o.reports.map(parseReportSpec);
  if (o.outputDir) {
    try {
      ensureWritableDir(o.outputDir);
    } catch (err) {
      throw new OptionsError(`cannot write to --output-dir ${o.outputDir}: ${describeFsError(err)}`);
    }
    for (const [format, f] of Object.entries(FORMATTERS)) specs.push({ format, path: path.join(o.outputDir, f.fileName) });
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
  const known = new Set([...Object.keys(RULES), 'none', 'warnings']);
  for (const r of o.failOn) if (!known.has(r)) throw new OptionsError(`unknown --fail-on rule ${JSON.stringify(r)} (known: ${[...known].join(', ')})`);
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

/** What {@link finishReports} decided. */
export interface ReportOutcome {
  audit: AuditResult;
  /** Non-ignored issues of a `--fail-on` rule. */
  failing: AuditIssue[];
}

/** Failing issues named one per line on the log after the issue table. */
const MAX_FAILING_LINES = 10;

/**
 * After the crawl: audit the records, write every report, print the issue table to the log,
 * and, on GitHub Actions, annotations and the step summary.
 */
export function finishReports(
  records: readonly PageRecord[],
  summary: CrawlSummary,
  o: ReportingOptions,
  plan: { specs: ReportSpec[]; ignore: RegExp[] },
  log: (line: string) => void,
): ReportOutcome {
  const result = audit(records, { slowMs: o.slowMs, ignore: plan.ignore });
  const failOn = o.failOnWarnings ? [...o.failOn, 'warnings'] : o.failOn;
  const input: ReportInput = { records, summary, audit: result, failOn, screenshotsDir: o.screenshotsDir };
  for (const s of plan.specs) writeReport(s, input);
  const failing = failingIssues(result, failOn);
  const rows = Object.entries(result.counts);
  if (rows.length) {
    log('issues:');
    for (const [rule, n] of rows) log(`  ${RULES[rule as keyof typeof RULES].severity.padEnd(7)} ${rule.padEnd(20)} ${n}`);
  }
  const ignored = result.issues.filter((i) => i.ignored).length;
  if (ignored) log(`  (${ignored} ignored by --ignore-url / .spacrawlignore)`);
  // What fails the build, by name: a person at the terminal should not need a report for that.
  if (failing.length) {
    log(`failing (${failing.length}):`);
    for (const i of failing.slice(0, MAX_FAILING_LINES)) {
      const from = i.referrers[0];
      const more = i.referrers.length > 1 ? ` (+${i.referrers.length - 1} more)` : '';
      log(`  ${i.rule.padEnd(14)} ${i.url}  ${i.message}${from ? ` ← ${from.url}${from.text ? ` "${from.text.slice(0, 60)}"` : ''}${more}` : ''}`);
    }
    if (failing.length > MAX_FAILING_LINES) log(`  … and ${failing.length - MAX_FAILING_LINES} more (see the reports)`);
  }
  if (process.env.GITHUB_ACTIONS === 'true') {
    // Annotations are stdout lines; when stdout carries data (--json, a report) they would corrupt it.
    if (o.json || plan.specs.some((s) => s.path === null)) log('GitHub annotations skipped: stdout carries the --json summary or a report');
    else githubAnnotations(result.issues.filter((i) => !i.ignored), log);
  }
  const stepSummary = process.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) githubStepSummary(stepSummary, input, plan.specs);
  return { audit: result, failing };
}

/** `::error`/`::warning` lines: GitHub shows 10 of each per step, so the 10 most severe of each and a count. */
function githubAnnotations(issues: readonly AuditIssue[], log: (line: string) => void): void {
  const esc = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  for (const level of ['error', 'warning'] as const) {
    const mine = issues.filter((i) => i.severity === level);
    for (const i of mine.slice(0, 10)) {
      const from = i.referrers[0] ? ` (linked from ${i.referrers[0].url} "${i.referrers[0].text}")` : '';
      process.stdout.write(`::${level} title=spacrawl ${i.rule}::${esc(`${i.url}: ${i.message}${from}`)}\n`);
    }
    if (mine.length > 10) log(`${mine.length - 10} more ${level}s not annotated (GitHub shows 10 per step): see the report artifact`);
  }
}

/** Append the markdown summary to `$GITHUB_STEP_SUMMARY`, keeping the whole file under GitHub's 1 MiB limit. */
function githubStepSummary(file: string, input: ReportInput, specs: readonly ReportSpec[]): void {
  const where = specs.find((s) => s.format === 'html' && s.path)?.path ?? specs.find((s) => s.path)?.path ?? 'the crawl report';
  let used = 0;
  try {
    used = fs.statSync(file).size;
  } catch {
    used = 0;
  }
  const budget = 1024 * 1024 - used - 2;
  if (budget < 512) return;
  try {
    fs.appendFileSync(file, `${renderMarkdownCapped(input, budget, where)}\n`);
  } catch {
    // the step summary is a convenience; the exit code and the reports still stand
  }
}
