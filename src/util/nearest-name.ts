/**
 * "Did you mean": the nearest known name to a mistyped command, flag, rule or format, by edit
 * distance (Levenshtein, from the `fastest-levenshtein` package).
 * @module
 */
import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `input`, when it is near enough to be a typo: two neighbouring
 * characters swapped, or at most 2 edits and fewer than half of the input's length (so `x` does
 * not suggest `demo`).
 * @param input - what the user typed, e.g. `crawll`, `--concurency` or `broken-links`
 * @param candidates - the known names, in the same form (`crawl`, `--concurrency`, `broken-link`)
 * @returns the suggestion, or `null` when none is close
 */
export function nearestName(input: string, candidates: readonly string[]): string | null {
  if (candidates.length === 0 || input === '') return null;
  // Two neighbouring letters swapped is one slip of the fingers (`nwe` for `new`), though
  // Levenshtein counts it as two edits.
  const swapped = candidates.find((c) => isTransposition(input, c));
  if (swapped !== undefined) return swapped;
  const best = closest(input, candidates);
  const d = distance(input, best);
  return d > 0 && d <= 2 && d * 2 < input.length ? best : null;
}

/** `true` when `a` is `b` with two neighbouring characters swapped. */
function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  let i = 0;
  while (a[i] === b[i]) i++;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** ` (did you mean "X"?)` for a near candidate, else `''`: the tail of a usage error. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const near = nearestName(input, candidates);
  return near === null ? '' : ` (did you mean ${JSON.stringify(near)}?)`;
}
