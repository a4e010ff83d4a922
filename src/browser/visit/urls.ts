/**
 * URL and request helpers of the visit stages.
 * @module
 */
import LinkHeader from 'http-link-header';
import type { Request } from 'playwright';
import type { RedirectHop } from '../../model/record.js';
import { toRequestUrl } from '../../url/normalize.js';
import { withTimeout } from '../timeout.js';

/** A `Location` header's target resolved against the URL that sent it (RFC 9110 §10.2.2), or `null` when absent or unparsable. */
export function resolveLocation(location: string | null, base: string): string | null {
  if (location === null) return null;
  try {
    return new URL(location, base).href;
  } catch {
    return null;
  }
}

/** `url` with the fragment of `from` when it has none of its own (how a browser carries a fragment across redirects). */
export function inheritFragment(url: string, from: string): string {
  try {
    const u = new URL(url);
    const f = new URL(from);
    if (u.hash === '' && f.hash !== '') u.hash = f.hash;
    return u.href;
  } catch {
    return url;
  }
}

/** `true` when `a` and `b` name the same document (equal once their fragments are dropped). */
export function sameDocument(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    x.hash = '';
    y.hash = '';
    return x.href === y.href;
  } catch {
    return false;
  }
}

/** The URL as the page's identity: a plain fragment dropped, a hash route kept (see `toRequestUrl`). */
export function stripFragment(u: string): string {
  try {
    return toRequestUrl(u);
  } catch {
    return u;
  }
}

/** The browser's own `/favicon.ico` request (not one the page asked for). */
export function isImplicitFavicon(r: Request): boolean {
  return r.resourceType() === 'other' && /\/favicon\.ico$/.test(new URL(r.url()).pathname);
}

/** The HTTP redirect hops that led to `final` (oldest first). Never throws: a hop whose response cannot be read within 2 s has status `null`. */
export async function httpChain(final: Request): Promise<RedirectHop[]> {
  const hops: RedirectHop[] = [];
  for (let r = final.redirectedFrom(); r; r = r.redirectedFrom()) {
    const resp = await withTimeout(r.response(), 2_000, 'reading a redirect').catch(() => null);
    hops.unshift({ url: r.url(), status: resp ? resp.status() : null, kind: 'http' });
  }
  return hops;
}

/**
 * Where a `Refresh` value (an HTTP `Refresh` header, as a `<meta http-equiv="refresh">`'s
 * `content`) sends the browser, resolved against `base`: HTML's shared declarative refresh steps
 * (§4.2.5.3: a delay, then `;` or `,`, an optional `url=`, the URL, quotes allowed). `null` when
 * it names no URL, one that cannot be parsed, or the page itself (`here`, the document's URL:
 * a reload).
 */
export function refreshTarget(content: string, base: string, here = base): string | null {
  const m = /^[\t\n\f\r ]*[\d.]+[\t\n\f\r ]*(?:[;,][\t\n\f\r ]*)?(?:url[\t\n\f\r ]*=[\t\n\f\r ]*)?(.*)$/is.exec(content);
  if (!m) return null;
  let url = m[1]!;
  const quote = url[0];
  if (quote === '"' || quote === "'") {
    const end = url.indexOf(quote, 1);
    url = url.slice(1, end === -1 ? undefined : end);
  }
  url = url.trim();
  if (url === '' || !URL.canParse(url, base)) return null;
  const target = new URL(url, base).href;
  return stripFragment(target) === stripFragment(here) ? null : target;
}

/**
 * The canonical URL an HTTP `Link` header names (`Link: <https://a.example/p>; rel="canonical"`,
 * RFC 8288 §3, parsed by `http-link-header`; relation types compare case-insensitively, §2.1.1),
 * resolved against `base` (the document's URL), or `null`: no such link, a header that cannot be
 * parsed, a reference that is not a URL. Google and Screaming Frog read this header as they read
 * `<link rel="canonical">`.
 */
export function linkHeaderCanonical(header: string, base: string): string | null {
  let refs: { uri: string; rel: string }[];
  try {
    refs = LinkHeader.parse(header).refs;
  } catch {
    return null;
  }
  const ref = refs.find((r) => typeof r.rel === 'string' && r.rel.toLowerCase() === 'canonical');
  if (!ref) return null;
  try {
    return new URL(ref.uri, base).href;
  } catch {
    return null;
  }
}
