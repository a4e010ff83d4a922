import type { FoundLink } from '../browser/visit.js';
import type { FragmentLink, LinkDetail, LinkSource } from '../model/record.js';
import { normalize, toRequestUrl, type NormalizeOptions } from '../url/normalize.js';
import type { Scope } from '../url/scope.js';

/** An in-scope link on its way to the frontier. */
export interface Candidate {
  /** Canonical URL (frontier key). */
  url: string;
  /** URL as resolved by the browser, plain fragment dropped: what will be requested. */
  requestedUrl: string;
}

/** The links of one page, sorted by where they may go. */
export interface ClassifiedLinks {
  /** Canonical in-scope URLs, deduplicated, in document order. */
  links: string[];
  /** Canonical off-site http(s) URLs, deduplicated. */
  externalLinks: string[];
  /** Every link found, in scope or not (at most {@link MAX_LINK_DETAILS}). */
  linkDetails: LinkDetail[];
  /** In-scope links to offer the frontier (one per canonical URL). */
  candidates: Candidate[];
  /** Links found, counted by source. */
  linkSources: Partial<Record<LinkSource, number>>;
  /**
   * For each canonical http(s) URL found (in scope or not), the URL as the browser resolved its
   * first link, plain fragment dropped: what a request for it (a link check) must ask for. The
   * canonical form may have lost parameters, order or escapes that the server needs.
   */
  requestUrls: Map<string, string>;
}

/** Cap on `linkDetails` per record, so a page with 100k links cannot bloat the report. */
export const MAX_LINK_DETAILS = 2000;

/**
 * Resolve → normalize → scope for one page's links (robots.txt is checked by the crawler,
 * which owns the asynchronous cache). Links the browser already resolved against
 * `document.baseURI` arrive absolute. Non-http(s) links (`mailto:`, `tel:`, `javascript:`,
 * `data:` …) are kept only in `linkDetails`: they are never fetched. `rel="nofollow"` links are
 * listed in `links` and `linkDetails` but not offered to the frontier unless `followNofollow`.
 */
export function classifyLinks(found: readonly FoundLink[], scope: Scope, norm: NormalizeOptions = {}, followNofollow = false): ClassifiedLinks {
  const out: ClassifiedLinks = { links: [], externalLinks: [], linkDetails: [], candidates: [], linkSources: {}, requestUrls: new Map() };
  const inSeen = new Set<string>();
  const exSeen = new Set<string>();
  const detailSeen = new Set<string>();
  const candSeen = new Set<string>();
  for (const l of found) {
    let u: URL;
    try {
      u = new URL(l.href);
    } catch {
      continue;
    }
    const web = u.protocol === 'http:' || u.protocol === 'https:';
    let canonical: string;
    try {
      canonical = web ? normalize(u, norm) : u.href;
    } catch {
      continue;
    }
    out.linkSources[l.source] = (out.linkSources[l.source] ?? 0) + 1;
    const nofollow = /(^|\s)nofollow(\s|$)/.test(l.rel);
    const detailKey = `${l.source}\u0000${canonical}\u0000${l.text}\u0000${nofollow}`;
    if (out.linkDetails.length < MAX_LINK_DETAILS && !detailSeen.has(detailKey)) {
      detailSeen.add(detailKey);
      out.linkDetails.push({ url: canonical, text: l.text, source: l.source, nofollow });
    }
    if (!web) continue;
    if (!out.requestUrls.has(canonical)) out.requestUrls.set(canonical, toRequestUrl(u, norm));
    if (scope.inScope(canonical)) {
      if (!inSeen.has(canonical)) {
        inSeen.add(canonical);
        out.links.push(canonical);
      }
      if (nofollow && !followNofollow) continue;
      if (candSeen.has(canonical)) continue;
      candSeen.add(canonical);
      // One string when both spellings agree (most links): a queued entry keeps both.
      const requestedUrl = toRequestUrl(u, norm);
      out.candidates.push({ url: canonical, requestedUrl: requestedUrl === canonical ? canonical : requestedUrl });
    } else if (!exSeen.has(canonical)) {
      exSeen.add(canonical);
      out.externalLinks.push(canonical);
    }
  }
  return out;
}

/**
 * The in-scope links of one page that carry a plain fragment (`#id`): what `--check-fragments`
 * checks against the target page's ids and names. Hash routes (fragments the canonical URL keeps,
 * per `hashRoutes`), empty fragments and text fragments (`#:~:text=…`) are left out; a fragment
 * is percent-decoded, and a `:~:` directive after an id is dropped. Each (target, fragment, text)
 * once, at most {@link MAX_LINK_DETAILS}.
 */
export function fragmentLinksOf(found: readonly FoundLink[], scope: Scope, norm: NormalizeOptions = {}): FragmentLink[] {
  const out: FragmentLink[] = [];
  const seen = new Set<string>();
  for (const l of found) {
    if (out.length >= MAX_LINK_DETAILS) break;
    let u: URL;
    let canonical: string;
    try {
      u = new URL(l.href);
      if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hash.length < 2) continue;
      canonical = normalize(u, norm);
    } catch {
      continue;
    }
    if (canonical.includes('#') || !scope.inScope(canonical)) continue;
    let fragment = u.hash.slice(1);
    const directive = fragment.indexOf(':~:');
    if (directive >= 0) fragment = fragment.slice(0, directive);
    if (fragment === '') continue;
    try {
      fragment = decodeURIComponent(fragment);
    } catch {
      // a malformed escape is matched as written
    }
    const key = `${canonical}\u0000${fragment}\u0000${l.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ url: canonical, fragment, text: l.text });
  }
  return out;
}
