/**
 * The diff's report formats, by name, and writing one (`--report FORMAT[:PATH]` is parsed in `spec.ts`).
 * @module
 */
import fs from 'node:fs';
import { DiffInputError } from '../errors.js';
import { renderDiffHtml } from './html.js';
import type { DiffFormatter, DiffReportInput } from './input.js';
import { renderDiffJson } from './json.js';
import { renderDiffJunit } from './junit.js';
import { renderDiffMarkdown } from './markdown.js';
import type { DiffFormatName, DiffReportSpec } from './spec.js';

export type { DiffFormatter, DiffReportInput } from './input.js';
export { parseDiffReportSpec, type DiffReportSpec } from './spec.js';

/** The diff report formats, declared for exactly the names of `spec.ts`: one missing or extra fails to compile. */
const REGISTRY: Readonly<Record<DiffFormatName, DiffFormatter>> = {
  markdown: (input) => renderDiffMarkdown(input),
  json: renderDiffJson,
  html: renderDiffHtml,
  junit: renderDiffJunit,
};

/** The diff report formats. Each lives in `./<name>.ts`; names and `--report` parsing are in `./spec.ts`. */
export const DIFF_FORMATTERS: Readonly<Record<string, DiffFormatter>> = REGISTRY;

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
