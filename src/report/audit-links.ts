import { isPage, type LinkCheck, type PageRecord } from '../model/record.js';

/** A page linking to a URL, with the link's anchor text (the audit's `Referrer`). */
interface LinkFrom {
  url: string;
  text: string;
}

/** The rules this module adds issues of. */
type LinkRule = 'broken-link' | 'blocked' | 'insecure-link' | 'broken-fragment';

/** Adds one issue (the audit's `add`): `refs` is the referrer list of `url`. */
type AddLinkIssue = (rule: LinkRule, url: string, message: string, refs?: LinkFrom[]) => void;

/** `true` for a bot wall rather than a broken page: 403 with a `cf-mitigated` header, or the non-standard 999. */
export function isBotWall(a: { status: number | null; blockedBy: string | null }): boolean {
  return a.status === 999 || (a.status === 403 && a.blockedBy !== null);
}

/**
 * `true` for an off-site link check that says nothing about the link: a bot wall, or a rate
 * limit (429 Too Many Requests, RFC 6585 §4; a check is one request, not retried). A page of the
 * crawl that still answers 429 after its retries (which honour `Retry-After`) is broken.
 */
function isBlockedCheck(c: LinkCheck): boolean {
  return isBotWall(c) || c.status === 429;
}

/** Why a bot wall or a rate-limited check is not a broken link, for issue messages. */
export function blockedWhy(a: { status: number | null; blockedBy: string | null }): string {
  if (a.status === 429) return 'HTTP 429: rate-limited, not necessarily broken';
  return `HTTP ${a.status}${a.blockedBy ? ` (${a.blockedBy})` : ''}: a bot wall, not necessarily broken`;
}

function pushRef(refs: LinkFrom[], ref: LinkFrom): void {
  if (!refs.some((x) => x.url === ref.url && x.text === ref.text)) refs.push(ref);
}

/**
 * The audit rules fed by what the crawl checked outside pages, all from the records alone:
 * - `broken-link` / `blocked` for off-site links (`linkChecks` of kind `link` whose URL is in the
 *   page's `externalLinks`), one issue per URL (its first check), with every referrer; and for an
 *   in-scope URL that redirects off-site (a redirect record with `skipped: "scope"`) whose target's
 *   check is broken or blocked: the issue is the in-scope URL's, with its referrers;
 * - `insecure-link`: an `http://` link of an `https:` page whose check and whose `https://` form's
 *   check answered the same status below 400; referrers are the `https:` pages with that link;
 * - `broken-fragment`: a `fragmentLinks` entry whose target record was rendered (`anchors` is not
 *   `null`, no error, status < 400, not a soft 404) and has no such id or name; a target that is a
 *   redirect record is judged by the page its `finalUrl` names (the fragment goes along). `#top` needs none
 *   (browsers scroll to the top). The issue's URL is the target with its fragment.
 *
 * Fed one record at a time ({@link read} in the audit's first pass, {@link readTarget} in its
 * second); keeps the off-site URLs checked, the insecure links and the fragment targets' anchors,
 * never the records.
 */
export class LinkCheckIssues {
  /** Off-site URLs whose first check was read. */
  private readonly checked = new Set<string>();
  /** Off-site URLs whose first check is broken or blocked, with that check. */
  private readonly bad = new Map<string, LinkCheck>();
  private readonly insecureLinks = new Map<string, { check: LinkCheck; refs: LinkFrom[] }>();
  /** Canonical URLs that fragment links point into. */
  private readonly fragmentTargets = new Set<string>();
  /** Anchors of each fragment target's first page record when it was rendered, else `null`. */
  private readonly anchors = new Map<string, ReadonlySet<string> | null>();
  /** In-scope URLs that redirect off-site to a broken or blocked target, with its check. */
  private readonly badForwards = new Map<string, { target: string; check: LinkCheck }>();
  /** Redirect records of the crawl: URL → `finalUrl`, the page a link to the URL lands on. */
  private readonly forwardsTo = new Map<string, string>();
  /** Fragment targets that are redirect records, by the `finalUrl` they land on (built in the second pass). */
  private landings: Map<string, string[]> | null = null;

  /** Read one record (the first pass, in record order). */
  read(r: PageRecord): void {
    if (r.redirect && r.skipped === 'scope' && r.finalUrl) {
      // Its off-site target, checked with `--check-external` (the crawl never requests it).
      const c = r.linkChecks?.find((x) => x.kind === 'link');
      if (c && (isBlockedCheck(c) || c.error || (c.status !== null && c.status >= 400))) this.badForwards.set(r.url, { target: r.finalUrl, check: c });
      return;
    }
    // A link's fragment goes along through redirects (RFC 9110 §10.2.2): it is checked on the page
    // landed on. Not when the redirect names a fragment of its own: that one replaces the link's.
    if (r.redirect && !r.skipped && r.finalUrl && !redirectNamesFragment(r)) this.forwardsTo.set(r.url, r.finalUrl);
    if (!isPage(r)) return;
    const checks = r.linkChecks ?? [];
    for (const f of r.fragmentLinks ?? []) this.fragmentTargets.add(f.url);
    if (!checks.length) return;
    const offsite = new Set(r.externalLinks);
    const httpsForms = new Map(checks.filter((c) => c.kind === 'https-form').map((c) => [c.url, c]));
    const secure = (r.finalUrl ?? r.url).startsWith('https:');
    for (const c of checks) {
      if (c.kind !== 'link') continue;
      if (offsite.has(c.url) && !this.checked.has(c.url)) {
        this.checked.add(c.url);
        if (isBlockedCheck(c) || c.error || (c.status !== null && c.status >= 400)) this.bad.set(c.url, c);
      }
      if (!secure || !c.url.startsWith('http:') || c.status === null) continue;
      const upgraded = httpsForms.get(`https:${c.url.slice('http:'.length)}`);
      // The same answer, and a working one: an upgrade of a broken link is no fix.
      if (!upgraded || upgraded.status !== c.status || c.status >= 400) continue;
      let e = this.insecureLinks.get(c.url);
      if (!e) {
        e = { check: upgraded, refs: [] };
        this.insecureLinks.set(c.url, e);
      }
      for (const l of r.linkDetails) if (l.url === c.url) pushRef(e.refs, { url: r.url, text: l.text });
    }
  }

  /** `broken-link` / `blocked` issues of off-site links, with the referrer lists `refsOf` gives (filled later). */
  external(add: AddLinkIssue, refsOf: { of(url: string): LinkFrom[] }): void {
    const report = (url: string, c: LinkCheck, prefix: string): void => {
      const how = `off-site, checked with ${c.method}`;
      if (isBlockedCheck(c)) add('blocked', url, `${prefix}${blockedWhy(c)} (${how})`, refsOf.of(url));
      else if (c.error) add('broken-link', url, `${prefix}${c.error.code}: ${c.error.message} (${how})`, refsOf.of(url));
      else if (c.status !== null && c.status >= 400) add('broken-link', url, `${prefix}HTTP ${c.status} (${how})`, refsOf.of(url));
    };
    for (const [url, c] of this.bad) report(url, c, '');
    // The in-scope URL the pages link to is the finding: its redirect is what they follow.
    for (const [url, f] of this.badForwards) report(url, f.check, `redirects off-site to ${f.target}: `);
  }

  /** `insecure-link` issues. */
  insecure(add: AddLinkIssue): void {
    for (const [url, e] of this.insecureLinks) {
      add('insecure-link', url, `http:// link on an https: page; ${e.check.url} answers ${e.check.status} too: link to it instead`, e.refs);
    }
  }

  /** Keep the anchors of a fragment target (the second pass): its first page record's, when it was rendered. */
  readTarget(t: PageRecord): void {
    if (!isPage(t)) return;
    if (this.landings === null) {
      this.landings = new Map();
      for (const [from, to] of this.forwardsTo) if (this.fragmentTargets.has(from)) this.landings.set(to, [...(this.landings.get(to) ?? []), from]);
    }
    // The page's own URL, and the fragment targets that redirect to it.
    const keys = [t.url, ...(t.finalUrl ? (this.landings.get(t.finalUrl) ?? []) : [])].filter((k) => this.fragmentTargets.has(k) && !this.anchors.has(k));
    if (!keys.length) return;
    const rendered = t.anchors !== null && t.anchors !== undefined && !t.error && !t.soft404 && t.status !== null && t.status < 400;
    // A page reached through a redirect that named a fragment of its own (`/old#x` → 301
    // `Location: /new#y`): the browser lands on `#y`, and a link's `#x` to its URL is not looked for.
    for (const k of keys) this.anchors.set(k, rendered && !(k === t.url && redirectNamesFragment(t)) ? new Set(t.anchors) : null);
  }

  /** `broken-fragment` issues: one more pass, for the fragment links (none when no record has one). */
  fragments(records: Iterable<PageRecord>, add: AddLinkIssue): void {
    if (this.fragmentTargets.size === 0) return;
    const anchors = this.anchors;
    const fragments = new Map<string, { url: string; fragment: string; refs: LinkFrom[] }>();
    for (const r of records) {
      if (!isPage(r)) continue;
      for (const f of r.fragmentLinks ?? []) {
        const target = anchors.get(f.url);
        if (!target) continue;
        if (target.has(f.fragment) || f.fragment.toLowerCase() === 'top') continue;
        const key = `${f.url}#${f.fragment}`;
        let e = fragments.get(key);
        if (!e) {
          e = { url: f.url, fragment: f.fragment, refs: [] };
          fragments.set(key, e);
        }
        pushRef(e.refs, { url: r.url, text: f.text });
      }
    }
    for (const [key, e] of fragments) {
      const landed = this.forwardsTo.get(e.url);
      const page = landed ? `${e.url} (redirects to ${landed})` : e.url;
      add('broken-fragment', key, `${page} has no element with id "${e.fragment}" (nor an <a name="${e.fragment}">)`, e.refs);
    }
  }
}

/**
 * Whether a record's URL redirected to a URL with a fragment of its own: that fragment replaces the
 * one a link to the URL carried (Fetch, "HTTP-redirect fetch": a `Location` fragment wins over the
 * request's), so the link's fragment is never looked for.
 */
function redirectNamesFragment(r: PageRecord): boolean {
  return r.redirectChain.length > 0 && r.finalUrl !== null && r.finalUrl.includes('#');
}
