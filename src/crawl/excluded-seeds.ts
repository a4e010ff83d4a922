/**
 * A seed that the crawl's own `exclude` patterns exclude: a contradiction in the command, refused
 * before anything is requested.
 * @module
 */
import { normalize, type NormalizeOptions } from '../url/normalize.js';
import { compilePattern } from '../url/pattern.js';
import { OptionsError } from './options-error.js';

/**
 * Refuse seeds that an `exclude` pattern matches (`--exclude`): the scope never crawls a URL that
 * matches one (exclude wins over everything, see `url/scope.ts`), and a seed crawled anyway would
 * be the one page the patterns meant to keep out, with its links followed. Patterns are matched
 * against the seed's canonical URL, as the scope matches every other URL. Seeds that cannot be
 * normalized are left to the crawl's own checks.
 * @param seeds - the crawl's seed URLs, as given
 * @param o - the crawl's `exclude` patterns (globs or `/regex/`) and normalization options
 * @throws OptionsError naming the first excluded seed and the pattern that excludes it
 * @throws InvalidPatternError for a pattern that does not compile
 */
export function checkSeedsNotExcluded(seeds: readonly string[], o: { exclude: readonly string[]; normalize?: NormalizeOptions }): void {
  if (o.exclude.length === 0) return;
  const patterns = o.exclude.map((p) => ({ p, re: compilePattern(p) }));
  for (const seed of seeds) {
    let canonical: string;
    try {
      canonical = normalize(seed, o.normalize);
    } catch {
      continue;
    }
    const hit = patterns.find(({ re }) => re.test(canonical));
    if (hit) throw new OptionsError(`seed ${seed} matches --exclude ${JSON.stringify(hit.p)}: an excluded URL is never crawled (drop the seed or narrow the pattern)`);
  }
}
