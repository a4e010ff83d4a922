import fs from 'node:fs';
import type { AuditIssue } from '../report/audit.js';
import type { ReportInput, ReportSpec } from '../report/formats.js';
import { renderMarkdownCapped } from '../report/formats/markdown.js';
import type { LogEnv } from '../report/progress.js';
import type { Reporter } from '../report/reporter.js';
import type { DataStream } from './io.js';
import { failingNow } from './reporting.js';
import { printable } from '../util/printable.js';

/** Annotations GitHub shows per level and step. */
const SHOWN_PER_LEVEL = 10;

/** GitHub's limit on the step summary file (bytes). */
const STEP_SUMMARY_LIMIT = 1024 * 1024;

/**
 * On GitHub Actions (`GITHUB_ACTIONS=true`): `::error` / `::warning` annotations on stdout for
 * the most severe issues (an issue that fails the build is an `::error`, whatever its rule's
 * severity; the others by severity, notices not at all; with `--baseline` a known finding is at
 * most a `::warning`), and the markdown summary appended to
 * `$GITHUB_STEP_SUMMARY`.
 */
export class GithubReporter implements Reporter {
  /**
   * @param env - read for `GITHUB_ACTIONS` and `GITHUB_STEP_SUMMARY`
   * @param stdout - where annotations go
   * @param log - the log, for what was left out
   * @param specs - the reports (the step summary points to the HTML report's path)
   * @param stdoutTaken - stdout carries data (`--json`, a report): no annotations then
   */
  constructor(
    private readonly env: LogEnv,
    private readonly stdout: DataStream,
    private readonly log: (line: string) => void,
    private readonly specs: readonly ReportSpec[],
    private readonly stdoutTaken: boolean,
  ) {}

  onEnd(end: ReportInput): void {
    if (this.env.GITHUB_ACTIONS === 'true') {
      // Annotations are stdout lines; when stdout carries data (--json, a report) they would corrupt it.
      if (this.stdoutTaken) this.log('GitHub annotations skipped: stdout carries the --json summary or a report');
      else this.annotations(end);
    }
    const stepSummary = this.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) this.stepSummary(stepSummary, end);
  }

  /** `::error`/`::warning` lines: GitHub shows 10 of each per step, so the 10 most severe of each and a count. */
  private annotations(end: ReportInput): void {
    // Page text (titles, anchor text) is shown escaped (`printable`), as on the terminal: the CI log
    // obeys colour and cursor codes too. Then the workflow command's own escapes (%, CR, LF).
    const esc = (s: string): string => printable(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
    const failing = new Set(failingNow(end));
    // With --baseline, a known finding never fails the build: at most a warning, whatever its rule's severity.
    const known = (i: AuditIssue): boolean => end.isNew !== undefined && !end.isNew(i);
    const levelOf = (i: AuditIssue): string => (failing.has(i) ? 'error' : known(i) && i.severity === 'error' ? 'warning' : i.severity);
    const issues = end.audit.issues.filter((i) => !i.ignored);
    for (const level of ['error', 'warning'] as const) {
      const mine = issues.filter((i) => levelOf(i) === level);
      for (const i of mine.slice(0, SHOWN_PER_LEVEL)) {
        const from = i.referrers[0] ? ` (linked from ${i.referrers[0].url} "${i.referrers[0].text}")` : '';
        this.stdout.write(`::${level} title=spacrawl ${i.rule}::${esc(`${i.url}: ${i.message}${from}`)}\n`);
      }
      if (mine.length > SHOWN_PER_LEVEL) this.log(`${mine.length - SHOWN_PER_LEVEL} more ${level}s not annotated (GitHub shows 10 per step): see the report artifact`);
    }
  }

  /** Append the markdown summary to the step summary file, keeping the whole file under GitHub's 1 MiB limit. */
  private stepSummary(file: string, input: ReportInput): void {
    const where = this.specs.find((s) => s.format === 'html' && s.path)?.path ?? this.specs.find((s) => s.path)?.path ?? 'the crawl report';
    let used = 0;
    try {
      used = fs.statSync(file).size;
    } catch {
      used = 0;
    }
    const budget = STEP_SUMMARY_LIMIT - used - 2;
    if (budget < 512) return;
    try {
      fs.appendFileSync(file, `${renderMarkdownCapped(input, budget, where)}\n`);
    } catch {
      // the step summary is a convenience; the exit code and the reports still stand
    }
  }
}
