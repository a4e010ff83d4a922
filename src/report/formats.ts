import fs from 'node:fs';
import path from 'node:path';
import { OptionsError } from '../crawl/options.js';
import { describeFsError } from '../util/files.js';
import type { AuditResult } from './audit.js';
import { renderCsv } from './formats/csv.js';
import { renderHtml } from './formats/html.js';
import { renderJson } from './formats/json.js';
import { renderJsonl } from './formats/jsonl.js';
import { renderJunit } from './formats/junit.js';
import { renderMarkdown } from './formats/markdown.js';
import { renderSitemap } from './formats/sitemap.js';
import type { PageRecord } from '../model/record.js';
import type { CrawlSummary } from '../model/summary.js';

/** Everything a report is made from. */
export interface ReportInput {
  records: readonly PageRecord[];
  summary: CrawlSummary;
  audit: AuditResult;
  /** `--fail-on` rule ids (or `none` / `warnings`), for JUnit failures and the markdown verdict. */
  failOn: readonly string[];
  /** Absolute screenshots folder when `--screenshots` was given, else `null`. */
  screenshotsDir: string | null;
}

/** One report format: a pure function from the crawl to the file's text. */
export interface ReportFormatter {
  /** File name used by `--output-dir`. */
  fileName: string;
  /**
   * @param input - the crawl
   * @param outPath - absolute path the text will be written to, or `null` for stdout (for relative links, e.g. to screenshots)
   */
  render(input: ReportInput, outPath: string | null): string;
}

/** The report formats, by name. Each lives in `./formats/<name>.ts`. */
export const FORMATTERS: Record<string, ReportFormatter> = {
  jsonl: { fileName: 'pages.jsonl', render: renderJsonl },
  json: { fileName: 'report.json', render: renderJson },
  csv: { fileName: 'pages.csv', render: renderCsv },
  html: { fileName: 'index.html', render: renderHtml },
  junit: { fileName: 'junit.xml', render: renderJunit },
  sitemap: { fileName: 'sitemap.xml', render: renderSitemap },
  markdown: { fileName: 'summary.md', render: renderMarkdown },
};

/** A parsed `FORMAT[:PATH]`; `path` is `null` for stdout. */
export interface ReportSpec {
  format: string;
  path: string | null;
}

/**
 * Parse `--report FORMAT[:PATH]`.
 * @throws OptionsError for an unknown format
 */
export function parseReportSpec(spec: string): ReportSpec {
  const i = spec.indexOf(':');
  const format = (i < 0 ? spec : spec.slice(0, i)).trim().toLowerCase();
  const p = i < 0 ? null : spec.slice(i + 1) || null;
  if (!FORMATTERS[format]) throw new OptionsError(`unknown report format ${JSON.stringify(format)} (known: ${Object.keys(FORMATTERS).join(', ')})`);
  return { format, path: p === null ? null : path.resolve(p) };
}

/**
 * Write one report to its path, or to stdout when the spec has none.
 * @throws OptionsError when the file cannot be written (one line)
 */
export function writeReport(spec: ReportSpec, input: ReportInput): void {
  const text = FORMATTERS[spec.format]!.render(input, spec.path);
  if (spec.path === null) {
    process.stdout.write(text);
    return;
  }
  try {
    fs.writeFileSync(spec.path, text);
  } catch (err) {
    throw new OptionsError(`cannot write ${spec.path}: ${describeFsError(err)}`);
  }
}
