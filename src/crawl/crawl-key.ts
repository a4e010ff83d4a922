/**
 * What identifies a crawl (its seeds, scope and URL rules), and how two of them are compared:
 * a durable or shared store is joined only by the same crawl (unless forced).
 * @module
 */
import type { CrawlOptions } from './options.js';
import { CRAWL_OPTIONS as S } from './option-table.js';
import type { HashRouteMode } from '../url/normalize.js';
import type { ScopeMode } from '../url/scope.js';

/** What identifies a crawl: a state file or a shared crawl is resumed only by the same crawl (unless forced). */
export interface CrawlKey {
  /** Seed URLs (compared as a set: order and repeats do not matter). */
  seeds: string[];
  /** Scope mode (`host`, `subdomains`, `domain`) or any string describing the scope. */
  scope: string;
  /** Anything else that must match on resume (include/exclude patterns …); compared as JSON. */
  [k: string]: unknown;
}

/** The crawl key in comparable form: seeds as a sorted set, object keys sorted. */
export function normalizeKey(k: CrawlKey): Record<string, unknown> {
  return { ...k, seeds: [...new Set(k.seeds)].sort() };
}

/** JSON with object keys sorted at every level (so equal keys give equal strings). */
export function stableStringify(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** What differs between the stored and the given crawl key, or `null` if they match. */
export function keyDiff(stored: Record<string, unknown>, now: Record<string, unknown>): { fields: string[]; details: string } | null {
  const fields: string[] = [];
  const parts: string[] = [];
  const names = [...new Set([...Object.keys(stored), ...Object.keys(now)])].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const name of names) {
    const a = stored[name];
    const b = now[name];
    if (stableStringify(a) === stableStringify(b)) continue;
    fields.push(name);
    parts.push(`${name} differ${name.endsWith('s') ? '' : 's'} (stored: ${show(a)}; now: ${show(b)})`);
  }
  return fields.length ? { fields, details: parts.join(', ') } : null;
}

function rank(name: string): number {
  return name === 'seeds' ? 0 : name === 'scope' ? 1 : 2;
}

function show(v: unknown): string {
  let s: string;
  if (v === undefined) s = '(none)';
  else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) s = v.length ? v.join(' ') : '(none)';
  else if (typeof v === 'string') s = v;
  else s = JSON.stringify(v);
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

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
