/**
 * What identifies a crawl, from its options: its seeds, scope and URL rules. How two keys are
 * compared, and how a durable or shared store is joined only by the same crawl (unless
 * forced), is the stores' policy (`store/policy.ts`).
 * @module
 */
import type { CrawlKey } from '../store/policy.js';
import type { CrawlOptions } from './options.js';
import { CRAWL_OPTIONS as S } from './option-table.js';
import type { HashRouteMode } from '../url/normalize.js';
import type { ScopeMode } from '../url/scope.js';

export type { CrawlKey } from '../store/policy.js';

/**
 * What identifies a durable or shared crawl: its seeds, scope and URL rules. Resuming or
 * joining with other values is refused unless `--force`.
 */
export function crawlKeyOf(o: CrawlOptions): CrawlKey {
  return {
    seeds: o.seeds,
    scope: o.scope ?? S.scope.default,
    include: o.include ?? [],
    exclude: o.exclude ?? [],
    hashRoutes: o.hashRoutes ?? S.hashRoutes.default,
    keepParams: o.keepParams ?? S.keepParams.default,
    stripParams: o.stripParams ?? [],
    foldTrailingSlash: o.foldTrailingSlash ?? S.foldTrailingSlash.default,
    foldIndex: o.foldIndex ?? S.foldIndex.default,
  };
}

/**
 * The inverse of {@link crawlKeyOf}: a worker that joins a shared crawl without seeds takes
 * the stored crawl's seeds, scope and URL rules (the stored values win over `o`'s).
 * @returns a copy of `o` with the key's values
 */
export function applyCrawlKey(o: CrawlOptions, key: CrawlKey): CrawlOptions {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return {
    ...o,
    seeds: strings(key.seeds),
    scope: key.scope as ScopeMode,
    include: strings(key.include),
    exclude: strings(key.exclude),
    hashRoutes: (typeof key.hashRoutes === 'string' ? key.hashRoutes : S.hashRoutes.default) as HashRouteMode,
    keepParams: key.keepParams === true,
    stripParams: strings(key.stripParams),
    foldTrailingSlash: key.foldTrailingSlash === true,
    foldIndex: key.foldIndex === true,
  };
}
