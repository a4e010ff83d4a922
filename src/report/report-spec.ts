/**
 * `--report FORMAT[:PATH]` and the report formats' names and file names, in a module of its own:
 * the CLI checks its report flags before it loads the formats themselves (`formats.ts`, with
 * their CSV and XML writers). `formats.ts` builds its registry on {@link REPORT_FILE_NAMES} and
 * re-exports {@link parseReportSpec} and {@link ReportSpec}.
 * @module
 */
import path from 'node:path';
import { OptionsError } from '../crawl/options-error.js';
import { didYouMean } from '../util/nearest-name.js';

/**
 * The report formats, by name, each with the file name it gets in an `--output-dir` folder; in
 * the order `--output-dir` writes them and error messages list them.
 */
export const REPORT_FILE_NAMES = {
  jsonl: 'pages.jsonl',
  json: 'report.json',
  csv: 'pages.csv',
  html: 'index.html',
  junit: 'junit.xml',
  sitemap: 'sitemap.xml',
  markdown: 'summary.md',
} as const;

/** A report format's name: `jsonl`, `json`, `csv`, `html`, `junit`, `sitemap` or `markdown`. */
export type ReportFormatName = keyof typeof REPORT_FILE_NAMES;

/** A parsed `FORMAT[:PATH]`; `path` is `null` for stdout. */
export interface ReportSpec {
  format: string;
  path: string | null;
  /** `true` for a report `--output-dir` adds (not asked for by `--report`). */
  implied?: true;
}

/**
 * Parse `--report FORMAT[:PATH]`.
 * @param spec - the flag's value, e.g. `html:out/report.html`, or `json` for stdout
 * @returns the format in lower case, and the path made absolute (from the working folder) or `null`
 * @throws OptionsError for an unknown format, or a comma list of formats (the flag is given once per report)
 */
export function parseReportSpec(spec: string): ReportSpec {
  const i = spec.indexOf(':');
  const format = (i < 0 ? spec : spec.slice(0, i)).trim().toLowerCase();
  const p = i < 0 ? null : spec.slice(i + 1) || null;
  const known = Object.keys(REPORT_FILE_NAMES);
  // `--fail-on` takes a comma list; `--report` is given once per report (each may have its own PATH).
  const listed = format.split(',').map((f) => f.trim());
  if (listed.length > 1 && listed.every((f) => Object.hasOwn(REPORT_FILE_NAMES, f))) {
    const each = listed.map((f) => `--report ${f}:${REPORT_FILE_NAMES[f as ReportFormatName]}`).join(' ');
    throw new OptionsError(`--report takes one format: give it once per report, each with its PATH (${each})`);
  }
  if (!Object.hasOwn(REPORT_FILE_NAMES, format)) throw new OptionsError(`unknown report format ${JSON.stringify(format)}${didYouMean(format, known)} (known: ${known.join(', ')})`);
  return { format, path: p === null ? null : path.resolve(p) };
}
