/**
 * The page job: one leased URL from visit to completion (see {@link PageJob}), and the soft-404
 * probe's visit. About 570 lines, one piece on purpose: its steps share the job's parts (the tab
 * session, politeness, the lease) and read in order; the probe's plain request is here because it
 * takes its place in the host's politeness order as the job's navigations do.
 * @module
 */
import path from 'node:path';
import { CLICK_EVERYWHERE, type ClickMemory } from '../browser/click-memory.js';
import type { ClickOptions } from '../browser/explore.js';
import type { FoundLink } from '../browser/discovery.js';
import { scrollOptionsOf } from '../browser/scroll.js';
import type { BrowserSession } from '../browser/session.js';
import { canRoute, visitPage, type DocumentDecision, type DocumentResponse, type VisitOptions, type VisitResult } from '../browser/visit.js';
import { DocumentShells } from '../browser/document-shells.js';
import { rendersAsPage } from '../browser/document-type.js';
import { bodyDigest } from '../browser/visit/history-route.js';
import { MAX_SERVER_HTML_BYTES } from '../browser/server-html.js';
import { isLogoutUrl } from '../url/logout.js';
import type { PageRecord } from '../model/record.js';
import { screenshotFileName } from '../browser/screenshot-name.js';
import type { RobotsCache } from '../url/robots.js';
import type { DustLearner } from './dust.js';
import { contentHash } from './fingerprint.js';
import type { FrontierEntry, Lease } from '../store/frontier.js';
import type { LeaseKeeper } from './leases.js';
import { applyLinkChecks, NAVIGATION_ACCEPT, offsiteForward, type LinkChecker } from './link-checks.js';
import { skipRecord, type LinkPipeline } from './link-pipeline.js';
import type { ResolvedCrawlOptions } from './options.js';
import { Politeness, type NavigationTicket } from './politeness.js';
import { recordFromVisit } from './record-builder.js';
import { offerEarlyLinks } from './early-links.js';
import { redirectRecord, type DocumentClaims } from './redirects.js';
import { backoffMs, isRetryable, parseRetryAfter, RETRYABLE_STATUS } from './retry.js';
import { NO_PAGE, repeatedProbe, type ProbeAsk, type ProbeResult, type SoftNotFound } from './soft404.js';
import { CRAWL_LIMITS } from './option-table.js';
import type { Secrets } from '../model/secrets.js';
import type { CrawlEvent } from './events.js';
import type { SessionGuard } from './session-guard.js';
import type { AuditSettings } from './audit-settings.js';

/** What became of one page job; the loop parks a lease to `park` again. */
export type PageOutcome =
  /** Recorded (or lost to another worker, who records it). */
  | { kind: 'done' }
  /** Given back to the frontier unrecorded (the crawl is ending). */
  | { kind: 'released' }
  /** To be visited again, not before `readyAt` (ms since epoch; 0 = as soon as its host allows). */
  | { kind: 'park'; readyAt: number };

/** Everything a {@link PageJob} works with (one crawl's parts). */
export interface PageJobParts {
  /** The crawl's resolved options (timeouts, retries, discovery, screenshots, link checks …). */
  options: ResolvedCrawlOptions;
  /** Tabs to visit in, and the browser's relaunch. */
  session: BrowserSession;
  /** The per-host gate every navigation passes (and Retry-After pauses). */
  politeness: Politeness;
  /** Attempts, completion and release of the leases. */
  leases: LeaseKeeper;
  /** Where a page's links go (classify, admit) and skipped URLs get their records. */
  pipeline: LinkPipeline;
  /** Which visit carries which rendered document (redirect records). */
  claims: DocumentClaims;
  /** robots.txt, or `null` with `--ignore-robots` (probes obey it; pages were admitted by it). */
  robots: RobotsCache | null;
  /** Requests outside pages for links (`--check-external`, https probes of `http://` links). */
  linkChecker: LinkChecker;
  /** Soft-404 judging, or `null` with `--no-soft404`. */
  soft404: SoftNotFound | null;
  /** Parameters learned as irrelevant to content, or `null` with `--no-dedupe-content`. */
  dust: DustLearner | null;
  /** What `--click auto` learned about each site's clickables, in this process. */
  clickMemory: ClickMemory;
  /** The accessibility check, the vitals and the measure gate of every visit (`--a11y`, `--vitals`). */
  auditing: AuditSettings;
  /** Aborted when the visits in flight must end (after the grace period). */
  cancelVisits: AbortSignal;
  /** `true` once the crawl is ending (no probe starts then). */
  stopping: () => boolean;
  /** The crawl's record stream. */
  emit: (record: PageRecord) => void;
  /** A progress note. */
  notice: (message: string) => void;
  /** The crawl's login (`--login`, `--storage-state`): the session guard and the secrets to remove from records; `null` without one. */
  login: { guard: SessionGuard; secrets: Secrets } | null;
  /** Told about retries (see {@link CrawlEvent}). */
  event: (e: CrawlEvent) => void;
  /** Told when a page's links went to the frontier before its visit ended (see `early-links.ts`). */
  linksOffered: () => void;
}

/**
 * The page job: one leased URL from visit to completion, in named steps —
 * {@link PageJob.run}: skip a known duplicate → visit → retry decision → record (a redirect
 * record when the URL only forwards; soft-404 and duplicate judging) → links (through the link
 * pipeline) → link checks → complete the lease (record and new links in one fenced step) and
 * emit. A soft-404 probe ({@link PageJob.probe}) is the same visit step without a lease, a record
 * or a budget. One per crawl; jobs run concurrently under the crawl's limit.
 */
export class PageJob {
  /** A shared store's failure inside a visit (politeness), re-thrown after the visit. */
  private storeFailure: unknown = null;
  private answered = false;
  /** The app shells this crawl's loads found (see `browser/document-shells.ts`), for history routes. */
  private readonly shells = new DocumentShells((m) => this.p.notice(m));

  /** @param p - the crawl's parts */
  constructor(private readonly p: PageJobParts) {}

  /**
   * Note a URL this worker has just leased, before it waits for its host's politeness slot: a
   * redirect hop of another visit to it is stopped from then on (see `DocumentClaims`), not
   * followed to a second request of the same page.
   */
  leased(lease: Lease): void {
    this.p.claims.visiting(lease.entry.url);
  }

  /**
   * Whether a link check may request `url`: robots.txt decides for a URL on the page's own origin
   * (its rules are read already; a link outside the crawl's `--include`/`--exclude` is still on
   * that site); off-site links are checked as a link checker does, without robots.txt.
   * @param page - the URL whose origin is the page's own: its final URL, or for a redirect record its own URL
   */
  private async checkAllowed(url: string, page: string): Promise<boolean> {
    const robots = this.p.robots;
    if (!robots || !URL.canParse(url)) return true;
    return new URL(url).origin !== new URL(page).origin || robots.isAllowed(url);
  }

  /** `true` once a seed got an HTTP response. */
  get seedVisited(): boolean {
    return this.answered;
  }

  /**
   * Run the job of one leased URL, its host's politeness slot already taken.
   * @param host - the politeness key of the URL (`host:port`)
   * @throws for infrastructure failures only (store, browser relaunch); page failures are records
   */
  async run(lease: Lease, host: string): Promise<PageOutcome> {
    const e = lease.entry;
    const attempt = this.p.leases.beginAttempt(lease);
    if (await this.skipKnownDuplicate(lease, attempt)) return { kind: 'done' };

    // A login under way: wait for its session rather than visit with the one that ended.
    const guard = this.p.login?.guard ?? null;
    if (guard) await guard.ready();
    const generation = guard?.generation ?? 0;
    const launches = this.p.session.relaunches;
    const res = await this.visitLeased(e, host, attempt);
    if (res.interrupted) return this.release(lease);

    if (guard && (await this.loggedOut(guard, e, res, generation, attempt)) === 'retry') return { kind: 'park', readyAt: 0 };
    const retry = await this.retryDecision(res, attempt, host, res.contextBroken && this.p.session.relaunches !== launches);
    if (retry) {
      this.p.event({ type: 'retry', url: e.url, attempt, reason: !this.p.session.connected ? 'browser crash' : res.error?.code === 'unresponsive' ? 'browser unresponsive' : res.status !== null ? `status ${res.status}` : 'network error', message: res.error?.message ?? null });
      return retry;
    }

    if (e.depth === 0 && res.status !== null) this.answered = true;
    const { record, follow } = await this.record(e, res, attempt);
    let discovered: FrontierEntry[] = [];
    if (follow) {
      const links = await this.links(record, e, res);
      discovered = links.discovered;
      // Off-site links and https probes are checked before the record is stored, so it is self-contained.
      if (!(await applyLinkChecks(this.p.linkChecker, record, this.p.options.checkExternal, this.p.cancelVisits, links.requestUrls, (u) => this.checkAllowed(u, record.finalUrl ?? record.url)))) return this.release(lease);
    } else if (this.p.options.checkExternal && offsiteForward(record)) {
      // A URL that forwards off-site: the browser stopped at the hop, the link checker asks the target.
      const target = offsiteForward(record)!;
      const asForwarded = new Map<string, string>();
      if (URL.canParse(target)) asForwarded.set(this.p.pipeline.canonical(target), target);
      if (!(await applyLinkChecks(this.p.linkChecker, record, true, this.p.cancelVisits, asForwarded, (u) => this.checkAllowed(u, record.url)))) return this.release(lease);
    }
    return this.complete(lease, record, discovered);
  }

  /**
   * Render a not-found probe: the visit step with no record, no budget and no lease; it takes a
   * tab and obeys robots.txt and politeness (see SoftNotFound). When `ask` says so (and with no
   * login) the URL is asked for over plain HTTP first, and rendered only when that does not
   * tell (see `askPlain`).
   * @returns what it rendered, or the earlier probe of `ask.known` whose document the plain answer
   *   repeats (with this URL as its `finalUrl`); `NO_PAGE` when the URL answered with no page (see
   *   `rendersAsPage`); `null` when it was disallowed, failed or the crawl is ending
   */
  async probe(url: string, ask: ProbeAsk = { plainFirst: false, known: [] }): Promise<ProbeResult | typeof NO_PAGE | null> {
    if (this.p.stopping() || !this.p.session.started) return null;
    if (this.p.robots && !(await this.p.robots.isAllowed(url))) return null;
    const host = Politeness.key(url);
    this.p.politeness.start(host);
    try {
      const guard = this.p.login?.guard ?? null;
      // Logged in, a plain request would not carry the session: only the browser asks.
      if ((ask.plainFirst || ask.known.length > 0) && !guard) {
        const plain = await this.askPlain(url, host, ask.known.length > 0);
        if (plain === NO_PAGE) return NO_PAGE;
        const repeated = plain ? repeatedProbe(ask.known, plain.status, plain.digest) : undefined;
        if (repeated) return { ...repeated, finalUrl: url };
      }
      const res = await this.visit(url, host, guard ? { onDocument: (doc) => guard.rules.onDocument(doc) ?? 'follow', lookFor: guard.rules.selectors } : {});
      if (res.nonHtml) return NO_PAGE;
      if (res.error) return null;
      // A probe that found the session logged out says nothing about "not found" pages.
      if (guard && guard.rules.judge(res, url)) return null;
      return { text: res.text, title: res.title, status: res.status, path: new URL(url).pathname, finalUrl: res.finalUrl, digest: res.bodyDigest };
    } catch {
      return null;
    } finally {
      this.p.politeness.finish(host);
    }
  }

  /**
   * A probe URL asked for over plain HTTP first (as a navigation asks: its `Accept`, the crawl's
   * User-Agent, headers and proxy; no redirect followed), in the host's order of navigations
   * (`--rate`, Crawl-delay). A server that answers unknown paths with no page (a text/plain or
   * JSON "not found", an attachment: see `rendersAsPage`) renders no not-found screen, so the
   * probe needs no tab: on a static site each directory's probe was a page load that the first
   * page of the directory waited for (TypeDoc: 7 probes, 52–297 ms each). With `readBody`, a page's
   * body is read (up to `MAX_SERVER_HTML_BYTES`) and hashed, for `repeatedProbe`.
   * @returns `NO_PAGE` when the answer is no page; the status and, when read whole, the SHA-1 (hex)
   *   of a page's body; `null` when only rendering tells (a redirect, no answer)
   */
  private async askPlain(url: string, host: string, readBody: boolean): Promise<typeof NO_PAGE | { status: number; digest: string | null } | null> {
    let ticket: NavigationTicket | null = null;
    try {
      ticket = await this.beforeNavigate(host);
      this.p.politeness.sent(ticket);
      const res = await this.p.session.http.request(url, { timeoutMs: this.p.options.timeoutMs, accept: NAVIGATION_ACCEPT, maxBodyBytes: readBody ? MAX_SERVER_HTML_BYTES : 0 });
      if (res.status >= 300 && res.status < 400) return null;
      if (!rendersAsPage(res.headers['content-type'] ?? null, res.headers['content-disposition'] ?? null)) return NO_PAGE;
      return { status: res.status, digest: readBody && !res.truncated ? bodyDigest(res.body) : null };
    } catch {
      return null;
    } finally {
      if (ticket) this.p.politeness.done(ticket);
    }
  }

  /** A variant queued before its parameter was learned as irrelevant is not rendered: recorded as `duplicate`. */
  private async skipKnownDuplicate(lease: Lease, attempt: number): Promise<boolean> {
    const e = lease.entry;
    const dup = attempt === 1 ? (this.p.dust?.duplicateOf(e.url) ?? null) : null;
    if (!dup) return false;
    const r = skipRecord({ ...e, duplicateOf: dup }, 'duplicate', null);
    if (await this.p.leases.finish(lease, r, [])) this.p.emit(r);
    await this.p.pipeline.decideHeld();
    return true;
  }

  /** The visit step of a page: discovery, screenshot, redirect claims and early Retry-After on top of {@link PageJob.visit}. */
  private async visitLeased(e: FrontierEntry, host: string, attempt: number): Promise<VisitResult> {
    const o = this.p.options;
    const shotName = this.screenshotName(e);
    /** Hops to other hosts whose gate opened and whose request was not heard going out yet (see `gateHop`). */
    const hops: NavigationTicket[] = [];
    const res = await this.visit(e.requestedUrl, host, {
      screenshotPath: shotName && o.screenshotsDir ? path.join(o.screenshotsDir, shotName) : null,
      screenshot: { fullPage: o.screenshotMode === 'full', hide: o.hide, mask: o.visualMask },
      click: o.click === 'off' ? null : this.clickOptions(new URL(e.requestedUrl).origin, e.url),
      scroll: o.scroll ? scrollOptionsOf(o) : null,
      // Not while logged in: the session guard judges the page only once the visit ended.
      ...(this.p.login ? {} : { linksFound: (sofar: Readonly<VisitResult>, links: readonly FoundLink[]) => offerEarlyLinks({ pipeline: this.p.pipeline, claims: this.p.claims, robotsAgent: o.robotsAgent, followNofollow: o.followNofollow, offered: this.p.linksOffered }, e, sofar, links) }),
      collectAnchors: o.checkFragments,
      ...(this.p.login ? { lookFor: this.p.login.guard.rules.selectors } : {}),
      onDocument: async (doc) => {
        const decision = await this.documentDecision(e, doc);
        if (decision === 'follow') {
          const hop = await this.gateHop(host, doc);
          if (hop) hops.push(hop);
        }
        return decision;
      },
      onDocumentSent: (url, at) => {
        const key = answeringHost(url, host);
        const i = hops.findIndex((t) => t.key === key);
        if (i >= 0) this.p.politeness.sent(hops.splice(i, 1)[0]!, at);
      },
      // Vitals measure a load, and a screenshot crawl starts every page from a fresh context.
      reuseDocument: o.hashRouteReuse && !this.p.auditing.vitals && !o.screenshotsDir,
      // Not while logged in: a route's request is made outside the tab, where sign-out URLs are not guarded.
      shells: o.historyRouteReuse && !this.p.auditing.vitals && !o.screenshotsDir && !this.p.login ? this.shells : null,
      documentHeaders: o.headers,
      a11y: this.p.auditing.a11y,
      vitals: this.p.auditing.vitals,
      onMainResponse: (status, headers, at, url) => {
        if (!RETRYABLE_STATUS.has(status)) return false;
        // Apply Retry-After at once, before other visits start, to the host that answered (a
        // redirect's target may be another host than the one asked first).
        const ra = parseRetryAfter(headers['retry-after'], at);
        if (ra !== null) this.p.politeness.pause(answeringHost(url, host), at + Math.min(ra, o.maxRetryAfterMs));
        return attempt <= o.retries; // it will be retried: no need to render it
      },
    }).finally(() => {
      // A hop whose request went unheard (the visit ended first) counts as sent now: later ones wait longer, never less.
      for (const t of hops.splice(0)) this.p.politeness.sent(t);
    });
    if (this.storeFailure) throw this.storeFailure;
    return res;
  }

  /**
   * Where a page's main document may go: never to a sign-out URL while logged in (`logout`), never
   * on to the login page when the session ended (`logged-out`); else the redirect claims decide.
   */
  private async documentDecision(e: FrontierEntry, doc: DocumentResponse): Promise<DocumentDecision> {
    const login = this.p.login;
    if (login) {
      if (doc.location && isLogoutUrl(doc.location)) return { stop: 'logout' };
      const out = login.guard.rules.onDocument(doc);
      if (out) return out;
    }
    return this.p.claims.decide(e, doc);
  }

  /**
   * The logged-out step: a visit the rules find logged out is not recorded as the page; the
   * session guard logs in again (once for every visit that found it) and the page is visited
   * again, or — a page the working session is sent away from (another role's) — recorded as it is.
   * @throws LoginError when logging in failed 3 times in a row
   */
  private async loggedOut(guard: SessionGuard, e: FrontierEntry, res: VisitResult, generation: number, attempt: number): Promise<'retry' | 'record'> {
    if (res.error && res.status === null && !res.stopped) return 'record';
    const rule = guard.rules.judge(res, e.requestedUrl);
    if (!rule) {
      if (res.status !== null && res.status < 400) guard.loggedIn(generation);
      return 'record';
    }
    const action = await guard.loggedOut(e.url, generation, Date.now(), rule);
    if (action === 'retry') this.p.event({ type: 'retry', url: e.url, attempt, reason: 'logged out', message: null });
    return action;
  }

  /**
   * Visit `url` with the crawl's session as a page would be (no discovery, no screenshot, no
   * record), for the session guard's check.
   * @returns the visit, or `null` when it failed
   */
  async sessionCheck(url: string): Promise<VisitResult | null> {
    const guard = this.p.login?.guard;
    if (this.p.stopping() || !guard) return null;
    const host = Politeness.key(url);
    this.p.politeness.start(host);
    try {
      return await this.visit(url, host, { onDocument: (doc) => guard.rules.onDocument(doc) ?? 'follow', lookFor: guard.rules.selectors });
    } catch {
      return null;
    } finally {
      this.p.politeness.finish(host);
    }
  }

  /**
   * The visit step shared by pages and probes: borrow a tab (relaunching a crashed browser),
   * visit under the politeness gate and the crawl's cancellation, give the tab back.
   * @param extra - the page's own visit options on top of the common ones
   */
  private async visit(url: string, host: string, extra: Partial<VisitOptions>): Promise<VisitResult> {
    const o = this.p.options;
    // A tab that shows this URL's document, or its app shell, may reach it without a load (see `visit/hash-route.ts`, `visit/history-route.ts`).
    const shells = extra.shells ?? null;
    const slot = await this.p.session.acquire(extra.reuseDocument || shells ? (tab) => canRoute(tab, url, extra.reuseDocument === true, shells) : undefined);
    /**
     * This visit's place in the host's order of navigations (see `Politeness.beforeNavigate`). A
     * visit may ask twice (a route attempt that falls back to a load): the first is closed then.
     */
    let ticket: NavigationTicket | null = null;
    let ended = false;
    try {
      const res = await visitPage(slot.tab, url, {
        navigationTimeoutMs: o.timeoutMs,
        settleTimeoutMs: o.settleTimeoutMs,
        quietMs: o.quietMs,
        screenshotPath: null,
        maxDialogs: CRAWL_LIMITS.maxDialogs,
        beforeNavigate: async () => {
          if (ticket) this.p.politeness.done(ticket);
          const t = await this.beforeNavigate(host);
          // A visit cancelled while it waited has ended already: its place is given up at once.
          if (ended) this.p.politeness.done(t);
          else ticket = t;
        },
        onNavigationSent: (at) => {
          if (ticket) this.p.politeness.sent(ticket, at);
        },
        signal: this.p.cancelVisits,
        // Probes too: with --vitals-concurrency no probe loads while a page is measured.
        measureGate: this.p.auditing.measureGate,
        ...extra,
      });
      this.p.session.release(slot, res.contextBroken);
      return res;
    } finally {
      ended = true;
      if (ticket) this.p.politeness.done(ticket);
    }
  }

  /**
   * Visit again? A browser that died under the page is relaunched and the page visited again at
   * once (counted as an attempt, up to `retries + 2`); a retryable answer (see `isRetryable`) waits
   * for its `Retry-After` (which holds the whole host) or an exponential backoff, up to `retries`.
   * @returns where to park the lease, or `null` to record the visit as it is
   */
  private async retryDecision(res: VisitResult, attempt: number, host: string, lostBrowser = false): Promise<PageOutcome | null> {
    const o = this.p.options;
    // The browser died under the page (another visit may already have relaunched it).
    if ((lostBrowser || !this.p.session.connected) && attempt <= o.retries + 2) {
      await this.p.session.ensureBrowser();
      return { kind: 'park', readyAt: Date.now() };
    }
    if (!isRetryable(res, attempt) || attempt > o.retries) return null;
    const now = Date.now();
    const retryAfter = parseRetryAfter(res.retryAfter, res.respondedAt ?? now);
    if (retryAfter === null) return { kind: 'park', readyAt: now + backoffMs(attempt, o.retryBaseMs) };
    const until = (res.respondedAt ?? now) + Math.min(retryAfter, o.maxRetryAfterMs);
    const answered = answeringHost(res.finalUrl, host);
    this.p.politeness.pause(answered, until);
    // A pause of the host a redirect led to holds this URL too: its next attempt waits parked,
    // not in the middle of its navigation (see `gateHop`).
    return { kind: 'park', readyAt: answered === host ? 0 : until };
  }

  /**
   * The record step: a URL that only forwards (to a page recorded under another URL, or off-site,
   * or to a URL robots.txt disallows) is a redirect record; any other visit a page record, judged
   * for soft 404 and content duplicates when it rendered a 200 HTML page.
   * @returns the record, and whether the page's links are to be followed
   */
  private async record(e: FrontierEntry, res: VisitResult, attempt: number): Promise<{ record: PageRecord; follow: boolean }> {
    const forwarded = res.stopped?.reason ?? (await this.p.claims.forwardedAfterRender(e, res));
    if (forwarded) return { record: redirectRecord(e, res, attempt, forwarded), follow: false };
    const r = recordFromVisit(e, res, attempt, this.screenshotName(e), this.p.options.robotsAgent);
    if (res.status === 200 && !res.nonHtml && !res.noContent && res.error === null && res.finalUrl) await this.judge(r, e, res, res.finalUrl);
    // A document whose body never ended, or was lost mid-way, is followed as far as it came (see `readPartial`).
    const partial = (res.error?.code === 'timeout' || res.error?.code === 'network') && res.status !== null && res.status < 400 && res.title !== null;
    return { record: r, follow: !res.nonHtml && (res.error === null || partial) };
  }

  /** Soft 404 (`r.soft404`, `r.soft404Reason`) and content duplicates (`--dedupe-content` learns parameters). */
  private async judge(r: PageRecord, e: FrontierEntry, res: VisitResult, finalUrl: string): Promise<void> {
    const { soft404, dust } = this.p;
    if (soft404) {
      const page = { url: finalUrl, status: res.status, title: res.title ?? '', headings: res.headings, text: res.text };
      r.soft404Reason = await soft404.judge(page, e.depth === 0);
      r.soft404 = r.soft404Reason !== null;
    }
    const learned = dust?.observe(e.url, contentHash(res.text)) ?? [];
    for (const name of learned) this.p.notice(`learned: parameter ${name.slice(2)} does not change content on ${new URL(e.url).origin}; further variants are skipped as duplicates`);
  }

  /**
   * The links step: the page's links through the link pipeline into the record; the in-scope
   * ones admitted at `depth + 1` unless the page says `nofollow` (`<meta name="robots">`,
   * `X-Robots-Tag`) and `--follow-nofollow` is off (links recorded, none followed).
   * @returns the entries for the frontier, and canonical URL → URL as linked (for link checks)
   */
  private async links(r: PageRecord, e: FrontierEntry, res: VisitResult): Promise<{ discovered: FrontierEntry[]; requestUrls: Map<string, string> }> {
    const o = this.p.options;
    const classified = this.p.pipeline.classify(res.links);
    r.links = classified.links;
    r.linkDetails = classified.linkDetails;
    r.externalLinks = classified.externalLinks;
    r.linkSources = classified.linkSources;
    if (o.checkFragments) r.fragmentLinks = this.p.pipeline.fragments(res.links);
    const follow = !r.nofollow || o.followNofollow;
    const discovered = follow ? await this.p.pipeline.admit(classified.candidates, e.depth + 1, e.url) : [];
    return { discovered, requestUrls: classified.requestUrls };
  }

  /**
   * The complete step: the record and the links it found go to the frontier in one step (fenced
   * by the lease), then out; then the URLs held past `--max-depth` that this page kept from their
   * decision (it could have reported them nearer) may be decided.
   */
  private async complete(lease: Lease, r: PageRecord, discovered: readonly FrontierEntry[]): Promise<PageOutcome> {
    // Nothing a login typed is stored or written (a site may echo it into a URL or a title).
    this.p.login?.secrets.redactDeep(r);
    const fresh = await this.p.leases.finish(lease, r, discovered);
    if (fresh) {
      this.p.emit(r);
      this.p.pipeline.remember(discovered);
      this.p.pipeline.recordSkips(fresh);
    }
    await this.p.pipeline.decideHeld();
    return { kind: 'done' };
  }

  private async release(lease: Lease): Promise<PageOutcome> {
    await this.p.leases.release(lease);
    return { kind: 'released' };
  }

  /**
   * A document request a visit is about to send to another host than the one its navigation
   * started on (an HTTP redirect's target, `http://a.test/x` → `https://www.a.test/x`; a
   * client-side navigation, decided before it is sent) first passes that host's politeness gate:
   * its gap (`--rate`, its robots.txt `Crawl-delay`, read by the redirect's decision just before)
   * and its `Retry-After` pause hold, and the request counts as that host's last one. Without this,
   * the pages a site reached through its apex or `http:` links came inside the gap of the pages it
   * reached directly (`--rate 2`: 250 ms apart). Its `--per-host-concurrency` is not taken: two
   * visits that each redirect to the other's host would wait for each other. Same-host hops are
   * not spaced: the visit's own navigation passed that gate. The wait counts in the navigation's
   * timeout. The hop counts as sent when its request is heard going out (`onDocumentSent`), not
   * when its gate opens: the browser sends it after the paused redirect is let through, a few ms
   * later (more on a busy machine), which a next navigation to that host spaced from the gate's
   * opening would have taken from its gap (by the browser's clock, 524 ms at --rate 2's 525).
   * @param host - the politeness key the visit's navigation started on
   * @param doc - a document the visit follows (see `VisitOptions.onDocument`)
   * @returns the hop's open ticket, for `Politeness.sent`, or `null` when the hop stays on `host`
   */
  private async gateHop(host: string, doc: DocumentResponse): Promise<NavigationTicket | null> {
    // What goes out next: a redirect's target, or a client-side navigation's own request.
    const next = doc.location ?? (doc.status === null && !doc.initial ? doc.url : null);
    if (next === null) return null;
    const key = answeringHost(next, host);
    if (key === host) return null;
    return this.beforeNavigate(key);
  }

  /** The politeness gate before a navigation; a shared store's failure is kept to stop the crawl. */
  private async beforeNavigate(host: string): Promise<NavigationTicket> {
    try {
      const t0 = Date.now();
      const ticket = await this.p.politeness.beforeNavigate(host);
      const ms = Date.now() - t0;
      if (ms >= 5) this.p.event({ type: 'politeness-wait', host, ms });
      return ticket;
    } catch (err) {
      this.storeFailure = this.storeFailure ?? err;
      throw err;
    }
  }

  /** File name of the page's screenshot inside `--screenshots` (from the canonical URL, secrets removed), or `null` without one. */
  private screenshotName(e: FrontierEntry): string | null {
    // A URL holding a typed secret (a GET form's query) names its file without it.
    const url = this.p.login ? this.p.login.secrets.redact(e.url) : e.url;
    return this.p.options.screenshotsDir ? screenshotFileName(url) : null;
  }

  /** Click discovery settings for the page `url` (canonical) on `origin`. */
  private clickOptions(origin: string, url: string): ClickOptions {
    const o = this.p.options;
    return {
      limit: o.clickLimit,
      exclude: o.clickExclude,
      policy: o.click === 'all' ? CLICK_EVERYWHERE : this.p.clickMemory.forPage(origin, url),
      repeat: o.clickRepeat,
      clickWaitMs: CRAWL_LIMITS.clickWaitMs,
      budgetMs: o.clickBudgetMs,
      maxRevealDepth: CRAWL_LIMITS.maxRevealDepth,
      // Not while logged in: the app's session may live in Web Storage.
      restoreStorage: !this.p.login,
    };
  }
}

/** The politeness key of `url` (`host:port`), or `fallback` when there is no usable URL. */
function answeringHost(url: string | null | undefined, fallback: string): string {
  if (!url) return fallback;
  try {
    return Politeness.key(url);
  } catch {
    return fallback;
  }
}
