/**
 * Cookies of one request's redirect chain, kept for that chain only. A server that answers a
 * client without its cookie with a redirect to the same URL and a `Set-Cookie` (a consent or
 * session gate: `302 /page` + `Set-Cookie: seen=1`, then `200` for `/page` with `seen=1`) works
 * in a browser, and loops forever for a client that drops cookies (wummel/linkchecker#419,
 * lychee#715). So each hop's `Set-Cookie` lines are kept and sent on the following hops, as a
 * browser would (RFC 6265 §5.3, §5.4, simplified: no public-suffix check, no `SameSite`). Nothing
 * outlives the request: no request starts with a cookie of another.
 */
export class RedirectCookies {
  private cookies: StoredCookie[] = [];

  /** Keep the `Set-Cookie` lines of a response to `url` (a cookie already kept is replaced; an expired one is removed). */
  store(url: URL, setCookie: readonly string[]): void {
    for (const line of setCookie) {
      const c = parse(line, url);
      if (!c) continue;
      this.cookies = this.cookies.filter((o) => !(o.name === c.name && o.domain === c.domain && o.path === c.path));
      if (!c.expired) this.cookies.push(c);
    }
  }

  /** The `Cookie` header value for a request to `url`, or `null` when no cookie kept applies. */
  header(url: URL): string | null {
    const host = url.hostname.toLowerCase();
    const matching = this.cookies.filter(
      (c) => (c.hostOnly ? host === c.domain : domainMatch(host, c.domain)) && pathMatch(url.pathname || '/', c.path) && (!c.secure || url.protocol === 'https:'),
    );
    if (matching.length === 0) return null;
    // Longer paths first (RFC 6265 §5.4 step 2).
    matching.sort((a, b) => b.path.length - a.path.length);
    return matching.map((c) => (c.name === '' ? c.value : `${c.name}=${c.value}`)).join('; ');
  }
}

interface StoredCookie {
  name: string;
  value: string;
  domain: string;
  hostOnly: boolean;
  path: string;
  secure: boolean;
  expired: boolean;
}

/** One `Set-Cookie` line (RFC 6265 §5.2, §5.3), or `null` when it is to be ignored. */
function parse(line: string, url: URL): StoredCookie | null {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  const name = (eq < 0 ? '' : pair.slice(0, eq)).trim();
  const value = (eq < 0 ? pair : pair.slice(eq + 1)).trim();
  if (name === '' && value === '') return null;
  const host = url.hostname.toLowerCase();
  let domain = '';
  let path: string | null = null;
  let secure = false;
  let expired = false;
  let maxAgeSeen = false;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const val = i < 0 ? '' : attr.slice(i + 1).trim();
    if (key === 'domain' && val !== '') domain = val.replace(/^\./, '').toLowerCase();
    else if (key === 'path' && val.startsWith('/')) path = val;
    else if (key === 'secure') secure = true;
    else if (key === 'max-age' && /^-?\d+$/.test(val)) {
      maxAgeSeen = true;
      expired = Number(val) <= 0;
    } else if (key === 'expires' && !maxAgeSeen) {
      const t = Date.parse(val);
      if (!Number.isNaN(t)) expired = t <= Date.now();
    }
  }
  if (domain !== '' && !domainMatch(host, domain)) return null;
  return { name, value, domain: domain || host, hostOnly: domain === '', path: path ?? defaultPath(url), secure, expired };
}

/** RFC 6265 §5.1.3: the host is the domain, or a name under it (not for IP addresses). */
function domainMatch(host: string, domain: string): boolean {
  if (host === domain) return true;
  return host.endsWith(`.${domain}`) && !/^[\d.]+$|:/.test(host);
}

/** RFC 6265 §5.1.4. */
function pathMatch(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** RFC 6265 §5.1.4: the request path up to its last `/`, or `/`. */
function defaultPath(url: URL): string {
  const p = url.pathname;
  if (!p.startsWith('/')) return '/';
  const last = p.lastIndexOf('/');
  return last <= 0 ? '/' : p.slice(0, last);
}
