/**
 * `diff --report FORMAT[:PATH]` and the diff's format names, in a module of its own: `diff` checks
 * its report flags before it loads the formats themselves (`index.ts`, with their HTML and XML
 * writers), which re-exports {@link parseDiffReportSpec} and {@link DiffReportSpec}.
 * @module
 */
import path from 'node:path';
import { DiffInputError } from '../errors.js';
import { didYouMean } from '../../util/nearest-name.js';

/** The diff's report formats, in the order error messages list them. */
export const DIFF_FORMAT_NAMES = ['markdown', 'json', 'html', 'junit'] as const;

/** A diff report format's name: `markdown`, `json`, `html` or `junit`. */
export type DiffFormatName = (typeof DIFF_FORMAT_NAMES)[number];

/** A parsed `FORMAT[:PATH]`; `path` is absolute, or `null` for stdout. */
export interface DiffReportSpec {
  format: string;
  path: string | null;
}

/**
 * Parse `--report FORMAT[:PATH]` of `diff`.
 * @param spec - the flag's value, e.g. `html:diff.html`, or `markdown` for stdout
 * @returns the format in lower case, and the path made absolute (from the working folder) or `null`
 * @throws DiffInputError (`bad-option`) for an unknown format
 */
export function parseDiffReportSpec(spec: string): DiffReportSpec {
  const i = spec.indexOf(':');
  const format = (i < 0 ? spec : spec.slice(0, i)).trim().toLowerCase();
  const p = i < 0 ? null : spec.slice(i + 1) || null;
  const known: readonly string[] = DIFF_FORMAT_NAMES;
  if (!known.includes(format)) {
    throw new DiffInputError('bad-option', `unknown report format ${JSON.stringify(format)} for diff${didYouMean(format, known)} (known: ${known.join(', ')})`);
  }
  return { format, path: p === null ? null : path.resolve(p) };
}
