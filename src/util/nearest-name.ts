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

/**
 * The dash-separated names of which `input` is a short form, at most `max`: each of its words
 * begins the candidate's word at the same place or abbreviates it (its first letter, and the
 * rest in order: `fmt` for `format`), e.g. `--log` for `--log-format`, `--out-dir` for
 * `--output-dir`; of those, only the closest (whole words before beginnings before abbreviations). For flags, where a typo's edit distance suggests the wrong name (`--log` is two
 * edits from `--slow`).
 * @param input - what the user typed, e.g. `--log-fmt`
 * @param candidates - the known names, in the same form (`--log-format`)
 */
export function expansionsOf(input: string, candidates: readonly string[], max = 3): string[] {
  const words = (s: string): string[] => s.replace(/^-+/, '').split('-');
  const typed = words(input);
  if (typed.some((w) => w === '')) return [];
  // How closely `w` stands for `c`: 0 the same word, 1 its beginning, 2 an abbreviation, 3 not at all.
  const tier = (w: string, c: string): number => {
    if (w === c) return 0;
    if (c.startsWith(w)) return 1;
    if (w[0] !== c[0]) return 3;
    let at = 1;
    for (const ch of w.slice(1)) {
      at = c.indexOf(ch, at) + 1;
      if (at === 0) return 3;
    }
    return 2;
  };
  const ranked = candidates.flatMap((c) => {
    const cw = words(c);
    if (c === input || cw.length < typed.length) return [];
    const t = Math.max(...typed.map((w, i) => tier(w, cw[i]!)));
    return t < 3 ? [{ c, t }] : [];
  });
  // Only the closest: `--log` is `--log-format`, not also `--login`.
  const best = Math.min(...ranked.map((r) => r.t));
  return ranked.filter((r) => r.t === best).map((r) => r.c).slice(0, max);
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
