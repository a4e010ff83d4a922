/**
 * One crawl reduced to what the diff compares, keyed by canonical URL: a few fields per URL
 * rather than whole records, so two large crawls fit in memory side by side.
 * @module
 */
import { isPage, type PageRecord, type SkipReason, type Soft404Reason } from '../model/record.js';
import { DiffInputError } from './errors.js';
import type { RecordSource } from './source.js';
import { CHECK_IDS, checksOfRecord, versionChecksOf, type CheckId } from './checks.js';
import { clickedSubjects } from '../report/click-errors.js';

/**
 * What a URL was in one crawl: `page` (DESIGN.md "Counting"), `redirect` (a redirect record, in
 * scope or off-site), `file` (answered, but not HTML: `skipped: "non-html"`), or `skipped`
 * (never requested: robots, scope, budget, trap, duplicate).
 */
export type UrlKind = 'page' | 'redirect' | 'file' | 'skipped';

/** The fields of one record the diff compares. */
export interface UrlState {
  kind: UrlKind;
  status: number | null;
  /** `error.code`, or `null`. */
  error: string | null;
  title: string | null;
  /** `finalUrl` of a redirect record or of a page reached through a redirect chain, else `null`. */
  redirectTo: string | null;
  soft404: boolean;
  soft404Reason: Soft404Reason | null;
  skipped: SkipReason | null;
  /** In-scope links (canonical), strings shared across the index. */
  links: readonly string[];
  /**
   * The links of {@link links} this page's record found only by clicking (`linkDetails` source
   * `click`), or `null` for none. Click memory clicks a site-wide control on a few pages only,
   * whichever came first, so which page holds these links can change from one crawl of the same
   * site to the next.
   */
  clickOnly: ReadonlySet<string> | null;
  /**
   * The controls click discovery worked on this page, as finding subjects (see `clickSubject`),
   * strings shared across the index; `null` when the record does not say (an older version's).
   */
  clicked: ReadonlySet<string> | null;
  /** The states clicks revealed that the accessibility check checked on this page (`a11y.states`), strings shared; `null` without the check. */
  a11yStates: ReadonlySet<string> | null;
  /** `timings.total` and `timings.serverWaitMs` (ms), or `null`. */
  total: number | null;
  serverWaitMs: number | null;
  /** Numeric web vitals when the record has a `vitals` object (a later schema), else `null`. */
  vitals: Readonly<Record<string, number>> | null;
}

/** One crawl, indexed. */
export interface SideIndex {
  /** State of every URL with a record; for a URL recorded twice, the last record wins. */
  urls: Map<string, UrlState>;
  /** Canonical URLs of the records at depth 0. */
  seeds: string[];
  /** Records read. */
  records: number;
  /** Pages among the URLs. */
  pages: number;
  /** The optional checks some record shows ran (see `checksOfRecord`). */
  checks: Set<CheckId>;
}

/** The kind of a record (see {@link UrlKind}). */
export function kindOf(r: PageRecord): UrlKind {
  if (isPage(r)) return 'page';
  if (r.redirect) return 'redirect';
  return r.skipped === 'non-html' ? 'file' : 'skipped';
}

/**
 * The numeric entries of a record's `vitals` object, if it has one. No record carries vitals
 * yet; a later schema may add them (`{ lcp: 1200, cls: 0.02, … }`), and the diff compares
 * whatever numeric names both crawls have.
 */
export function vitalsOf(r: PageRecord): Record<string, number> | null {
  const v = (r as PageRecord & { vitals?: unknown }).vitals;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n)) out[k] = n;
  return Object.keys(out).length ? out : null;
}

/**
 * The in-scope links a page record found by clicking and by no other means, or `null` for none.
 * Records without `linkDetails` (an older schema) have none.
 */
function clickOnlyLinks(r: PageRecord, pool: (s: string) => string): Set<string> | null {
  const details = (r as Partial<Pick<PageRecord, 'linkDetails'>>).linkDetails ?? [];
  let clicked: Set<string> | null = null;
  for (const d of details) if (d.source === 'click') (clicked ??= new Set()).add(d.url);
  if (!clicked) return null;
  for (const d of details) if (d.source !== 'click') clicked.delete(d.url);
  const inScope = new Set(r.links);
  const out = new Set<string>();
  for (const u of clicked) if (inScope.has(u)) out.add(pool(u));
  return out.size ? out : null;
}

/** `set` with its strings taken from `pool` (`null` stays `null`). */
function internAll(set: Set<string> | null, pool: (s: string) => string): Set<string> | null {
  return set === null ? null : new Set([...set].map(pool));
}

/**
 * Read a source once and index it by canonical URL. Link URLs are interned (one string per
 * distinct URL), so a page's links cost a pointer each.
 * @param source - the crawl
 * @param intern - the string pool to share between both sides of a diff
 * @throws DiffInputError (`not-a-crawl`) when the source yields no record at all
 */
export async function indexSide(source: RecordSource, intern: Map<string, string> = new Map()): Promise<SideIndex> {
  const pool = (s: string): string => {
    const known = intern.get(s);
    if (known !== undefined) return known;
    intern.set(s, s);
    return s;
  };
  const urls = new Map<string, UrlState>();
  const seeds = new Set<string>();
  let records = 0;
  // Checks the crawl's report declares, plus those its records show.
  const checks = new Set<CheckId>(CHECK_IDS.filter((c) => source.declaredChecks?.includes(c)));
  for await (const r of source.records()) {
    records++;
    if (checks.size < CHECK_IDS.length) for (const c of checksOfRecord(r)) checks.add(c);
    if (r.depth === 0) seeds.add(r.url);
    const kind = kindOf(r);
    urls.set(pool(r.url), {
      kind,
      status: r.status,
      error: r.error?.code ?? null,
      title: r.title,
      redirectTo: kind === 'redirect' || r.redirectChain.length > 0 ? r.finalUrl : null,
      soft404: r.soft404,
      soft404Reason: r.soft404Reason,
      skipped: r.skipped,
      links: kind === 'page' ? r.links.map(pool) : [],
      clickOnly: kind === 'page' ? clickOnlyLinks(r, pool) : null,
      clicked: kind === 'page' ? internAll(clickedSubjects(r), pool) : null,
      a11yStates: kind === 'page' && Array.isArray(r.a11y?.states) ? internAll(new Set(r.a11y.states.filter((s) => typeof s === 'string')), pool) : null,
      total: r.timings.total ?? null,
      serverWaitMs: r.timings.serverWaitMs ?? null,
      vitals: vitalsOf(r),
    });
  }
  if (records === 0) throw new DiffInputError('not-a-crawl', `${source.label} is not a crawl: it holds no record`);
  for (const c of versionChecksOf(source.fieldsSeen?.() ?? null)) checks.add(c);
  let pages = 0;
  for (const s of urls.values()) if (s.kind === 'page') pages++;
  return { urls, seeds: [...seeds], records, pages, checks };
}

/**
 * The origins a crawl read from `source` is about, as {@link siteOrigins} tells them from its
 * index, in one pass that keeps only origins: its seeds' (depth-0 records), or every recorded
 * URL's when it has no depth-0 record.
 */
export async function sourceSiteOrigins(source: RecordSource): Promise<Set<string>> {
  const seeds = new Set<string>();
  const all = new Set<string>();
  for await (const r of source.records()) {
    for (const o of originsOf([r.url])) (r.depth === 0 ? seeds : all).add(o);
  }
  return seeds.size ? seeds : all;
}

/** The origins (`scheme://host:port`) of URLs; unparsable URLs are left out. */
export function originsOf(urls: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const u of urls) {
    try {
      out.add(new URL(u).origin);
    } catch {
      // not an absolute URL: no origin
    }
  }
  return out;
}

/**
 * Refuse two crawls whose site origins (see `siteOrigins`) have none in common.
 * @param labels - how the message names the two crawls
 * @param hint - the end of the message: what to do instead
 * @throws DiffInputError (`different-sites`)
 */
export function checkSameOrigins(a: ReadonlySet<string>, b: ReadonlySet<string>, labels: [string, string], hint: string): void {
  for (const o of a) if (b.has(o)) return;
  const list = (s: ReadonlySet<string>): string => [...s].slice(0, 3).join(', ') + (s.size > 3 ? ` and ${s.size - 3} more` : '');
  throw new DiffInputError(
    'different-sites',
    `${labels[0]} and ${labels[1]} are crawls of different sites (${list(a) || 'no origin'} vs ${list(b) || 'no origin'}): ${hint}`,
  );
}

/**
 * The origins a crawl is about: its seeds' origins, or, for a crawl without a depth-0 record (a
 * truncated or hand-made file), the origins of every recorded URL.
 */
export function siteOrigins(side: SideIndex): Set<string> {
  return originsOf(side.seeds.length ? side.seeds : side.urls.keys());
}
