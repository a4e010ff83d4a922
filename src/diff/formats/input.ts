import type { CrawlDiff } from '../types.js';

/** What a diff report is made from. */
export interface DiffReportInput {
  diff: CrawlDiff;
  /** Parsed `--fail-on` (rule ids, `none`, `warnings`): marks failing findings, gives the verdict. */
  failOn: readonly string[];
  /** Absolute path the report is written to, or `null` for stdout: images are linked relative to its folder. */
  outPath?: string | null;
}

/** One diff report format: a pure function from the diff to the file's text. */
export type DiffFormatter = (input: DiffReportInput) => string;
