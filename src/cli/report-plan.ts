/**
 * The crawl command's reporting options and their checks, made before anything is crawled: known
 * formats and rules, at most one report on stdout, writable paths, valid ignore patterns. Loads
 * none of the report formats (see `reporting.ts` for the reporters that write them).
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { OptionsError } from '../crawl/options-error.js';
import { parseFailOn } from '../diff/findings.js';
import type { Budget } from '../report/budget.js';
import { parseReportSpec, REPORT_FILE_NAMES, type ReportSpec } from '../report/report-spec.js';
import { compilePattern } from '../url/pattern.js';
import { checkWritableFile, describeFsError, ensureWritableDir } from '../util/files.js';

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
  /** `--budget`: limits on the pages' vitals for the `budget` rule, or `null` (absent: none). */
  budget?: Budget | null;
  /** `--json` owns stdout. */
  json: boolean;
  /** Absolute `--screenshots` folder, or `null`. */
  screenshotsDir: string | null;
}

/**
 * Check the reporting flags before anything is crawled: known formats and rules, at most one
 * stream on stdout, writable paths, valid ignore patterns.
 * @throws OptionsError with a one-line message (DiffInputError for an unknown `--fail-on` rule; both are usage errors, exit 2)
 */
export function planReports(o: ReportingOptions): { specs: ReportSpec[]; ignore: RegExp[] } {
  const specs = o.reports.map(parseReportSpec);
  if (o.outputDir) {
    try {
      ensureWritableDir(o.outputDir);
    } catch (err) {
      throw new OptionsError(`cannot write to --output-dir ${o.outputDir}: ${describeFsError(err)}`);
    }
    for (const [format, fileName] of Object.entries(REPORT_FILE_NAMES)) specs.push({ format, path: path.join(o.outputDir, fileName), implied: true });
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
  // The one --fail-on grammar (`new` comes from parseGateFailOn, which refuses it without a baseline).
  parseFailOn(o.failOn.join(','));
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
