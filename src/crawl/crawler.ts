import { setMaxListeners } from 'node:events';
import path from 'node:path';
import pLimit from 'p-limit';
import { devices, type Browser, type BrowserContextOptions } from 'playwright';
import { HttpClient } from '../net/http-client.js';
import { browserUserAgent, defaultUserAgent, launchBrowser } from '../browser/launch.js';
import { ContextPool } from '../browser/pool.js';
import { visitPage, type VisitResult } from '../browser/visit.js';
import { blankRecord, type PageRecord, type RecordError, type SkipReason } from '../model/record.js';
import { ensureWritableDir } from '../report/files.js';
import { screenshotFileName } from '../report/screenshot-name.js';
import type { EndReason } from '../model/summary.js';
import { normalize, toRequestUrl } from '../url/normalize.js';
import { RobotsCache } from '../url/robots.js';
import { Scope } from '../url/scope.js';
import { readSitemaps } from '../url/sitemap.js';
import { VERSION } from '../version.js';
import { Channel } from './channel.js';
import { isShared, StaleLeaseError, type Frontier, type FrontierCounts, type FrontierEntry, type Lease, type SharedFrontier } from '../store/frontier.js';
import { classifyLinks, fragmentLinksOf, type Candidate } from './link-pipeline.js';
import { applyLinkChecks, LinkChecker } from './link-checks.js';
import { MemoryFrontier } from '../store/memory.js';
import { resolveOptions, type CrawlOptions, type ResolvedCrawlOptions } from './options.js';
import { Politeness } from './politeness.js';
import { recordFromVisit } from './record-builder.js';
import { backoffMs, isRetryable, parseRetryAfter, RETRYABLE_STATUS } from './retry.js';
import { TrapDetector } from './traps.js';
import { DustLearner } from './dust.js';
import { contentHash } from './fingerprint.js';
import { SoftNotFound, type ProbeResult } from './soft404.js';
import { InfrastructureError } from '../model/errors.js';
import { DocumentClaims, redirectRecord } from './redirects.js';
import type { ClickOptions } from '../browser/explore.js';
import { ClickMemory, CLICK_EVERYWHERE } from '../browser/click-memory.js';
import { scrollOptionsOf } from '../browser/scroll.js';
import { auditSettings, type AuditSettings } from './audit-settings.js';

/** Robots.txt `Crawl-delay` values above this are capped (ms). */
export const MAX_CRAWL_DELAY_MS = 30_000;

/** Leases held back at most while their host waits (politeness, Retry-After). */
const PARK_LIMIT = 256;

/**
 * With a shared frontier: how often a worker with nothing to do asks again while other
 * workers still hold leases (they may add links, or die and leave their leases to expire) (ms).
 */
const SHARED_POLL_MS = 250;

/**
 * Playwright context options from the crawl's options: a device's settings, then `viewport`,
 * `locale` and `storageState` on top.
 */
export function contextOptionsOf(o: ResolvedCrawlOptions): BrowserContextOptions {
  const { defaultBrowserType: _ignored, userAgent: _ua, ...device } = o.device ? (devices[o.device] ?? {}) : ({} as Record<string, never>);
  return {
    ...device,
    ignoreHTTPSErrors: o.ignoreHttpsErrors,
    ...(o.viewport ? { viewport: o.viewport } : {}),
    ...(o.locale ? { locale: o.locale } : {}),
    ...(o.storageState ? { storageState: o.storageState } : {}),
  };
}

/** Swallow only a lost lease; any other store error must stop the crawl. */
function ignoreStale(err: unknown): void {
  if (!(err instanceof StaleLeaseError)) throw err;
}

/** A leased URL waiting to be (re)visited. */
interface Parked {
  lease: Lease;
  /** Politeness key (`host:port`). */
  host: string;
  /** Not before this time (ms since epoch): a retry's backoff. */
  readyAt: number;
}

/**
 * One crawl: the loop that leases URLs from the frontier, visits them under a p-limit
 * semaphore and the per-host politeness gate, sends their links through the link pipeline and
 * robots.txt back to the frontier, and streams a {@link PageRecord} for every URL it decides about.
 *
 * A URL whose host must wait (rate, Crawl-delay, Retry-After, per-host cap) is parked without
 * holding a concurrency slot, so other hosts go on. Ends when nothing is queued, parked or in
 * flight; when `maxPages` URLs have been started (the rest get `skipped: "budget"`); or on
 * cancellation / `maxTimeSeconds` (no new pages, in-flight pages get `graceMs`, then their
 * leases are released unrecorded).
 */
export class Crawler {
  readonly options: ResolvedCrawlOptions;
  /** Why the crawl ended; set when iteration finishes. */
  endReason: EndReason = 'done';
  /** `true` once a seed got an HTTP response. */
  seedVisited = false;

  private readonly input: CrawlOptions;
  private readonly frontier: Frontier;
  /** The frontier when other workers share it (Redis), else `null`. */
  private readonly shared: SharedFrontier | null;
  /** Leases this worker holds (visiting or parked): renewed when the frontier's leases expire. */
  private readonly held = new Set<Lease>();
  /** A shared store's failure inside a visit (politeness), re-thrown after the visit. */
  private storeFailure: unknown = null;
  private readonly out = new Channel<PageRecord>();
  private readonly stop = new AbortController();
  private readonly cancelVisits = new AbortController();
  private readonly politeness: Politeness;
  private readonly traps: TrapDetector;
  private readonly attempts = new Map<string, number>();
  private readonly parked: Parked[] = [];
  private stopReason: EndReason | null = null;
  private scope!: Scope;
  /** Which visit carries which rendered document (redirect records). */
  private claims!: DocumentClaims;
  private robots: RobotsCache | null = null;
  private browser: Browser | null = null;
  private ownBrowser = false;
  private relaunching: Promise<void> | null = null;
  private started = 0;
  private running = false;
  private readonly limit: ReturnType<typeof pLimit>;
  private pool: ContextPool | null = null;
  /** Requests outside pages for links (`--check-external`, https probes of `http://` links). */
  private linkChecker: LinkChecker | null = null;
  private readonly soft404: SoftNotFound | null;
  private readonly dust: DustLearner | null;
  /** What `--click auto` learned about each site's clickables (chrome or per page), in this process. */
  private readonly clickMemory = new ClickMemory();
  /** Things the summary should say (soft-404 matching switched off, learned parameters …). */
  readonly notes: string[] = [];
  /** The accessibility check, vitals and measure gate of every visit. */
  private readonly auditing: AuditSettings;

  /** @throws OptionsError for nonsensical options (checked here, before anything starts) */
  constructor(options: CrawlOptions) {
    this.input = options;
    this.options = resolveOptions(options);
    this.frontier = options.frontier ?? new MemoryFrontier();
    this.shared = isShared(this.frontier) ? this.frontier : null;
    // Every visit in flight listens for cancellation (and removes its listener when it ends):
    // more than 10 at once is expected, not a leak.
    setMaxListeners(0, this.cancelVisits.signal);
    this.politeness = new Politeness(
      { ratePerSecond: this.options.rate, perHostConcurrency: this.options.perHostConcurrency },
      this.shared?.politeness ?? null,
    );
    this.traps = new TrapDetector({ maxQueryVariants: this.options.maxQueryVariants, maxPathSegments: 30 });
    this.limit = pLimit(this.options.concurrency);
    this.soft404 = this.options.soft404
      ? new SoftNotFound(
          // A probe started ahead of the pages waits its turn; one a page waits for runs at once
          // (the waiting page holds a concurrency slot but no tab).
          (url, queued) => (queued ? this.limit(() => this.probe(url)) : this.probe(url)),
          (note) => this.remark(note),
        )
      : null;
    this.dust = this.options.dedupeContent ? new DustLearner() : null;
    this.auditing = auditSettings(this.options);
  }

  /** Parameters learned as irrelevant to content, per origin (`origin: name, …`). */
  learnedRules(): string[] {
    return this.dust?.rules() ?? [];
  }

  /**
   * Render a not-found probe (no record, no budget; it takes a tab and obeys robots.txt and
   * politeness). The root probe of an origin waits for a concurrency slot; a route prefix's
   * probe that a page waits for does not (see SoftNotFound).
   */
  private async probe(url: string): Promise<ProbeResult | null> {
    if (this.stopReason || !this.pool) return null;
    if (this.robots && !(await this.robots.isAllowed(url))) return null;
    const host = Politeness.key(url);
    this.politeness.start(host);
    try {
      await this.ensureBrowser(this.pool);
      const slot = await this.pool.acquire();
      const res = await visitPage(slot.tab, url, {
        navigationTimeoutMs: this.options.timeoutMs,
        settleTimeoutMs: this.options.settleTimeoutMs,
        quietMs: this.options.quietMs,
        screenshotPath: null,
        maxDialogs: 10,
        beforeNavigate: () => this.beforeNavigate(host),
        onNavigationSent: (at) => this.politeness.sent(host, at),
        signal: this.cancelVisits.signal,
        measureGate: this.auditing.measureGate,
      });
      this.pool.release(slot, res.contextBroken);
      if (res.error || res.nonHtml) return null;
      return { text: res.text, status: res.status, path: new URL(url).pathname, finalUrl: res.finalUrl };
    } catch {
      return null;
    } finally {
      this.politeness.finish(host);
    }
  }

  /** Sizes of the frontier (queued, in flight, done), for progress displays. May reject once the crawl has ended. */
  frontierCounts(): Promise<FrontierCounts> {
    return this.frontier.counts();
  }

  /** Ask the crawl to end: no new pages start; in-flight pages get the grace period. */
  cancel(reason: EndReason = 'interrupted'): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.stop.abort();
  }

  /** Stream the records. Iterate once. */
  records(): AsyncIterable<PageRecord> {
    if (!this.running) {
      this.running = true;
      this.run().then(
        () => this.out.close(),
        (err: unknown) => this.out.fail(err),
      );
    }
    return this.out;
  }

  private notice(msg: string): void {
    this.input.onNotice?.(msg);
  }

  /** A notice the summary keeps too (in `notes`, once however often it recurs). */
  private remark(msg: string): void {
    if (!this.notes.includes(msg)) this.notes.push(msg);
    this.notice(msg);
  }

  private emit(r: PageRecord): void {
    this.out.push(r);
  }

  private canonical(u: string | URL): string {
    return normalize(u, this.options.normalize);
  }

  private async run(): Promise<void> {
    const o = this.options;
    this.scope = new Scope(o.seeds, { mode: o.scope, include: o.include, exclude: o.exclude, normalize: o.normalize });
    this.claims = new DocumentClaims(this.frontier, this.scope, (u) => this.canonical(u), async (u) => (this.robots ? this.robots.isAllowed(u) : true));
    const seeds: Candidate[] = o.seeds.map((s) => ({ url: this.canonical(s), requestedUrl: toRequestUrl(s, o.normalize) }));

    const onExternalAbort = (): void => this.cancel('interrupted');
    if (this.input.signal?.aborted) onExternalAbort();
    this.input.signal?.addEventListener('abort', onExternalAbort, { once: true });
    const maxTimer = o.maxTimeSeconds ? setTimeout(() => this.cancel('max-time'), o.maxTimeSeconds * 1000) : null;

    if (o.screenshotsDir) ensureWritableDir(o.screenshotsDir);

    if (this.input.browser) this.browser = this.input.browser;
    else {
      this.browser = (await launchBrowser({ browserPath: o.browserPath, proxy: o.proxy })).browser;
      this.ownBrowser = true;
    }
    let pool: ContextPool | null = null;
    try {
      const deviceUa = o.device ? devices[o.device]?.userAgent : undefined;
      const userAgent = o.userAgent ?? (deviceUa ? `${deviceUa} spacrawl/${VERSION}` : defaultUserAgent(await browserUserAgent(this.browser), VERSION));
      // Every request outside the browser (robots.txt, sitemaps, link checks) goes through this
      // one client: the browser's User-Agent, proxy and TLS settings, `--header` to in-scope URLs.
      const client = new HttpClient({
        userAgent,
        proxy: o.proxy,
        ignoreHttpsErrors: o.ignoreHttpsErrors,
        headersFor: (url) => (this.scope.inScope(url) ? o.headers : {}),
      });
      this.linkChecker = new LinkChecker(client, { timeoutMs: o.timeoutMs });
      if (!o.ignoreRobots) {
        this.robots = new RobotsCache({
          request: client,
          agent: o.robotsAgent,
          ...(this.shared ? { shared: this.shared.robots } : {}),
          onProblem: (origin, outcome) => this.remark(`robots.txt of ${origin} unusable (${outcome.detail}): treating the whole origin as disallowed`),
          onOutcome: (origin, outcome) => {
            if (outcome.crawlDelayMs === null) return;
            let ms = outcome.crawlDelayMs;
            if (ms > MAX_CRAWL_DELAY_MS) {
              this.remark(`robots.txt of ${origin} asks for Crawl-delay ${ms / 1000} s; capped at ${MAX_CRAWL_DELAY_MS / 1000} s`);
              ms = MAX_CRAWL_DELAY_MS;
            }
            this.politeness.setCrawlDelay(Politeness.key(origin), ms);
          },
        });
      }
      pool = new ContextPool(this.browser, {
        userAgent,
        recycleAfter: o.recycleAfter,
        contextOptions: contextOptionsOf(o),
        headers: o.headers,
        headerScope: (url) => this.scope.inScope(url),
        initScripts: this.auditing.initScripts,
      });
      this.pool = pool;
      if (this.auditing.note) this.remark(this.auditing.note);
      // On a resumed durable crawl, pages visited in earlier runs count against --max-pages (a
      // shared frontier keeps the crawl-wide budget itself).
      if (!this.shared) this.started = (await this.frontier.visited?.()) ?? 0;
      await this.offer(seeds, 0, null);
      if (o.sitemap) await this.seedFromSitemaps(client, seeds);
      await this.loop(pool);
    } finally {
      if (maxTimer) clearTimeout(maxTimer);
      this.input.signal?.removeEventListener('abort', onExternalAbort);
      await pool?.close();
      if (this.ownBrowser) await this.browser?.close().catch(() => {});
      // Durable stores keep why the run ended, for export (a store failure has its own error).
      await this.frontier.recordEnd?.(this.endReason).catch(() => {});
      await this.frontier.close();
    }
  }

  /** Parked leases whose navigation has not started before (retries are not counted again). */
  private parkedFirstVisits(): number {
    let n = 0;
    for (const p of this.parked) if (!this.attempts.has(p.lease.entry.url)) n++;
    return n;
  }

  /** The next parked lease whose host and backoff allow a start now, or the time until one does. */
  private takeReadyParked(now: number): { lease: Lease; host: string } | number {
    let soonest = Infinity;
    for (let i = 0; i < this.parked.length; i++) {
      const p = this.parked[i]!;
      const wait = Math.max(p.readyAt - now, this.politeness.waitMs(p.host, now));
      if (wait <= 0) {
        this.parked.splice(i, 1);
        return { lease: p.lease, host: p.host };
      }
      soonest = Math.min(soonest, wait);
    }
    return soonest;
  }

  private async loop(pool: ContextPool): Promise<void> {
    const o = this.options;
    const limit = this.limit;
    const active = new Set<Promise<void>>();
    const stopped = new Promise<void>((r) => this.stop.signal.addEventListener('abort', () => r(), { once: true }));
    let frontierDry = false;
    let budgetSpent = false;
    /** With a shared frontier: URLs still queued when the crawl-wide budget ran out. */
    let sharedLeft = 0;
    // A worker of a shared crawl holds back no more than it can start soon, so that URLs of a
    // host that must wait stay claimable by the other workers.
    const parkLimit = this.shared ? o.concurrency : PARK_LIMIT;
    // Leases that expire (SQLite, Redis) are renewed every third of their lifetime while held.
    const ttl = this.frontier.leaseTtlMs;
    const renewTimer = ttl ? setInterval(() => void this.renewHeld(), Math.max(100, ttl / 3)) : null;
    try {

      const launch = (lease: Lease, host: string): void => {
        const url = lease.entry.url;
        if (!this.attempts.has(url)) this.started++;
        this.politeness.start(host);
        const job: Promise<void> = limit(() => this.process(pool, lease, host))
          .catch((err: unknown) => {
            // process() records page failures itself; anything here is infrastructure.
            this.fatal = this.fatal ?? err;
            this.cancel('interrupted');
          })
          .finally(() => {
            this.politeness.finish(host);
            active.delete(job);
          });
        active.add(job);
      };

      for (;;) {
        if (this.stopReason) break;
        if (active.size >= o.concurrency) {
          await Promise.race([...active, stopped]);
          continue;
        }
        const now = Date.now();
        const ready = this.takeReadyParked(now);
        if (typeof ready !== 'number') {
          launch(ready.lease, ready.host);
          continue;
        }
        let waitFor = ready;
        // Parked first visits count against the budget too: they start once their host opens.
        if (!this.shared && this.started + this.parkedFirstVisits() >= o.maxPages) budgetSpent = true;
        // A shared frontier keeps the budget itself (and still hands out dead workers' leases).
        if ((!budgetSpent || this.shared) && !frontierDry && this.parked.length < parkLimit) {
          const lease = await this.frontier.next();
          if (lease) {
            this.held.add(lease);
            const host = Politeness.key(lease.entry.requestedUrl);
            if (this.politeness.waitMs(host) <= 0) launch(lease, host);
            else this.parked.push({ lease, host, readyAt: 0 });
            continue;
          }
          frontierDry = true;
        }
        if (active.size === 0 && this.parked.length === 0) {
          if (!this.shared) break;
          // Other workers may still add links, or die and leave their leases to expire here.
          if (await this.shared.budgetSpent()) budgetSpent = true;
          const c = await this.frontier.counts();
          if (c.inFlight === 0 && (c.queued === 0 || budgetSpent)) {
            sharedLeft = c.queued;
            break;
          }
          waitFor = Math.min(waitFor, SHARED_POLL_MS);
        }
        // Wait for a page to finish (it may queue links or free a host) or a parked host to open.
        const waits: Promise<unknown>[] = [...active, stopped];
        let timer: NodeJS.Timeout | undefined;
        if (Number.isFinite(waitFor)) waits.push(new Promise<void>((r) => (timer = setTimeout(r, Math.max(5, waitFor)))));
        await Promise.race(waits);
        clearTimeout(timer);
        frontierDry = false;
        waitFor = Infinity;
      }

      if (this.stopReason) {
        // Grace period for the pages in flight, then cut them short (their leases go back).
        const all = Promise.all(active);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, o.graceMs)))]);
        clearTimeout(timer);
        this.cancelVisits.abort();
        await all;
        for (const p of this.parked.splice(0)) {
          this.held.delete(p.lease);
          // After a store failure the leases cannot be given back; they expire.
          await this.frontier.release(p.lease).catch((err: unknown) => {
            if (!this.fatal) ignoreStale(err);
          });
        }
        this.endReason = this.stopReason;
        if (this.fatal) throw this.fatal instanceof Error ? this.fatal : new InfrastructureError(String(this.fatal));
        return;
      }
      await Promise.all(active);
      if (budgetSpent) {
        const left = await this.frontier.drain();
        for (const e of left) this.emitSkipped(e, 'budget');
        this.endReason = left.length > 0 || sharedLeft > 0 ? 'max-pages' : 'done';
      } else this.endReason = 'done';
    } finally {
      if (renewTimer) clearInterval(renewTimer);
    }
  }

  /**
   * Renew every lease this worker holds (shared frontier). A lease lost meanwhile (it expired
   * and another worker took it) is dropped: that worker records the page.
   */
  private async renewHeld(): Promise<void> {
    for (const lease of [...this.held]) {
      try {
        await this.frontier.renew(lease);
      } catch (err) {
        if (err instanceof StaleLeaseError) {
          this.held.delete(lease);
          continue;
        }
        this.fatal = this.fatal ?? err;
        this.cancel('interrupted');
        return;
      }
    }
  }

  /**
   * Complete a lease; when it was lost to another worker (it expired), the page is left to
   * that worker and nothing is emitted.
   * @returns the new discovered entries, or `null` when the lease was lost
   */
  private async finishLease(lease: Lease, r: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[] | null> {
    this.held.delete(lease);
    try {
      return await this.frontier.complete(lease, r, discovered);
    } catch (err) {
      if (!(err instanceof StaleLeaseError)) throw err;
      this.notice(`the lease on ${lease.entry.url} expired before the page was recorded; another worker visits it again`);
      return null;
    }
  }

  private fatal: unknown = null;

  private emitSkipped(e: FrontierEntry, reason: SkipReason, error: RecordError | null = null): void {
    const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
    r.skipped = reason;
    r.error = error;
    r.duplicateOf = e.duplicateOf ?? null;
    this.emit(r);
  }

  /**
   * Decide traps, depth budget and robots.txt for candidate URLs found at `depth - 1` (or
   * seeds at 0): the frontier entries to offer, skipped ones marked.
   */
  private async decide(cands: readonly Candidate[], depth: number, referrer: string | null): Promise<FrontierEntry[]> {
    const entries: FrontierEntry[] = [];
    for (const c of cands) {
      const e: FrontierEntry = { url: c.url, requestedUrl: c.requestedUrl, depth, referrer };
      const dup = this.dust?.duplicateOf(c.url) ?? null;
      if (depth > this.options.maxDepth) e.skip = 'budget';
      else if (this.traps.check(c.url)) e.skip = 'trap';
      else if (dup) {
        e.skip = 'duplicate';
        e.duplicateOf = dup;
      }
      else if (this.robots) {
        const d = await this.robots.check(c.requestedUrl);
        if (!d.allowed) {
          e.skip = 'robots';
          if (d.outcome.kind === 'disallow-all') {
            e.skipError = {
              code: 'robots-unavailable',
              message: `robots.txt could not be fetched (${d.outcome.detail}); the origin is treated as disallowed (RFC 9309 §2.3.1.4)`,
            };
          }
        }
      }
      if (!e.skip && this.soft404 && this.options.soft404) this.soft404.ensure(new URL(c.requestedUrl).origin);
      entries.push(e);
    }
    return entries;
  }

  /** Emit a record for each new entry that was decided without a visit. */
  private emitFreshSkips(fresh: readonly FrontierEntry[]): void {
    for (const e of fresh) if (e.skip) this.emitSkipped(e, e.skip, e.skipError ?? null);
  }

  /** Offer candidates to the frontier outside a page completion (seeds, sitemaps). */
  private async offer(cands: readonly Candidate[], depth: number, referrer: string | null): Promise<FrontierEntry[]> {
    const fresh = await this.frontier.add(await this.decide(cands, depth, referrer));
    this.emitFreshSkips(fresh);
    return fresh;
  }

  /** Canonical URLs the sitemaps added to the frontier (not already known as seeds), for the summary. */
  readonly sitemapUrls = new Set<string>();

  /**
   * `--sitemap`: each seed origin's robots.txt `Sitemap:` lines (or `/sitemap.xml` when there
   * are none) seed the frontier at depth 1; each URL passes scope and robots like a link.
   */
  private async seedFromSitemaps(request: HttpClient, seeds: readonly Candidate[]): Promise<void> {
    const origins = [...new Set(seeds.map((s) => new URL(s.requestedUrl).origin))];
    for (const origin of origins) {
      const listed = this.robots ? (await this.robots.outcome(origin)).sitemaps : [];
      const start = listed.length ? listed : [`${origin}/sitemap.xml`];
      const found = await readSitemaps(request, start);
      for (const p of found.problems) this.notice(`sitemap ${p}`);
      const links = classifyLinks(
        found.urls.map((href) => ({ href, text: '', source: 'sitemap' as const, rel: '' })),
        this.scope,
        this.options.normalize,
      );
      const fresh = await this.offer(links.candidates, 1, null);
      for (const e of fresh) this.sitemapUrls.add(e.url);
      this.notice(`sitemap: ${found.urls.length} URLs in ${found.files.length} file(s), ${fresh.length} new in scope`);
    }
  }

  /** The politeness gate before a navigation; a shared store's failure is kept to stop the crawl. */
  private async beforeNavigate(host: string): Promise<void> {
    try {
      await this.politeness.beforeNavigate(host);
    } catch (err) {
      this.storeFailure = this.storeFailure ?? err;
      throw err;
    }
  }

  /** Click discovery settings for the page `url` (canonical) on `origin`. */
  private clickOptions(origin: string, url: string): ClickOptions {
    const o = this.options;
    return {
      limit: o.clickLimit,
      exclude: o.clickExclude,
      policy: o.click === 'all' ? CLICK_EVERYWHERE : this.clickMemory.forPage(origin, url),
      repeat: o.clickRepeat,
      clickWaitMs: 1000,
      budgetMs: 30_000,
      maxRevealDepth: 2,
    };
  }

  /** Relaunch a crashed browser we own (one relaunch shared by every caller). */
  private async ensureBrowser(pool: ContextPool): Promise<void> {
    if (this.browser?.isConnected()) return;
    if (!this.ownBrowser) throw new InfrastructureError('the browser disconnected and is not ours to relaunch');
    if (!this.relaunching) {
      this.notice('the browser disconnected: relaunching it and requeueing the pages in flight');
      this.relaunching = (async () => {
        try {
          const { browser } = await launchBrowser({ browserPath: this.options.browserPath, proxy: this.options.proxy });
          this.browser = browser;
          pool.replaceBrowser(browser);
        } catch (err) {
          throw new InfrastructureError(`the browser crashed and could not be relaunched: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        } finally {
          this.relaunching = null;
        }
      })();
    }
    await this.relaunching;
  }

  /**
   * For a rendered visit whose page ended under another canonical URL without a new document
   * (a history or hash navigation; document navigations were decided as they happened): `scope`
   * when that URL is outside the scope, `known` when its page is carried by another visit, else
   * `null` (this visit carries it). A seed's final URL joins the scope.
   */
  private async forwardedAfterRender(e: FrontierEntry, res: VisitResult): Promise<'scope' | 'known' | null> {
    if (!res.finalUrl || res.nonHtml || res.error) return null;
    let url: string;
    try {
      url = this.canonical(res.finalUrl);
    } catch {
      return null;
    }
    if (url === e.url) return null;
    if (e.depth === 0 && !this.scope.inScope(url)) this.scope.addRoot(url);
    if (!this.scope.inScope(url)) return 'scope';
    return (await this.claims.claim(url, e.url)) ? null : 'known';
  }

  private async process(pool: ContextPool, lease: Lease, host: string): Promise<void> {
    const o = this.options;
    const e = lease.entry;
    const attempt = (this.attempts.get(e.url) ?? 0) + 1;
    this.attempts.set(e.url, attempt);
    const shotName = o.screenshotsDir ? screenshotFileName(e.url) : null;

    // A variant queued before its parameter was learned as irrelevant is not rendered.
    const dup = attempt === 1 ? (this.dust?.duplicateOf(e.url) ?? null) : null;
    if (dup) {
      const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
      r.skipped = 'duplicate';
      r.duplicateOf = dup;
      if (await this.finishLease(lease, r, [])) this.emit(r);
      return;
    }

    this.claims.visiting(e.url);
    await this.ensureBrowser(pool);
    let slot;
    try {
      slot = await pool.acquire();
    } catch (err) {
      // The browser may have died between the check and the new context.
      if (this.browser?.isConnected()) throw err;
      await this.ensureBrowser(pool);
      slot = await pool.acquire();
    }
    const res: VisitResult = await visitPage(slot.tab, e.requestedUrl, {
      navigationTimeoutMs: o.timeoutMs,
      settleTimeoutMs: o.settleTimeoutMs,
      quietMs: o.quietMs,
      screenshotPath: shotName && o.screenshotsDir ? path.join(o.screenshotsDir, shotName) : null,
      maxDialogs: 10,
      click: o.click === 'off' ? null : this.clickOptions(new URL(e.requestedUrl).origin, e.url),
      scroll: o.scroll ? scrollOptionsOf(o) : null,
      collectAnchors: o.checkFragments,
      a11y: this.auditing.a11y,
      vitals: this.auditing.vitals,
      measureGate: this.auditing.measureGate,
      beforeNavigate: () => this.beforeNavigate(host),
      onNavigationSent: (at) => this.politeness.sent(host, at),
      onDocument: (doc) => this.claims.decide(e, doc),
      onMainResponse: (status, headers, at) => {
        if (!RETRYABLE_STATUS.has(status)) return false;
        // Apply Retry-After to the host at once, before other visits to it start.
        const ra = parseRetryAfter(headers['retry-after'], at);
        if (ra !== null) this.politeness.pause(host, at + Math.min(ra, o.maxRetryAfterMs));
        return attempt <= o.retries; // it will be retried: no need to render it
      },
      signal: this.cancelVisits.signal,
    });
    pool.release(slot, res.contextBroken);
    if (this.storeFailure) throw this.storeFailure;
    if (res.interrupted) {
      this.attempts.set(e.url, attempt - 1);
      this.held.delete(lease);
      await this.frontier.release(lease).catch(ignoreStale);
      return;
    }

    // A browser that died under the page: relaunch and visit again (counts as an attempt).
    if (!this.browser?.isConnected() && attempt <= o.retries + 2) {
      await this.ensureBrowser(pool);
      this.parked.push({ lease, host, readyAt: Date.now() });
      return;
    }

    if (isRetryable(res) && attempt <= o.retries) {
      const now = Date.now();
      const retryAfter = parseRetryAfter(res.retryAfter, res.respondedAt ?? now);
      if (retryAfter !== null) {
        // Retry-After holds the whole host, not only this URL.
        this.politeness.pause(host, (res.respondedAt ?? now) + Math.min(retryAfter, o.maxRetryAfterMs));
        this.parked.push({ lease, host, readyAt: 0 });
      } else {
        this.parked.push({ lease, host, readyAt: now + backoffMs(attempt, o.retryBaseMs) });
      }
      return;
    }

    if (e.depth === 0 && res.status !== null) this.seedVisited = true;
    // A URL that only forwards (to a page recorded under another URL, or off-site) is a redirect record.
    const forwarded = res.stopped?.reason ?? (await this.forwardedAfterRender(e, res));
    const r = forwarded ? redirectRecord(e, res, attempt, forwarded) : recordFromVisit(e, res, attempt, shotName, o.robotsAgent);
    if (!forwarded && res.status === 200 && !res.nonHtml && !res.noContent && res.error === null && res.finalUrl) {
      if (this.soft404) {
        const page = { url: res.finalUrl, status: res.status, title: res.title ?? '', headings: res.headings, text: res.text };
        r.soft404Reason = await this.soft404.judge(page, e.depth === 0);
        r.soft404 = r.soft404Reason !== null;
      }
      const learned = this.dust?.observe(e.url, contentHash(res.text)) ?? [];
      for (const name of learned) this.notice(`learned: parameter ${name.slice(2)} does not change content on ${new URL(e.url).origin}; further variants are skipped as duplicates`);
    }
    const followLinks = !forwarded && !res.nonHtml && res.error === null;

    let discovered: FrontierEntry[] = [];
    let requestUrls = new Map<string, string>();
    if (followLinks) {
      const classified = classifyLinks(res.links, this.scope, o.normalize, o.followNofollow);
      r.links = classified.links;
      r.linkDetails = classified.linkDetails;
      r.externalLinks = classified.externalLinks;
      r.linkSources = classified.linkSources;
      requestUrls = classified.requestUrls;
      if (o.checkFragments) r.fragmentLinks = fragmentLinksOf(res.links, this.scope, o.normalize);
      // <meta name="robots" content="nofollow"> / X-Robots-Tag: nofollow: links recorded, none followed.
      if (!r.nofollow || o.followNofollow) discovered = await this.decide(classified.candidates, e.depth + 1, e.url);
    }
    // Off-site links and https probes are checked before the record is stored, so it is self-contained.
    if (followLinks && this.linkChecker && !(await applyLinkChecks(this.linkChecker, r, o.checkExternal, this.cancelVisits.signal, requestUrls))) {
      this.attempts.set(e.url, attempt - 1);
      this.held.delete(lease);
      await this.frontier.release(lease).catch(ignoreStale);
      return;
    }
    // The record and the links it found go to the frontier in one step (fenced by the lease).
    const fresh = await this.finishLease(lease, r, discovered);
    if (!fresh) return;
    this.emit(r);
    this.emitFreshSkips(fresh);
  }
}

/**
 * Crawl from `options.seeds` and stream one {@link PageRecord} per URL decided about.
 * Breaking out of the loop cancels the crawl.
 * @throws OptionsError for nonsensical options; BrowserNotFoundError when no Chromium is found;
 * InfrastructureError when the browser dies and cannot be relaunched
 * @example
 * for await (const record of crawl({ seeds: ['http://127.0.0.1:8080/'] })) console.log(record.url, record.status);
 */
export async function* crawl(options: CrawlOptions): AsyncGenerator<PageRecord, void, undefined> {
  const crawler = new Crawler(options);
  let finished = false;
  try {
    for await (const r of crawler.records()) yield r;
    finished = true;
  } finally {
    if (!finished) crawler.cancel('interrupted');
  }
}
