import { XMLBuilder } from 'fast-xml-parser';
import type { ReportInput } from '../formats.js';
import { isPage, type PageRecord } from '../../model/record.js';

/** The sitemaps.org protocol's limit of URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\b/i;

/** Characters XML 1.0 cannot carry (controls, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text made safe for XML 1.0: every character it cannot carry becomes U+FFFD. (Escaping is the builder's job.) */
export function xmlSafe(s: string): string {
  return s.replace(NOT_XML, '\uFFFD');
}

/**
 * `true` for a page that belongs in a sitemap: visited, HTML, HTTP 200, no error, not a soft 404,
 * not `noindex`, and not a redirect record (a URL that redirects is never listed; the page it
 * leads to is listed under its own final URL).
 */
export function isSitemapPage(r: PageRecord): boolean {
  return isPage(r) && r.status === 200 && r.error === null && !r.soft404 && !r.noindex && r.contentType !== null && HTML_TYPE.test(r.contentType);
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
 * Written with fast-xml-parser's `XMLBuilder`, which escapes `&` and `<` in URLs.
 */
export function renderSitemap(input: ReportInput): string {
  const locs: string[] = [];
  const seen = new Set<string>();
  for (const r of input.records) {
    if (!isSitemapPage(r)) continue;
    const loc = r.finalUrl ?? r.url;
    const host = hostOf(loc);
    if (seen.has(loc) || host === null || host !== hostOf(r.url)) continue;
    seen.add(loc);
    locs.push(loc);
  }
  const urlset: Record<string, unknown> = {
    '@_xmlns': 'http://www.sitemaps.org/schemas/sitemap/0.9',
    url: locs.slice(0, SITEMAP_MAX_URLS).map((loc) => ({ loc: xmlSafe(loc) })),
  };
  if (locs.length > SITEMAP_MAX_URLS) urlset['#comment'] = ` ${locs.length - SITEMAP_MAX_URLS} more URLs left out: a sitemap holds at most ${SITEMAP_MAX_URLS} `;
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, commentPropName: '#comment' });
  return builder.build({ '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' }, urlset }) as string;
}
