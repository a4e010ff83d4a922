import { blankRecord, type LinkDetail, type PageRecord } from '../../src/model/record.js';

/** Origin of the built crawls. */
export const O = 'https://site.test';
/** Absolute URL on {@link O}. */
export const u = (p: string): string => `${O}${p}`;

const link = (p: string, text: string): LinkDetail => ({ url: u(p), text, source: 'anchor', nofollow: false });

/**
 * A visited HTML page on {@link O} that passes every content rule unless `patch` says otherwise.
 * @param links - `[path, anchor text]` of its in-scope links
 */
export function page(p: string, title: string, links: [string, string][] = [], patch: Partial<PageRecord> = {}, origin = O): PageRecord {
  const url = `${origin}${p}`;
  const depth = p === '/' ? 0 : 1;
  const r = blankRecord(url, url, depth, depth === 0 ? null : `${origin}/`);
  const details = links.map(([lp, text]) => ({ ...link(lp, text), url: `${origin}${lp}` }));
  return {
    ...r,
    finalUrl: url,
    status: 200,
    contentType: 'text/html; charset=utf-8',
    title,
    settled: true,
    attempts: 1,
    links: details.map((l) => l.url),
    linkDetails: details,
    timings: { ttfb: 10, domContentLoaded: 20, load: 30, settledMs: 100, lastChangeMs: 80, serverWaitMs: 50, total: 300 },
    meta: { description: `About ${title}`, canonical: null, h1Count: 1 },
    ...patch,
  };
}

/** A redirect record: `p` answers `status` and forwards to `to`, recorded under its own URL. */
export function redirect(p: string, to: string, status = 301): PageRecord {
  const r = blankRecord(u(p), u(p), 1, u('/'));
  return { ...r, finalUrl: u(to), status, redirect: true, attempts: 1, redirectChain: [{ url: u(p), status, kind: 'http' }] };
}

/**
 * The built twin of `fixtures/sites/versions.ts`: crawl A and crawl B of one site, with exactly
 * these differences: `/old` removed, `/news` added, `/guide` (linked from `/about`) answers 404,
 * `/about` retitled, `/go` redirects to `/docs/b` instead of `/docs/a`, `/promo` became a soft
 * 404. `/docs/b` has no description in both (one unchanged finding).
 */
export function crawlA(): PageRecord[] {
  return [
    page('/', 'Home', [['/about', 'About'], ['/docs/a', 'Docs A'], ['/docs/b', 'Docs B'], ['/go', 'Go'], ['/promo', 'Summer promotion'], ['/old', 'Old page']]),
    page('/about', 'About', [['/guide', 'Guide']]),
    page('/docs/a', 'Docs A', [['/', 'Home']]),
    page('/docs/b', 'Docs B', [['/', 'Home']], { meta: { description: null, canonical: null, h1Count: 1 } }),
    redirect('/go', '/docs/a'),
    page('/promo', 'Summer promotion', [['/', 'Home']]),
    page('/old', 'Old page', [['/', 'Home']]),
    { ...page('/guide', 'Guide', [['/', 'Home']]), depth: 2, referrer: u('/about') },
  ];
}

/** Crawl B of the pair (see {@link crawlA}). */
export function crawlB(): PageRecord[] {
  return [
    page('/', 'Home', [['/about', 'About'], ['/docs/a', 'Docs A'], ['/docs/b', 'Docs B'], ['/go', 'Go'], ['/promo', 'Summer promotion'], ['/news', 'News']]),
    page('/about', 'About us', [['/guide', 'Guide']]),
    page('/docs/a', 'Docs A', [['/', 'Home']]),
    page('/docs/b', 'Docs B', [['/', 'Home']], { meta: { description: null, canonical: null, h1Count: 1 } }),
    redirect('/go', '/docs/b'),
    page('/promo', 'Summer promotion', [['/', 'Home']], { soft404: true, soft404Reason: 'not-found-heading', meta: { description: 'Promotion', canonical: null, h1Count: 1 } }),
    page('/news', 'News', [['/', 'Home']]),
    { ...page('/guide', 'Not found', [], { status: 404 }), depth: 2, referrer: u('/about') },
  ];
}

/** What `diffCrawls(A, B)` must report about URLs (everything but the findings), `o` the origin. */
export function expectedUrlChanges(o: string): Record<string, unknown> {
  const at = (p: string): string => `${o}${p}`;
  return {
    pages: {
      added: [{ url: at('/news'), status: 200, error: null, title: 'News', otherSkipped: null }],
      removed: [{ url: at('/old'), status: 200, error: null, title: 'Old page', otherSkipped: null }],
    },
    statusChanges: [{ url: at('/guide'), old: { status: 200, error: null, redirect: false }, new: { status: 404, error: null, redirect: false } }],
    titleChanges: [{ url: at('/about'), old: 'About', new: 'About us' }],
    redirectChanges: [{ url: at('/go'), old: at('/docs/a'), new: at('/docs/b') }],
    soft404s: [{ url: at('/promo'), reason: 'not-found-heading' }],
    lostLinks: [{ url: at('/'), links: [at('/old')] }],
    timingChanges: [],
  };
}

/** The findings `diffCrawls(A, B)` must report, as `rule page-path → url-path` identities. */
export const EXPECTED_NEW_FINDINGS = ['broken-link /about → /guide', 'broken-link / → /promo'];
/** The finding both crawls have. */
export const EXPECTED_UNCHANGED_FINDINGS = ['missing-description /docs/b → /docs/b'];
