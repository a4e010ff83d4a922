import { create } from 'xmlbuilder2';
import type { ReportInput } from '../formats.js';
import type { PageRecord } from '../record.js';

/** The sitemaps.org protocol's limit of URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** `true` for a page that belongs in a sitemap: visited, HTML, HTTP 200, no error, not a soft 404, not `noindex`. */
export function isSitemapPage(r: PageRecord): boolean {
  return r.skipped === null && r.status === 200 && r.error === null && !r.soft404 && !r.noindex && r.contentType !== null && HTML_TYPE.test(r.contentType);
}

/** Host of a URL, or `null` if it does not parse. */
function hostOf(u: string): string | null {
  try {
    return new URL(u).host;
  } catch {
    return null;
  }
}

/**
 * `sitemap`: a sitemaps.org 0.9 `<urlset>` of the in-scope HTML pages that answered 200 and are not
 * `noindex` (see {@link isSitemapPage}), each `<loc>` the page's final URL (after redirects), in
 * crawl order, each once. A page that redirected to another host is left out (a sitemap may only
 * list URLs of its own site). At most {@link SITEMAP_MAX_URLS} URLs, as the protocol allows.
 */
export function renderSitemap(input: ReportInput): string {
  const locs: string[] = [];
  const seen = new Set<string>();
  for (const r of input.records) {
    if (!isSitemapPage(r)) continue;
    const loc = r.finalUrl ?? r.url;
    if (seen.has(loc) || hostOf(loc) === null || hostOf(loc) !== hostOf(r.url)) continue;
    seen.add(loc);
    locs.push(loc);
  }
  const root = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' });
  const set = root.ele('http://www.sitemaps.org/schemas/sitemap/0.9', 'urlset');
  for (const loc of locs.slice(0, SITEMAP_MAX_URLS)) set.ele('url').ele('loc').txt(loc);
  if (locs.length > SITEMAP_MAX_URLS) set.com(` ${locs.length - SITEMAP_MAX_URLS} more URLs left out: a sitemap holds at most ${SITEMAP_MAX_URLS} `);
  return `${root.end({ prettyPrint: true })}\n`;
}
