/**
 * The diff's report formats, by name, and `--report FORMAT[:PATH]` for `diff`.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { DiffInputError } from '../errors.js';
import { renderDiffHtml } from './html.js';
import type { DiffFormatter, DiffReportInput } from './input.js';
import { renderDiffJson } from './json.js';
import { renderDiffJunit } from './junit.js';
import { renderDiffMarkdown } from './markdown.js';
import { didYouMean } from '../../util/nearest-name.js';

export type { DiffFormatter, DiffReportInput } from './input.js';

/** The diff report formats. Each lives in `./<name>.ts`. */
export const DIFF_FORMATTERS: Readonly<Record<string, DiffFormatter>> = {
  markdown: (input) => renderDiffMarkdown(input),
  json: renderDiffJson,
  html: renderDiffHtml,
  junit: renderDiffJunit,
};

/** A parsed `FORMAT[:PATH]`; `path` is absolute, or `null` for stdout. */
export interface DiffReportSpec {
  format: string;
  path: string | null;
}

/**
 * Parse `--report FORMAT[:PATH]` of `diff`.
 * @throws DiffInputError (`bad-option`) for an unknown format
 */
export function parseDiffReportSpec(spec: string): DiffReportSpec {
  const i = spec.indexOf(':');
  const format = (i < 0 ? spec : spec.slice(0, i)).trim().toLowerCase();
  const p = i < 0 ? null : spec.slice(i + 1) || null;
  if (!DIFF_FORMATTERS[format]) {
    throw new DiffInputError('bad-option', `unknown report format ${JSON.stringify(format)} for diff${didYouMean(format, Object.keys(DIFF_FORMATTERS))} (known: ${Object.keys(DIFF_FORMATTERS).join(', ')})`);
  }
  return { format, path: p === null ? null : path.resolve(p) };
}

/**
 * Render one report and write it to its path, or to `stdout` when it has none.
 * @param stdout - the stream for a report without a path (default `process.stdout`; the CLI gives its own `io.stdout`)
 * @throws DiffInputError (`bad-option`) when the file cannot be written, with the fs error code
 */
export function writeDiffReport(spec: DiffReportSpec, input: DiffReportInput, stdout: { write(text: string): unknown } = process.stdout): void {
  const text = DIFF_FORMATTERS[spec.format]!({ ...input, outPath: spec.path });
  if (spec.path === null) {
    stdout.write(text);
    return;
  }
  try {
    fs.writeFileSync(spec.path, text);
  } catch (err) {
    throw new DiffInputError('bad-option', `cannot write ${spec.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  }
}
