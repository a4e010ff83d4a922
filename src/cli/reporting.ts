/**
 * The crawl's reporters at its end: the issue table on the log and the report files. Their
 * options and checks, made before the crawl, are in `report-plan.ts`.
 * @module
 */
import path from 'node:path';
import { failingIssues, RULES, type AuditIssue } from '../report/audit.js';
import type { ReportInput, ReportSpec, TextOut } from '../report/formats.js';
import { CSV_NOTE } from '../report/formats/csv-note.js';
import { isClickSubject } from '../report/click-errors.js';
import type { Reporter } from '../report/reporter.js';
import type { DataStream } from './io.js';
import { sameFile } from './records-file.js';

export { DEFAULT_FAIL_ON } from './cli-options.js';

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
 * ` after working "Clojure" (menuitem in menu)` for a finding raised while click discovery worked
 * that control (see `clickSubject`): the page's record holds it under `clickDiscovery.errors`, not
 * with the errors of the page as loaded. Else `''`.
 */
function clickedBy(issue: Pick<AuditIssue, 'subject'>): string {
  return isClickSubject(issue.subject) ? ` ${issue.subject!}` : '';
}

/**
 * The issue table on the log after the reports: issue counts by rule, each with the URL of its
 * first finding unless the failing list below names them (`e.g.` when there are more), how many
 * were ignored, and what fails the build by name (a person at the terminal should not need a
 * report to know where to look).
 */
export class IssueTable implements Reporter {
  constructor(private readonly log: (line: string) => void) {}

  onEnd(end: ReportInput): void {
    const result = end.audit;
    const failing = failingNow(end);
    const failingRules = new Set(failing.map((i) => i.rule));
    const rows = Object.entries(result.counts);
    const log = this.log;
    if (rows.length) {
      log('issues:');
      for (const [rule, n] of rows) {
        const first = failingRules.has(rule as AuditIssue['rule']) ? undefined : result.issues.find((i) => i.rule === rule && !i.ignored);
        const where = first ? `  ${n > 1 ? 'e.g. ' : ''}${first.url}${clickedBy(first)}` : '';
        log(`  ${RULES[rule as keyof typeof RULES].severity.padEnd(7)} ${rule.padEnd(20)} ${String(n).padEnd(4)}${where}`.trimEnd());
      }
    }
    const ignored = result.issues.filter((i) => i.ignored).length;
    if (ignored) log(`  (${ignored} ignored by --ignore-url / .spacrawlignore)`);
    if (failing.length) {
      log(`failing (${failing.length}):`);
      for (const i of failing.slice(0, MAX_FAILING_LINES)) {
        const from = i.referrers[0];
        const more = i.referrers.length > 1 ? ` (+${i.referrers.length - 1} more)` : '';
        log(`  ${i.rule.padEnd(14)} ${i.url}${clickedBy(i)}  ${i.message}${from ? ` ← ${from.url}${from.text ? ` "${from.text.slice(0, 60)}"` : ''}${more}` : ''}`);
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
   * @param log - told the CSV note (see `onEnd`)
   * @param writeReport - `writeReport` of `report/formats.ts`, which the caller loads only when `specs` is not empty
   */
  constructor(
    private readonly specs: readonly ReportSpec[],
    private readonly recordsFile: string,
    private readonly stdout: DataStream,
    private readonly log: (line: string) => void,
    private readonly writeReport: (spec: ReportSpec, input: ReportInput, stdout: TextOut) => void,
  ) {}

  /**
   * Write every report; the note of a CSV report asked for by `--report` (what it leaves out,
   * {@link CSV_NOTE}) goes to the log (an `--output-dir` folder has pages.jsonl beside it).
   * @throws OptionsError when a report cannot be written
   */
  onEnd(end: ReportInput): void {
    for (const s of this.specs) {
      if (s.format === 'jsonl' && s.path !== null && sameFile(s.path, this.recordsFile)) continue;
      this.writeReport(s, end, this.stdout);
      if (s.format === 'csv' && !s.implied) this.log(`${s.path === null ? 'csv on stdout' : path.basename(s.path)}: ${CSV_NOTE}`);
    }
  }
}
