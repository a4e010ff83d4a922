import type { PageRecord } from '../model/record.js';
import type { CrawlSummary } from '../model/summary.js';
import type { AuditIssue, AuditResult } from './audit.js';
import type { Budget } from './budget.js';
import type { RecordSource } from './record-source.js';

export { reReadable, type RecordSource } from './record-source.js';

/** Everything a report is made from. */
export interface ReportInput {
  /** Every record of the crawl, in crawl order (an array, or a re-readable source). */
  records: RecordSource;
  summary: CrawlSummary;
  audit: AuditResult;
  /** `--fail-on` rule ids (or `none` / `warnings`), for JUnit failures and the markdown verdict. */
  failOn: readonly string[];
  /** Absolute screenshots folder when `--screenshots` was given, else `null`. */
  screenshotsDir: string | null;
  /**
   * With `crawl --baseline`: whether an issue is new (absent from the baseline). Reports mark
   * new and known issues, and only new ones fail. Absent without a baseline.
   */
  isNew?: (issue: AuditIssue) => boolean;
  /**
   * With `crawl --baseline`: whether an issue belongs to a check that did not run in the
   * baseline (`--a11y` in this crawl only …): neither new nor known, never failing. Absent: none.
   */
  notCompared?: (issue: AuditIssue) => boolean;
  /** `--budget` limits, shown next to each vital's worst pages; absent or `null`: none. */
  budget?: Budget | null;
}

/** Where a report's text goes, piece by piece (a file, stdout, a string in tests). */
export interface ReportSink {
  write(text: string): void;
}

/**
 * One report format: writes the crawl's report to a sink as it reads the records, so that no
 * format holds every record (or the whole text) in memory.
 */
export interface ReportFormatter {
  /** File name used by `--output-dir`. */
  fileName: string;
  /**
   * @param input - the crawl
   * @param sink - where the text goes, in order
   * @param outPath - absolute path the text is written to, or `null` for stdout (for relative links, e.g. to screenshots)
   */
  write(input: ReportInput, sink: ReportSink, outPath: string | null): void;
  /** The same text as one string (for the library and tests). */
  render(input: ReportInput, outPath: string | null): string;
}
