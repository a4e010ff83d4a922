/**
 * "Did you mean": the nearest known name to a mistyped command or flag, by edit distance
 * (Levenshtein, from the `fastest-levenshtein` package).
 * @module
 */
import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `input`, when it is near enough to be a typo: at most 2 edits, and
 * fewer than half of the input's length (so `x` does not suggest `demo`).
 * @param input - what the user typed, e.g. `crawll` or `--concurency`
 * @param candidates - the known names, in the same form (`crawl`, `--concurrency`)
 * @returns the suggestion, or `null` when none is close
 */
export function nearestName(input: string, candidates: readonly string[]): string | null {
  if (candidates.length === 0 || input === '') return null;
  const best = closest(input, candidates);
  const d = distance(input, best);
  return d > 0 && d <= 2 && d * 2 < input.length ? best : null;
}

/** The flags a oclif "Nonexistent flag(s)" error names, e.g. `['--concurency']`; empty for other errors. */
export function unknownFlagsIn(message: string): string[] {
  const m = /^Nonexistent flags?: (.+)$/m.exec(message);
  return m ? m[1]!.split(/,\s*/).map((f) => f.trim().split('=')[0]!).filter((f) => f.startsWith('-')) : [];
}
