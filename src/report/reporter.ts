import type { PageRecord } from '../model/record.js';
import type { ReportInput } from './input.js';

/**
 * A consumer of a crawl's record stream: the JSON Lines file, the terminal log, the summary,
 * the report files, the CI annotations. Every method is optional; they are called in this order:
 * {@link onRecord} once per record as the crawl decides it, {@link onRecordsEnd} once when no
 * record will follow (flush and close what was streamed: after it, the JSON Lines file is
 * complete and can be read back), then {@link onEnd} once with the crawl's summary, its audit and
 * its records, readable again. A reporter keeps what it needs, never every record.
 * (Modelled on Playwright's `ReporterV2`: `onTestEnd`, `onEnd`.)
 */
export interface Reporter {
  onRecord?(r: PageRecord): void;
  onRecordsEnd?(): void;
  onEnd?(end: ReportInput): void;
}
