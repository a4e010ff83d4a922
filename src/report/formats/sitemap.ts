import { XMLBuilder } from 'fast-xml-parser';
import { isPage, type PageRecord } from '../../model/record.js';
import type { ReportInput, ReportSink } from '../input.js';
import { stringSink, xmlAround, xmlItem, xmlSafe } from './shared.js';

export { xmlSafe } from './shared.js';

/** The sitemaps.org protocol's limit of URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;

/** The sitemaps.org protocol's limit of a file's size, uncompressed: 50 MiB. */
export const SITEMAP_MAX_BYTES = 52_428_800;

/** Bytes kept free for the closing comment that counts the URLs left out (it is shorter). */
const LEFT_OUT_RESERVE = 200;

/** The closing comment when URLs were left out for the protocol's limits. */
function leftOutComment(more: number): string {
  return `  <!-- ${more} more URL${more === 1 ? '' : 's'} left out: a sitemap holds at most ${SITEMAP_MAX_URLS} URLs and ${SITEMAP_MAX_BYTES} bytes -->\n`;
}

const HTML_TYPE = /^\s*(text\/html|application\/xhtml\+xml)\b/i;
const XMLNS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const DECL = { '@_version': '1.0', '@_encoding': 'UTF-8' };

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

function builder(): XMLBuilder {
  return new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, commentPropName: '#comment' });
}

/**
 * The comment at the top of every sitemap: what it lists and what it leaves out (a sitemap of a
 * crawl is not every URL the crawl met; `pages.jsonl` has those).
 */
export const SITEMAP_NOTE =
  ' spacrawl: the in-scope HTML pages that answered 200, by final URL. Left out: redirects, pages with an error or a status other than 200, soft 404s, noindex pages, non-HTML files and skipped URLs (robots, budget ...) ';

/** The sitemap's text with `urlset` as given (fast-xml-parser's `XMLBuilder` escapes `&` and `<` in URLs), {@link SITEMAP_NOTE} first. */
function doc(urlset: Record<string, unknown>): unknown {
  return { '?xml': DECL, urlset: { '@_xmlns': XMLNS, '#comment': SITEMAP_NOTE, ...urlset } };
}

/**
 * `sitemap`: a sitemaps.org 0.9 `<urlset>` of the in-scope HTML pages that answered 200 and are not
 * `noindex` (see {@link isSitemapPage}), each `<loc>` the page's final URL (after redirects), in
 * crawl order, each once. A page that redirected to another host is left out (a sitemap may only
 * list URLs of its own site). Within the protocol's limits: at most {@link SITEMAP_MAX_URLS} URLs
 * and {@link SITEMAP_MAX_BYTES} bytes (long URLs reach the bytes first: 26,000 of 2,000
 * characters); the URLs past either limit are left out, and a closing comment counts them.
 * A comment first ({@link SITEMAP_NOTE}) says what is left out.
 * Written `<url>` by `<url>` as the records are read.
 */
export function writeSitemap(input: ReportInput, sink: ReportSink): void {
  const b = builder();
  const sentinel = { loc: 'spacrawl:sentinel' };
  const { head, tail } = xmlAround(b, doc({ url: [sentinel] }), ['urlset'], 'url', sentinel);
  const seen = new Set<string>();
  let found = 0;
  let listed = 0;
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail) + LEFT_OUT_RESERVE;
  for (const r of input.records) {
    if (!isSitemapPage(r)) continue;
    const loc = r.finalUrl ?? r.url;
    const host = hostOf(loc);
    if (seen.has(loc) || host === null || host !== hostOf(r.url)) continue;
    seen.add(loc);
    if (found === 0) sink.write(head);
    found++;
    // Once one URL is left out, so are all after it: the file lists a prefix of the crawl order.
    if (listed < found - 1 || listed >= SITEMAP_MAX_URLS) continue;
    const item = xmlItem(b, ['urlset'], 'url', { loc: xmlSafe(loc) });
    const size = Buffer.byteLength(item);
    if (bytes + size > SITEMAP_MAX_BYTES) continue;
    bytes += size;
    listed++;
    sink.write(item);
  }
  if (found === 0) {
    sink.write(b.build(doc({ url: [] })) as string);
    return;
  }
  const more = found - listed;
  sink.write(more > 0 ? tail.replace('</urlset>', `${leftOutComment(more)}</urlset>`) : tail);
}

/** {@link writeSitemap} as one string. */
export function renderSitemap(input: ReportInput): string {
  const s = stringSink();
  writeSitemap(input, s);
  return s.text();
}
