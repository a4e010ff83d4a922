import type { DocumentDecision, DocumentResponse, StopReason, VisitResult } from '../browser/visit.js';
import { blankRecord, type PageRecord } from '../model/record.js';
import type { Scope } from '../url/scope.js';
import type { Frontier, FrontierEntry } from '../store/frontier.js';

/**
 * Which visit carries which rendered document, so that one document gets one page record however
 * many URLs lead to it (DESIGN.md, "redirect": a redirect is never a second copy of its target).
 *
 * A visit whose navigation ends under another canonical URL than its own (HTTP redirects, meta
 * refresh, a script or history navigation) claims that URL in the frontier before the document is
 * rendered ({@link Frontier.markDone}, atomic across workers): the first visit to claim it carries
 * the page; any other visit that reaches it stops there and becomes a redirect record. A redirect
 * hop to a URL this worker already visits or has claimed for another visit is stopped before its
 * target is requested (a retry's hop to the page its own earlier attempt claimed goes on); a hop to a URL outside the scope is always stopped (the target is never requested),
 * except on a seed's first navigation, whose final URL joins the scope (`http://a` → `https://www.a/`);
 * so is a hop to a URL robots.txt disallows (RFC 9309 §2.2.2 applies to every URL the crawler
 * requests, a redirect's target included).
 */
export class DocumentClaims {
  /** Canonical URLs this worker visits (leased) or has claimed. */
  private readonly mine = new Set<string>();
  /** Claimed final URLs → the canonical URL of the visit that carries their page. */
  private readonly owners = new Map<string, string>();

  /**
   * @param frontier - where claims are made (atomically, across workers)
   * @param scope - the crawl's scope (a seed's redirect target may be added to it)
   * @param canonical - the crawl's `normalize()`; throws for URLs that cannot be crawled
   * @param allowed - whether robots.txt lets the crawl request a URL (always `true` with
   *   `--ignore-robots`); `unreachable` when the URL's origin gave no answer at all to its
   *   robots.txt (connection refused, DNS failure, timeout, TLS failure)
   */
  constructor(
    private readonly frontier: Frontier,
    private readonly scope: Scope,
    private readonly canonical: (u: string) => string,
    private readonly allowed: (u: string) => Promise<boolean | 'unreachable'> = async () => true,
  ) {}

  /**
   * `true` when a page read at `finalUrl` is not the page of `entry`: its canonical URL is
   * another one (the visit may end as a redirect record), or it cannot be crawled.
   */
  isElsewhere(entry: FrontierEntry, finalUrl: string): boolean {
    try {
      return this.canonical(finalUrl) !== entry.url;
    } catch {
      return true;
    }
  }

  /** Note that this worker visits `url` (a leased canonical URL). */
  visiting(url: string): void {
    this.mine.add(url);
  }

  /**
   * Decide one main-frame document response of the visit of `entry` (see `VisitOptions.onDocument`).
   * @returns `follow`, or where to stop and why
   */
  async decide(entry: FrontierEntry, doc: DocumentResponse): Promise<DocumentDecision> {
    const target = doc.location ?? doc.url;
    let url: string;
    try {
      url = this.canonical(target);
    } catch {
      return 'follow';
    }
    if (url === entry.url) return 'follow';
    const seedStart = entry.depth === 0 && doc.initial;
    if (!this.scope.inScope(url)) {
      if (!seedStart) return { stop: 'scope' };
      // A seed's own redirects are followed (robots.txt permitting, below); where it lands joins the scope.
      if (doc.location === null) this.scope.addRoot(url);
    }
    // A redirect target, or a page the browser is sent to client-side: robots.txt applies to it,
    // read from the target's origin before the target is requested (a seed's hop to another host
    // included). An origin that gave no answer at all, not even to robots.txt, gets the browser's
    // own attempt, which fails the same way: the record names that network failure, after the
    // hops that led there, rather than a robots.txt rule that was never read.
    if ((doc.location !== null || !doc.initial) && (await this.allowed(target)) === false) return { stop: 'robots' };
    // A hop to a page this visit's URL claimed itself (an earlier attempt reached it and got a
    // 429 or 503 there) goes on: the retry is what carries that page.
    if (doc.location !== null) return this.claimable(url, entry.url) ? 'follow' : { stop: 'known' };
    // A client-side navigation not answered (yet): nothing is claimed until a document answers (a
    // URL that only redirects gets its own redirect record when it is visited).
    if (doc.status === null) return this.claimable(url, entry.url) ? 'follow' : { stop: 'known' };
    return (await this.claim(url, entry.url)) ? 'follow' : { stop: 'known' };
  }

  /**
   * For a rendered visit whose page ended under another canonical URL without a new document
   * (a history or hash navigation; document navigations were decided by
   * {@link DocumentClaims.decide} as they happened): `scope` when that URL is outside the scope,
   * `known` when its page is carried by another visit, else `null` (this visit carries it). A
   * seed's final URL joins the scope.
   * @param entry - the frontier entry that was visited
   * @param res - the visit (its `finalUrl`)
   */
  async forwardedAfterRender(entry: FrontierEntry, res: VisitResult): Promise<'scope' | 'known' | null> {
    if (!res.finalUrl || res.nonHtml || res.error) return null;
    let url: string;
    try {
      url = this.canonical(res.finalUrl);
    } catch {
      return null;
    }
    if (url === entry.url) return null;
    if (entry.depth === 0 && !this.scope.inScope(url)) this.scope.addRoot(url);
    if (!this.scope.inScope(url)) return 'scope';
    return (await this.claim(url, entry.url)) ? null : 'known';
  }

  /**
   * `true` when this worker lets the visit of `owner` carry `url`'s page: it claimed it already,
   * or neither visits nor has claimed it (another worker may have: see {@link claim}).
   */
  private claimable(url: string, owner: string): boolean {
    const prev = this.owners.get(url);
    return prev !== undefined ? prev === owner : !this.mine.has(url);
  }

  /**
   * Claim `url`'s page for the visit of `owner`, after a navigation that did not request a new
   * document (a history or hash change). `true` when `owner` carries the page.
   */
  async claim(url: string, owner: string): Promise<boolean> {
    if (!this.claimable(url, owner)) return false;
    if (this.owners.get(url) === owner) return true;
    // Unknown or only queued: done now, and this visit's record carries it.
    const ok = await this.frontier.markDone(url, owner);
    if (ok) {
      this.owners.set(url, owner);
      this.mine.add(url);
    }
    return ok;
  }
}

/**
 * The redirect record of a visit that only forwarded: its chain, `finalUrl` and what the URL
 * itself answered; no title, no links, no page observations (DESIGN.md, "Counting"). A target
 * outside the scope makes it `skipped: "scope"`, one robots.txt disallows `skipped: "robots"`.
 * @param entry - the frontier entry that was visited
 * @param res - the visit (`finalUrl` is the target, `redirectChain` the hops to it)
 * @param attempts - navigations made for this URL
 * @param why - why the navigation stopped (`known`: the target's page is recorded elsewhere;
 *   `logged-out`: the target is the login page, which the session does not get past)
 */
export function redirectRecord(entry: FrontierEntry, res: VisitResult, attempts: number, why: StopReason): PageRecord {
  const r = blankRecord(entry.url, entry.requestedUrl, entry.depth, entry.referrer);
  r.attempts = attempts;
  r.finalUrl = res.finalUrl;
  r.redirectChain = res.redirectChain;
  r.status = res.redirectChain[0]?.status ?? res.status;
  r.settled = true;
  r.timings = res.timings;
  r.redirect = true;
  // `logged-out`: a page the session does not reach forwards to the login page (never requested).
  if (why !== 'known' && why !== 'logged-out') r.skipped = why;
  return r;
}
