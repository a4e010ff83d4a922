import type { FoundLink } from '../browser/visit.js';
import { MAX_LINK_DETAILS, type FragmentLink, type LinkDetail, type LinkSource, type PageRecord, type RecordError, type SkipReason } from '../model/record.js';
import { normalize, toRequestUrl, type NormalizeOptions } from '../url/normalize.js';
import { isLogoutText, isLogoutUrl } from '../url/logout.js';
import type { RobotsCache, RobotsOutcome } from '../url/robots.js';
import type { Scope } from '../url/scope.js';
import type { DustLearner } from './dust.js';
import type { Frontier, FrontierEntry } from '../store/frontier.js';
import { skipRecord as storedSkipRecord } from '../store/policy.js';
import type { TrapDetector } from './traps.js';
import { StringMemo } from '../util/memo.js';

// The one link pipeline (DESIGN.md, "One page's journey"): resolve → normalize → scope
// (classifyLinks, synchronous, per page) → depth, traps, duplicates, robots.txt
// (LinkPipeline.admit) → frontier (LinkPipeline.offer or the page's lease completion), with a
// record for every in-scope URL decided without a visit (URLs past --max-depth are decided by the
// frontier once their depth can no longer drop: LinkPipeline.decideHeld).

/** An in-scope link on its way to the frontier. */
export interface Candidate {
  /** Canonical URL (frontier key). */
  url: string;
  /** URL as resolved by the browser, plain fragment dropped: what will be requested. */
  requestedUrl: string;
  /** A sign-out: its URL, or the text of a link to it, says log out / sign out / log off (see `src/url/logout.ts`). */
  signOut?: boolean;
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

/** Most URLs a {@link LinkPipeline} remembers as taken by the frontier before it starts over (~1 MB of URLs). */
export const KNOWN_URLS_KEPT = 8_192;

export { MAX_LINK_DETAILS } from '../model/record.js';

/** A link's URL as WHATWG serializes it, and whether it is http(s); `null` when it does not parse. */
interface ParsedHref {
  href: string;
  web: boolean;
}

const parsedHrefs = new StringMemo<ParsedHref | null>();

/**
 * `href` parsed (see {@link ParsedHref}), remembered: a site's navigation brings the same links
 * on every page.
 */
function parsedHref(href: string): ParsedHref | null {
  return parsedHrefs.get(href, () => {
    try {
      const u = new URL(href);
      return { href: u.href, web: u.protocol === 'http:' || u.protocol === 'https:' };
    } catch {
      return null;
    }
  });
}

/**
 * Resolve → normalize → scope for one page's links (the synchronous first half of the link
 * pipeline; depth, traps, duplicates and robots.txt follow in {@link LinkPipeline.admit}). Links the browser already resolved against
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
  /** Canonical URLs a link names "Sign out", "Log off" …: every candidate of that URL is a sign-out. */
  const signOutTexts = new Set<string>();
  for (const l of found) {
    const u = parsedHref(l.href);
    if (u === null) continue;
    const web = u.web;
    let canonical: string;
    try {
      canonical = web ? normalize(u.href, norm) : u.href;
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
    if (isLogoutText(l.text)) signOutTexts.add(canonical);
    if (!out.requestUrls.has(canonical)) out.requestUrls.set(canonical, toRequestUrl(u.href, norm));
    if (scope.inScope(canonical)) {
      if (!inSeen.has(canonical)) {
        inSeen.add(canonical);
        out.links.push(canonical);
      }
      if (nofollow && !followNofollow) continue;
      if (candSeen.has(canonical)) continue;
      candSeen.add(canonical);
      // One string when both spellings agree (most links): a queued entry keeps both.
      const requestedUrl = toRequestUrl(u.href, norm);
      out.candidates.push({ url: canonical, requestedUrl: requestedUrl === canonical ? canonical : requestedUrl });
    } else if (!exSeen.has(canonical)) {
      exSeen.add(canonical);
      out.externalLinks.push(canonical);
    }
  }
  for (const c of out.candidates) if (signOutTexts.has(c.url) || isLogoutUrl(c.requestedUrl)) c.signOut = true;
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

/**
 * The record of a URL decided without a visit, as a store gives it back ({@link storedSkipRecord}:
 * one rule for both): `skipped` (by default the entry's own `skip`), the entry's `skipError` and
 * `duplicateOf`, everything else blank.
 * @param entry - the frontier entry decided about
 * @param reason - why it is skipped (`budget` for URLs left queued when the budget ran out)
 * @param error - what to record as its error (e.g. robots.txt unreachable)
 * @throws Error when neither `reason` nor the entry gives a reason (a caller's mistake)
 */
export function skipRecord(entry: FrontierEntry, reason?: SkipReason, error: RecordError | null = entry.skipError ?? null): PageRecord {
  const skip = reason ?? entry.skip;
  if (skip === undefined) throw new Error(`skipRecord: ${entry.url} has no skip reason`);
  return storedSkipRecord({ ...entry, skip, skipError: error });
}

/**
 * How a URL robots.txt does not allow is skipped, by what robots.txt answered:
 * - no answer at all (connection refused, DNS failure, timeout, TLS failure): the host cannot be
 *   reached, so the URL is `unreachable`, with a `network` error naming the failure; nothing of
 *   the origin is requested until robots.txt answers (RFC 9309 §2.3.1.4);
 * - a 5xx: `robots`, with a `robots-unavailable` error (the origin is treated as disallowed);
 * - a rule: `robots`, no error.
 */
export function robotsSkip(o: RobotsOutcome): Pick<FrontierEntry, 'skip' | 'skipError'> {
  if (o.kind !== 'disallow-all') return { skip: 'robots' };
  if (o.unanswered) {
    return { skip: 'unreachable', skipError: { code: 'network', message: `the host could not be reached, not even for robots.txt (${o.detail}): nothing was requested` } };
  }
  return {
    skip: 'robots',
    skipError: { code: 'robots-unavailable', message: `robots.txt could not be fetched (${o.detail}); the origin is treated as disallowed (RFC 9309 §2.3.1.4)` },
  };
}

/** The rules of a {@link LinkPipeline} (from the crawl's resolved options). */
export interface AdmissionRules {
  /**
   * Deepest link distance visited; deeper URLs are held by the frontier, and `skipped: "budget"`
   * once no page could still report them within it.
   */
  maxDepth: number;
  /** How URLs are made canonical. */
  normalize: NormalizeOptions;
  /** Offer `rel="nofollow"` links to the frontier too. */
  followNofollow: boolean;
  /**
   * The crawl is logged in (`--login`, `--storage-state`): sign-out URLs (by URL or link text)
   * are `skipped: "logout"`, never requested. @default false
   */
  skipSignOut?: boolean;
}

/** What a {@link LinkPipeline} works with. */
export interface AdmissionParts {
  /** The crawl's scope. */
  scope: Scope;
  /** Crawler-trap rules (they count query variants as URLs pass). */
  traps: TrapDetector;
  /** robots.txt, or `null` with `--ignore-robots`. */
  robots: RobotsCache | null;
  /** Parameters learned as irrelevant to content, or `null` with `--no-dedupe-content`. */
  dust: DustLearner | null;
  /** Where admitted URLs go. */
  frontier: Frontier;
  /** Where records of URLs decided without a visit go (the crawl's record stream). */
  emit: (record: PageRecord) => void;
  /** Told about each URL admitted for a visit (the URL as it will be requested), e.g. to start its origin's soft-404 probe. */
  onAdmitted?: (requestedUrl: string) => void;
  /** Told why each URL skipped as a trap is one ({@link TrapDetector.check}'s reason: one per path and rule). */
  onTrap?: (reason: string) => void;
}

/**
 * Admission of URLs into the frontier, the asynchronous half of the link pipeline. Each
 * candidate found at `depth - 1` (or a seed at 0) is decided in this order: a sign-out while
 * logged in (`skipSignOut`) → `skipped: "logout"`; past `maxDepth` → held (`held`: the
 * frontier decides it as `skipped: "budget"` once no page that could report it within
 * `maxDepth` is left, see {@link LinkPipeline.decideHeld}); a crawler trap → `trap`; a variant of
 * a known URL differing only in learned parameters → `duplicate`; disallowed by robots.txt →
 * `robots` (with a `robots-unavailable` error when the origin's robots.txt could not be fetched,
 * RFC 9309 §2.3.1.4). Skipped entries are stored as done at once; each new one gets a record.
 */
export class LinkPipeline {
  /**
   * Canonical URLs the frontier has taken from this pipeline (added, or stored with a page's
   * record), each with the smallest depth it was offered at, at most {@link KNOWN_URLS_KEPT}: a
   * link to one of them at that depth or deeper is not decided again, as the frontier would ignore
   * it (it changes a URL only to a smaller depth). A site's navigation brings the same links on
   * every page: ~70 on each TypeDoc page, each asked of the duplicate, trap and robots.txt rules,
   * twice a page (when discovery starts and when the page is stored).
   */
  private known = new Map<string, number>();

  /**
   * @param rules - depth budget, normalization, nofollow handling
   * @param parts - scope, traps, robots, duplicates, frontier and record stream
   */
  constructor(
    private readonly rules: AdmissionRules,
    private readonly parts: AdmissionParts,
  ) {}

  /**
   * Note that the frontier took `entries` (call once their add or the page's completion
   * succeeded: a link whose add failed is decided again when it comes back).
   */
  remember(entries: readonly FrontierEntry[]): void {
    for (const e of entries) {
      const depth = this.known.get(e.url);
      if (depth !== undefined && depth <= e.depth) continue;
      if (depth === undefined && this.known.size >= KNOWN_URLS_KEPT) this.known = new Map();
      this.known.set(e.url, e.depth);
    }
  }

  /** Resolve → normalize → scope for one page's links (see {@link classifyLinks}). */
  classify(found: readonly FoundLink[]): ClassifiedLinks {
    return classifyLinks(found, this.parts.scope, this.rules.normalize, this.rules.followNofollow);
  }

  /**
   * The canonical URL of an absolute http(s) URL, as links are made canonical (the key of a link check).
   * @throws TypeError when `url` is not a URL
   */
  canonical(url: string): string {
    return normalize(url, this.rules.normalize);
  }

  /** The page's in-scope links with a plain fragment (see {@link fragmentLinksOf}). */
  fragments(found: readonly FoundLink[]): FragmentLink[] {
    return fragmentLinksOf(found, this.parts.scope, this.rules.normalize);
  }

  /**
   * Decide depth, traps, duplicates and robots.txt for candidates found at `depth - 1`.
   * @param candidates - in-scope canonical URLs (from {@link LinkPipeline.classify} or seeds)
   * @param depth - their link distance from a seed
   * @param referrer - canonical URL of the page they were found on; `null` for seeds and sitemap URLs
   * @returns one frontier entry per candidate the frontier has not taken from this pipeline
   *   before at this depth or a smaller one (see {@link LinkPipeline.remember}), in order; those
   *   not to be visited carry `skip`, those past `maxDepth` `held`
   */
  async admit(candidates: readonly Candidate[], depth: number, referrer: string | null): Promise<FrontierEntry[]> {
    const { dust, traps, robots } = this.parts;
    const entries: FrontierEntry[] = [];
    let trap: string | null;
    for (const c of candidates) {
      const known = this.known.get(c.url);
      if (known !== undefined && known <= depth) continue;
      const e: FrontierEntry = { url: c.url, requestedUrl: c.requestedUrl, depth, referrer };
      // Asked for every candidate not taken before: the first URL of a family becomes its representative.
      const dup = dust?.duplicateOf(c.url) ?? null;
      if (this.rules.skipSignOut && (c.signOut || isLogoutUrl(c.requestedUrl))) e.skip = 'logout';
      else if (depth > this.rules.maxDepth) e.held = true;
      else if ((trap = traps.check(c.url))) {
        e.skip = 'trap';
        this.parts.onTrap?.(trap);
      }
      else if (dup) {
        e.skip = 'duplicate';
        e.duplicateOf = dup;
      } else if (robots) {
        const d = await robots.check(c.requestedUrl);
        if (!d.allowed) Object.assign(e, robotsSkip(d.outcome));
      }
      if (!e.skip && !e.held) this.parts.onAdmitted?.(c.requestedUrl);
      entries.push(e);
    }
    return entries;
  }

  /**
   * Admit candidates and add them to the frontier outside a page's completion (seeds, sitemap
   * URLs); the new skipped ones get their records.
   * @returns the entries the frontier did not know before
   */
  async offer(candidates: readonly Candidate[], depth: number, referrer: string | null): Promise<FrontierEntry[]> {
    const entries = await this.admit(candidates, depth, referrer);
    const fresh = await this.parts.frontier.add(entries);
    this.remember(entries);
    this.recordSkips(fresh);
    return fresh;
  }

  /** Emit a record for each new entry that was decided without a visit. */
  recordSkips(fresh: readonly FrontierEntry[]): void {
    for (const e of fresh) if (e.skip) this.parts.emit(skipRecord(e));
  }

  /**
   * Have the frontier decide the URLs it holds past `maxDepth` whose depth can no longer drop
   * (see `Frontier.decideHeld`), and emit their `skipped: "budget"` records. Call it after a page
   * completes, and once nothing is left to lease. Without a depth budget nothing is held, and the
   * frontier is not asked (a shared frontier's round trip per page).
   * @returns how many were decided
   * @throws the frontier's error (a store failure)
   */
  async decideHeld(): Promise<number> {
    if (this.rules.maxDepth === Infinity) return 0;
    const decided = await this.parts.frontier.decideHeld();
    for (const e of decided) this.parts.emit(skipRecord(e, 'budget'));
    return decided.length;
  }
}
