import fs from 'node:fs';
import { OptionsError } from '../crawl/options.js';
import { SCHEMA_VERSION, type PageRecord } from './record.js';
import type { CrawlSummary } from './summary.js';

/** Report formats `--report` and `export` can write. */
export const REPORT_FORMATS = ['jsonl', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** A parsed `FORMAT[:PATH]`; `path` is `null` for stdout. */
export interface ReportSpec {
  format: ReportFormat;
  path: string | null;
}

/**
 * Parse `--report FORMAT[:PATH]`.
 * @throws OptionsError for an unknown format
 */
export function parseReportSpec(spec: string): ReportSpec {
  const i = spec.indexOf(':');
  const format = (i < 0 ? spec : spec.slice(0, i)).trim().toLowerCase();
  const path = i < 0 ? null : spec.slice(i + 1) || null;
  if (!(REPORT_FORMATS as readonly string[]).includes(format)) {
    throw new OptionsError(`unknown report format ${JSON.stringify(format)} (known: ${REPORT_FORMATS.join(', ')})`);
  }
  return { format: format as ReportFormat, path };
}

/** The text of one report. `jsonl`: one record per line; `json`: `{schemaVersion, summary, pages}`. */
export function renderReport(format: ReportFormat, records: readonly PageRecord[], summary: CrawlSummary): string {
  switch (format) {
    case 'jsonl':
      return records.map((r) => `${JSON.stringify(r)}\n`).join('');
    case 'json':
      return `${JSON.stringify({ schemaVersion: SCHEMA_VERSION, summary, pages: records }, null, 2)}\n`;
  }
}

/**
 * Write one report to its path, or to stdout when the spec has none.
 * @throws OptionsError when the file cannot be written (one line)
 */
export function writeReport(spec: ReportSpec, records: readonly PageRecord[], summary: CrawlSummary): void {
  const text = renderReport(spec.format, records, summary);
  if (spec.path === null) {
    process.stdout.write(text);
    return;
  }
  try {
    fs.writeFileSync(spec.path, text);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new OptionsError(`cannot write ${spec.path}: ${e.code ?? e.message}`);
  }
}
