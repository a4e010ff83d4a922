/**
 * `--visual-threshold PERCENT` read into a ratio, in a module of its own: `crawl --baseline` and
 * `diff` check the flag before they load the image comparison (`visual.ts`, with pngjs and
 * pixelmatch). `visual.ts` re-exports it.
 * @module
 */
import { DEFAULT_VISUAL_THRESHOLD } from './defaults.js';
import { DiffInputError } from './errors.js';

/**
 * Parse `--visual-threshold PERCENT` (0 to 100) into a ratio; absent = {@link DEFAULT_VISUAL_THRESHOLD}.
 * @param v - the flag's value as typed (a percent, e.g. `0.5`), or `undefined` when not given
 * @returns the changed-pixel ratio (0 to 1; `0.5` gives 0.005)
 * @throws DiffInputError (`bad-option`) otherwise
 */
export function parseVisualThreshold(v: string | undefined): number {
  if (v === undefined) return DEFAULT_VISUAL_THRESHOLD;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new DiffInputError('bad-option', `--visual-threshold must be a percent from 0 to 100, got ${JSON.stringify(v)}`);
  return n / 100;
}
