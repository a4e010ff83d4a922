/**
 * The crawl loop (lease → schedule → visit → decide → complete) and its lifetime: start, budgets, parking,
 * cancellation, result. About 460 lines, one piece on purpose: what it keeps is the loop's own state (in-flight
 * count, budgets, end reason) that every step of the loop reads; the jobs that do not need it live beside it
 * (page-job.ts, link-pipeline.ts, leases.ts, signals.ts, browser/session.ts).
 * @module
 */
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import pLimit from 'p-limit';
import { PatternSkips } from './pattern-skips.js';
import { ClickMemory } from '../browser/click-memory.js';
import { BrowserSession } from '../browser/session.js';
import { InfrastructureError } from '../model/errors.js';
import type { PageRecord } from '../model/record.js';
import type { EndReason } from '../model/summary.js';
import { ensureWritableDir } from '../util/files.js';
import { normalize, toRequestUrl } from '../url/normalize.js';
import type { RobotsCache } from '../url/robots.js';
import { Scope } from '../url/scope.js';
import { Channel } from './channel.js';
import { robotsForCrawl } from './crawl-robots.js';
import { DustLearner } from './dust.js';
import { isShared, type Frontier, type FrontierCounts, type FrontierEntry, type Lease, type SharedFrontier } from '../store/frontier.js';
import { LeaseKeeper } from './leases.js';
import { LinkChecker } from './link-checks.js';
import { LinkPipeline, skipRecord, type Candidate } from './link-pipeline.js';
import { MemoryFrontier } from '../store/memory.js';
import { resolveOptions, type CrawlOptions, type ResolvedCrawlOptions } from './options.js';
import { PageJob } from './page-job.js';
import { Politeness } from './politeness.js';
import { DocumentClaims } from './redirects.js';
import { SoftNotFound, type ProbeAsk } from './soft404.js';
import { TrapDetector, trapNote } from './traps.js';
import { CRAWL_LIMITS } from './option-table.js';
import type { LoginTotals } from '../model/summary.js';
import { CrawlLogin } from './crawl-login.js';
import type { SessionGuard } from './session-guard.js';
import { auditSettings, type AuditSettings } from './audit-settings.js';
import { CrawlSignals } from './signals.js';
import { settledOrAborted, Wakeup } from '../util/wait.js';


/** Pages in flight per CPU core past which a crawl says that more only compete (see `run`). */
const CONCURRENCY_PER_CORE = 8;
/** Leases held back at most while their host waits (politeness, Retry-After). */
const PARK_LIMIT = 256;

/**
 * With a shared frontier: how often a worker with nothing to do asks again while other
 * workers still hold leases (they may add links, or die and leave their leases to expire) (ms).
 */
const SHARED_POLL_MS = 250;

/** A leased URL waiting to be (re)visited. */
interface Parked {
  lease: Lease;
  /** Politeness key (`host:port`). */
  host: string;
  /** Not before this time (ms since epoch): a retry's backoff. */
  readyAt: number;
}

/** What a crawl ended with, besides its records (see {@link Crawler.result}). */
export interface CrawlResult {
  /** Why the crawl ended. */
  endReason: EndReason;
  /** `true` once a seed got an HTTP response (in this run, from this worker). */
  seedVisited: boolean;
  /** Things the summary should say (robots.txt unusable, soft-404 fingerprints off, Crawl-delay capped …), each once, in order. */
  notes: string[];
  /** Canonical URLs the sitemaps added to the frontier (not already known as seeds), for the summary's orphans. */
  sitemapUrls: ReadonlySet<string>;
  /** Parameters learned as irrelevant to content (`--dedupe-content`), per origin (`origin: name, …`). */
  learnedParams: string[];
  /** Logins of a crawl with a `login` recipe; absent without one. */
  logins?: LoginTotals;
}

/**
 * One crawl: the loop that leases URLs from the frontier, schedules them under a p-limit
 * semaphore and the per-host politeness gate, runs each as a page job (visit → record → links
 * through the link pipeline back to the frontier) and streams a {@link PageRecord} for every URL
 * it decides about.
 *
 * A URL whose host must wait (rate, Crawl-delay, Retry-After, per-host cap) is parked without
 * holding a concurrency slot, so other hosts go on. Ends when nothing is queued, parked or in
 * flight; when `maxPages` URLs have been started (the rest get `skipped: "budget"`); or on
 * cancellation / `maxTimeSeconds` (no new pages, in-flight pages get `graceMs`, then their
 * leases are released unrecorded, and a note in the summary says how many). What it ended with is {@link Crawler.result}.
 */
export class Crawler {
  /** The options as resolved (defaults applied, validated). */
  readonly options: ResolvedCrawlOptions;

  private readonly input: CrawlOptions;
  private readonly frontier: Frontier;
  /** The frontier when other workers share it (Redis), else `null`. */
  private readonly shared: SharedFrontier | null;
  private readonly leases: LeaseKeeper;
  private readonly out = new Channel<PageRecord>();
  private readonly stop = new AbortController();
  private readonly cancelVisits = new AbortController();
  /** Rung when a page queued links before its visit ended (see `early-links.ts`). */
  private readonly frontierGrew = new Wakeup();
  private readonly politeness: Politeness;
  private readonly parked: Parked[] = [];
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly soft404: SoftNotFound | null;
  private readonly dust: DustLearner | null;
  /** What `--click auto` learned about each site's clickables (chrome or per page), in this process. */
  private readonly clickMemory = new ClickMemory();
  /** The accessibility check, vitals and measure gate of every visit. */
  private readonly auditing: AuditSettings;
  private readonly sitemapUrls = new Set<string>();
  private stopReason: EndReason | null = null;
  private endReason: EndReason = 'done';
  /** An infrastructure failure that stops the crawl (re-thrown by `records()`). */
  private fatal: unknown = null;
  private job: PageJob | null = null;
  private guard: SessionGuard | null = null;
  /** Notices, kept notes, events; redacted of what a login typed. */
  private readonly signals: CrawlSignals;
  /** Navigations started (first visits only), against `maxPages`. */
  private started = 0;
  private running = false;
  private ended = false;
  /** The frontier's sizes when the crawl closed it. */
  private closedCounts: FrontierCounts | null = null;

  /** @throws OptionsError for nonsensical options (checked here, before anything starts) */
  constructor(options: CrawlOptions) {
    this.input = options;
    this.signals = new CrawlSignals(options);
    this.options = resolveOptions(options);
    this.frontier = options.frontier ?? new MemoryFrontier();
    this.shared = isShared(this.frontier) ? this.frontier : null;
    // Every visit in flight listens for cancellation (and removes its listener when it ends):
    // more than 10 at once is expected, not a leak.
    setMaxListeners(0, this.cancelVisits.signal);
    this.leases = new LeaseKeeper(this.frontier, { onNotice: (m) => this.signals.notice(m), onFailure: (err) => this.fail(err) });
    this.politeness = new Politeness(
      { ratePerSecond: this.options.rate, perHostConcurrency: this.options.perHostConcurrency },
      this.shared?.politeness ?? null,
    );
    this.limit = pLimit(this.options.concurrency);
    this.soft404 = this.options.soft404
      ? new SoftNotFound(
          // A probe started ahead of the pages waits its turn; one a page waits for runs at once
          // (the waiting page holds a concurrency slot but no tab).
          (url, queued, ask) => (queued ? this.limit(() => this.probe(url, ask)) : this.probe(url, ask)),
          (note) => this.signals.remark(note),
        )
      : null;
    this.dust = this.options.dedupeContent ? new DustLearner() : null;
    this.auditing = auditSettings(this.options);
  }

  /** Sizes of the frontier (queued, in flight, done), for progress displays; once the crawl closed it, the sizes it had then (may reject if they could not be read). */
  frontierCounts(): Promise<FrontierCounts> {
    return this.closedCounts ? Promise.resolve(this.closedCounts) : this.frontier.counts();
  }

  /** Ask the crawl to end: no new pages start; in-flight pages get the grace period. */
  cancel(reason: EndReason = 'interrupted'): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.stop.abort();
  }

  /** Stream the records. Iterate once; the iteration throws what stopped the crawl (InfrastructureError, a store's error). */
  records(): AsyncIterable<PageRecord> {
    if (!this.running) {
      this.running = true;
      this.run().then(
        () => {
          this.ended = true;
          this.out.close();
        },
        (err: unknown) => {
          this.ended = true;
          this.out.fail(err);
        },
      );
    }
    return this.out;
  }

  /**
   * What the crawl ended with, once `records()` is exhausted (or has thrown).
   * @throws Error while the crawl has not ended (or was never started)
   */
  result(): CrawlResult {
    if (!this.ended) throw new Error('the crawl has not ended: read its result after records() is exhausted');
    return {
      endReason: this.endReason,
      seedVisited: this.job?.seedVisited ?? false,
      notes: this.signals.keptNotes(),
      sitemapUrls: new Set(this.sitemapUrls),
      learnedParams: this.dust?.rules() ?? [],
      ...(this.guard && this.options.login ? { logins: this.guard.totals() } : {}),
    };
  }

  /** Stop the crawl for an infrastructure failure (the first one is what `records()` throws). */
  private fail(err: unknown): void {
    this.fatal = this.fatal ?? err;
    this.cancel('interrupted');
  }

  /** A soft-404 probe through the page job (none before the browser session has started). */
  private async probe(url: string, ask: ProbeAsk): Promise<Awaited<ReturnType<PageJob['probe']>>> {
    return this.job ? this.job.probe(url, ask) : null;
  }

  private async run(): Promise<void> {
    const o = this.options;
    const canonical = (u: string | URL): string => normalize(u, o.normalize);
    const scope = new Scope(o.seeds, { mode: o.scope, include: o.include, exclude: o.exclude, normalize: o.normalize });
    // What --include and --exclude left out, told once the pages are done (see `pattern-skips.ts`).
    const patternSkips = o.include.length > 0 || o.exclude.length > 0 ? new PatternSkips(scope) : null;
    const emit = (r: PageRecord): void => {
      patternSkips?.note(r);
      this.out.push(this.signals.record(r));
    };
    let robots: RobotsCache | null = null;
    const claims = new DocumentClaims(this.frontier, scope, canonical, async (u) => {
      if (!robots) return true;
      const d = await robots.check(u);
      return d.allowed || (d.outcome.unanswered ? 'unreachable' : false);
    });
    const seeds: Candidate[] = o.seeds.map((s) => ({ url: canonical(s), requestedUrl: toRequestUrl(s, o.normalize) }));

    const onExternalAbort = (): void => this.cancel('interrupted');
    if (this.input.signal?.aborted) onExternalAbort();
    this.input.signal?.addEventListener('abort', onExternalAbort, { once: true });
    const maxTimer = o.maxTimeSeconds ? setTimeout(() => this.cancel('max-time'), o.maxTimeSeconds * 1000) : null;

    if (o.screenshotsDir) ensureWritableDir(o.screenshotsDir);
    // Each page in flight is a tab with a renderer of its own: far past the cores, they only take turns.
    const cores = os.availableParallelism();
    if (o.concurrency > CONCURRENCY_PER_CORE * cores) this.signals.notice(`concurrency ${o.concurrency} on ${cores} CPU core${cores === 1 ? '' : 's'}: each page in flight is a tab with its own renderer, and past ~${CONCURRENCY_PER_CORE} a core they only share the CPU and memory (about 100 MB each)`);

    // A logged-in crawl (a login recipe, or a storage state) never requests a sign-out URL.
    const login = await CrawlLogin.prepare(o, this.input.loginEnv, {
      secrets: this.signals.secrets,
      event: (e) => this.signals.event(e),
      notice: (m) => this.signals.notice(m),
      remark: (m) => this.signals.remark(m),
    });
    const session = new BrowserSession(o, {
      ...(this.input.browser ? { browser: this.input.browser } : this.input.launching ? { launching: this.input.launching } : {}),
      headerScope: (url) => scope.inScope(url),
      onNotice: (m) => this.signals.notice(m),
      onRelaunch: () => this.signals.event({ type: 'relaunch' }),
      guard: login.requestGuard(),
      initScripts: this.auditing.initScripts,
    });
    await session.launch();
    try {
      await session.start();
      this.guard = await login.start(session, async (url) => (this.job ? this.job.sessionCheck(url) : null));
      // Every tab the crawl can use opens while robots.txt is fetched: a site's first page gives
      // links for all of them, and a tab opened when its first URL comes costs that URL ~0.1-0.25 s.
      session.prewarm(Math.min(o.concurrency, o.maxPages + (this.soft404 ? 1 : 0)));
      if (this.auditing.note) this.signals.remark(this.auditing.note);
      const linkChecker = new LinkChecker(session.http, { timeoutMs: o.timeoutMs, retries: o.retries, maxRetryAfterMs: o.maxRetryAfterMs });
      if (!o.ignoreRobots) {
        robots = robotsForCrawl({ http: session.http, agent: o.robotsAgent, shared: this.shared?.robots ?? null, politeness: this.politeness, remark: (n) => this.signals.remark(n) });
      }
      const traps = new TrapDetector({ maxQueryVariants: o.maxQueryVariants, maxPathSegments: CRAWL_LIMITS.maxPathSegments });
      const pipeline = new LinkPipeline(
        { maxDepth: o.maxDepth, normalize: o.normalize, followNofollow: o.followNofollow, skipSignOut: login.loggedIn },
        // An origin's soft-404 probe starts with its first URL admitted for a visit.
        { scope, traps, robots, dust: this.dust, frontier: this.frontier, emit, onAdmitted: (u) => this.soft404?.ensure(new URL(u).origin), onTrap: (why) => this.signals.remark(trapNote(why)) },
      );
      this.job = new PageJob({
        options: o, session, pipeline, claims, robots, linkChecker, emit, notice: (m) => this.signals.notice(m),
        politeness: this.politeness, leases: this.leases, soft404: this.soft404, dust: this.dust, clickMemory: this.clickMemory, auditing: this.auditing,
        cancelVisits: this.cancelVisits.signal, stopping: () => this.stopReason !== null,
        login: this.guard ? { guard: this.guard, secrets: this.signals.secrets } : null, event: (e) => this.signals.event(e),
        linksOffered: () => this.frontierGrew.notify(),
      });
      // On a resumed durable crawl, pages visited in earlier runs count against --max-pages (a
      // shared frontier keeps the crawl-wide budget itself).
      if (!this.shared) this.started = (await this.frontier.visited?.()) ?? 0;
      await pipeline.offer(seeds, 0, null);
      // The sitemap reader (fast-xml-parser) is loaded only with --sitemap.
      if (o.sitemap) await (await import('./sitemap-seeds.js')).seedFromSitemaps(session.http, robots, seeds, pipeline, (m) => this.signals.notice(m), this.sitemapUrls);
      await this.loop(this.job, pipeline, emit);
      const left = patternSkips?.summary();
      if (left) this.signals.notice(left);
    } finally {
      if (maxTimer) clearTimeout(maxTimer);
      this.input.signal?.removeEventListener('abort', onExternalAbort);
      // The CLI's process exits next: its browser closes meanwhile (see `processExitsAfter`).
      await session.close(this.input.processExitsAfter === true);
      // Durable stores keep why the run ended, for export (a store failure has its own error).
      await this.frontier.recordEnd?.(this.endReason).catch(() => {});
      // The sizes at the end stay readable (the metrics' last scrapes) once the store is closed.
      this.closedCounts = await this.frontier.counts().catch(() => null);
      await this.frontier.close();
    }
  }

  /** Parked leases whose navigation has not started before (retries are not counted again). */
  private parkedFirstVisits(): number {
    let n = 0;
    for (const p of this.parked) if (!this.leases.hasStarted(p.lease.entry.url)) n++;
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

  /**
   * Lease → schedule → run the page job → (park again) until the frontier is dry and nothing is
   * in flight or parked, the budget is spent, or the crawl is cancelled (then the grace period).
   */
  private async loop(job: PageJob, pipeline: LinkPipeline, emit: (r: PageRecord) => void): Promise<void> {
    const o = this.options;
    const limit = this.limit;
    const active = new Set<Promise<void>>();
    let frontierDry = false;
    let budgetSpent = false;
    /** With a shared frontier: URLs still queued when the crawl-wide budget ran out. */
    let sharedLeft = 0;
    // A worker of a shared crawl holds back no more than it can start soon, so that URLs of a
    // host that must wait stay claimable by the other workers.
    const parkLimit = this.shared ? o.concurrency : PARK_LIMIT;
    this.leases.startRenewing();
    try {
      const launch = (lease: Lease, host: string): void => {
        if (!this.leases.hasStarted(lease.entry.url)) this.started++;
        this.politeness.start(host);
        const run: Promise<void> = limit(() => job.run(lease, host))
          .then((outcome) => {
            if (outcome.kind === 'park') this.parked.push({ lease, host, readyAt: outcome.readyAt });
          })
          // The page job records page failures itself; anything here is infrastructure.
          .catch((err: unknown) => this.fail(err))
          .finally(() => {
            this.politeness.finish(host);
            active.delete(run);
          });
        active.add(run);
      };

      for (;;) {
        if (this.stopReason) break;
        if (active.size >= o.concurrency) {
          await settledOrAborted([...active], this.stop.signal);
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
            if (lease.recovered) this.signals.event({ type: 'lease-recovered', url: lease.entry.url });
            this.leases.hold(lease);
            job.leased(lease);
            const host = Politeness.key(lease.entry.requestedUrl);
            if (this.politeness.waitMs(host) <= 0) launch(lease, host);
            else this.parked.push({ lease, host, readyAt: 0 });
            continue;
          }
          frontierDry = true;
        }
        if (active.size === 0 && this.parked.length === 0) {
          if (!this.shared) break;
          // Other workers may still add links, or die and leave their leases to expire here; the
          // one whose page let held URLs be decided may have died before deciding them.
          await pipeline.decideHeld();
          if (await this.shared.budgetSpent()) budgetSpent = true;
          const c = await this.frontier.counts();
          if (c.inFlight === 0 && (c.queued === 0 || budgetSpent)) {
            sharedLeft = c.queued;
            break;
          }
          waitFor = Math.min(waitFor, SHARED_POLL_MS);
        }
        // Wait for a page to finish (it may queue links or free a host), to queue links before it
        // finishes (see `early-links.ts`), or for a parked host to open.
        await settledOrAborted([...active, this.frontierGrew.wait()], this.stop.signal, Number.isFinite(waitFor) ? Math.max(5, waitFor) : Infinity);
        frontierDry = false;
        waitFor = Infinity;
      }

      if (this.stopReason) {
        // Grace period for the pages in flight, then cut them short (their leases go back).
        const all = Promise.all(active);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, o.graceMs)))]);
        clearTimeout(timer);
        // Each page removes itself from `active` when it ends: what is left is cut short, unrecorded.
        const cut = active.size;
        if (cut > 0) {
          const them = cut === 1 ? 'it' : 'them';
          this.signals.remark(`${cut} page${cut === 1 ? '' : 's'} in flight when the crawl stopped did not finish within the ${o.graceMs} ms given ${them}: not recorded (a resume with --state visits ${them})`);
        }
        this.cancelVisits.abort();
        await all;
        for (const p of this.parked.splice(0)) {
          // After a store failure the leases cannot be given back; they expire.
          await this.leases.release(p.lease).catch((err: unknown) => {
            if (!this.fatal) throw err;
          });
        }
        this.endReason = this.stopReason;
        if (this.fatal) throw this.fatal instanceof Error ? this.fatal : new InfrastructureError(String(this.fatal));
        return;
      }
      await Promise.all(active);
      let left: FrontierEntry[] = [];
      if (budgetSpent) {
        left = await this.frontier.drain();
        for (const e of left) emit(skipRecord(e, 'budget'));
      }
      // Nothing is left that could report a URL held past --max-depth within it.
      await pipeline.decideHeld();
      this.endReason = budgetSpent && (left.length > 0 || sharedLeft > 0) ? 'max-pages' : 'done';
    } finally {
      this.leases.stopRenewing();
    }
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
