/**
 * What `--include` and `--exclude` left out of a crawl, told once at its end: a pattern that
 * matches nothing (a mistyped host in `--include`) otherwise crawls the seed alone and says nothing.
 * @module
 */
import type { PageRecord } from '../model/record.js';
import type { Scope } from '../url/scope.js';

/** Distinct URLs remembered per reason; past it they are counted, not kept (memory stays bounded). */
const MAX_REMEMBERED = 100_000;

/**
 * Counts the distinct linked URLs of the crawl's own sites that the crawl's patterns kept out:
 * excluded by `--exclude`, or matching no `--include` (see `Scope.reason`). URLs of other sites
 * are not counted: the scope, not a pattern, keeps them out.
 */
export class PatternSkips {
  private readonly seen = new Set<string>();
  private excluded = 0;
  private notIncluded = 0;
  private example: string | null = null;

  /** @param scope - the crawl's scope (its `reason` is memoized: each URL is judged once) */
  constructor(private readonly scope: Scope) {}

  /** Count the links of `r` (its `externalLinks`: what the scope kept out) that a pattern left out. */
  note(r: PageRecord): void {
    for (const u of r.externalLinks) {
      if (this.seen.has(u)) continue;
      const why = this.scope.reason(u);
      if (why !== 'excluded' && why !== 'not-included') continue;
      if (this.seen.size < MAX_REMEMBERED) this.seen.add(u);
      if (why === 'excluded') this.excluded++;
      else this.notIncluded++;
      this.example ??= u;
    }
  }

  /**
   * One line for the end of the crawl, or `null` when the patterns left nothing out, e.g.
   * `--include left out 65 linked URLs of the crawl's sites (e.g. http://a.test/about)`, or with
   * both kinds `--include and --exclude left out 9 …: 4 matching --exclude, 5 matching no --include (e.g. …)`.
   */
  summary(): string | null {
    const n = this.excluded + this.notIncluded;
    if (n === 0) return null;
    const urls = `${n} linked URL${n === 1 ? '' : 's'} of the crawl's sites`;
    if (this.notIncluded === 0) return `--exclude left out ${urls} (e.g. ${this.example})`;
    if (this.excluded === 0) return `--include left out ${urls} (e.g. ${this.example})`;
    return `--include and --exclude left out ${urls}: ${this.excluded} matching --exclude, ${this.notIncluded} matching no --include (e.g. ${this.example})`;
  }
}
