import type { PageRecord } from '../model/record.js';
import type { CrawlSummary } from '../model/summary.js';
import type { AuditResult } from './audit.js';

/**
 * The records of a crawl, readable more than once: every iteration starts again at the first
 * record. An array is one; so is a JSON Lines file read back line by line ({@link
 * JsonlRecordSource}), which keeps one record in memory at a time. Batch reports and the audit
 * read their records in several passes through this, never all at once.
 */
export type RecordSource = Iterable<PageRecord>;

/**
 * A source that can be read again: `src` itself unless it is a one-shot iterator (a generator,
 * whose second iteration would be empty), which is read once into an array.
 */
export function reReadable(src: Iterable<PageRecord>): RecordSource {
  const it = src[Symbol.iterator]();
  if ((it as unknown) !== src) return src;
  const all: PageRecord[] = [];
  for (let n = it.next(); !n.done; n = it.next()) all.push(n.value);
  return all;
}

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
