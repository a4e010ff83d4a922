/**
 * The frontier contract every store keeps (memory, SQLite, Redis): what a URL entry, a lease
 * and the counts are, what each method promises, and what a store shared by several workers
 * adds. The stores implement it in `memory.ts`, `sqlite/` and `redis/`; the policy they share
 * is in `policy.ts`; `test/store/frontier-contract.test.ts` checks all three against it.
 * @module
 */
import type { PageRecord, RecordError, SkipReason } from '../model/record.js';
import type { EndReason } from '../model/summary.js';
import type { RobotsStore } from '../url/robots.js';

/** A URL the crawl knows about, as it enters the frontier. */
export interface FrontierEntry {
  /** Canonical URL: the frontier key (see `normalize()`). */
  url: string;
  /** The URL to request, as resolved from the link (plain fragment dropped). */
  requestedUrl: string;
  /** Link distance from a seed; seeds are 0. */
  depth: number;
  /**
   * Canonical URL of the page that reported it at its depth (the first such report); `null` for
   * seeds and sitemap URLs.
   */
  referrer: string | null;
  /**
   * Set when the URL is decided without a visit (robots, trap …): it is stored as done at once
   * and never leased.
   */
  skip?: SkipReason;
  /**
   * Set (without `skip`) for a URL past `--max-depth`: it is held — never leased, no record
   * yet — until no page that could still report it within the limit is queued or leased; then
   * {@link Frontier.decideHeld} stores it as `skipped: "budget"`. A report at a smaller depth
   * before then replaces it ({@link Frontier.add}).
   */
  held?: true;
  /** With `skip`: the error to record (e.g. robots.txt unreachable), if any. */
  skipError?: RecordError | null;
  /** With `skip: "duplicate"`: the canonical URL it repeats. */
  duplicateOf?: string | null;
}

/** A claim on one queued URL, held while it is visited. */
export interface Lease {
  entry: FrontierEntry;
  /** Fencing token: only the holder of the current token may complete the lease. */
  token: string;
  /**
   * `true` when the URL was taken over from a lease whose holder let it expire (a dead or stuck
   * worker's): the crawl counts it as a recovered lease. Absent for a URL claimed from the queue.
   */
  recovered?: boolean;
}

/** The budget a resumed crawl runs with (`--max-pages`, `--max-depth`). */
export interface ResumeBudget {
  /** Navigations in all, earlier runs (or every worker) included. */
  maxPages: number;
  /** Deepest link distance visited; `Infinity` for none. */
  maxDepth: number;
}

/** Sizes of the frontier's states. */
export interface FrontierCounts {
  /** URLs waiting: for a visit, or (held past `--max-depth`) for their decision. */
  queued: number;
  inFlight: number;
  done: number;
}

/**
 * The set of every URL the crawl knows, with its state (queued, in flight, done).
 *
 * The interface is asynchronous so that persistent (SQLite) and shared (Redis) stores can
 * implement it. Implementations must make check-and-mark atomic: a canonical URL is
 * accepted by {@link Frontier.add} once for the life of the crawl, and changes only while it
 * waits (queued or held), to a smaller depth.
 *
 * Depth is the fewest link steps from a seed, as breadth-first order defines it. A page reports
 * its links at its own depth + 1, and may do so while it is leased (links found before a click
 * are offered while it goes on clicking) or when it completes; so a URL of depth `d` could still
 * get a smaller depth from any page of depth `d - 2` or less that is queued or leased. A waiting
 * URL takes it ({@link Frontier.add}); a URL past `--max-depth` is not decided while such a page
 * is queued or leased ({@link Frontier.decideHeld}). Leasing does not wait for them (a page
 * clicking for seconds would leave every tab idle): a URL leased before a nearer report keeps
 * the depth it was leased at.
 */
export interface Frontier {
  /**
   * Lease expiry (ms) of stores whose leases expire (SQLite, Redis): the crawler renews the
   * leases it holds every third of it. Absent = leases never expire.
   */
  readonly leaseTtlMs?: number;
  /**
   * Offer URLs. Each canonical URL not seen before is stored: queued, held (`held`), or done
   * at once (`skip`). A URL seen before that still waits (queued or held) takes an entry without
   * `skip` that gives it a smaller depth: that entry's depth, referrer and requested URL, and a
   * place after the URLs already waiting at that depth; a held URL so reported within the limit
   * (no `held`) is queued, while a queued one is never held again. Anything else about a URL seen
   * before is ignored: a URL leased, visited or decided keeps its entry and its record.
   * @returns the entries taken (new URLs, and those that lowered a waiting URL's depth), in the order given
   */
  add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]>;
  /**
   * Lease the next queued URL: breadth-first (lowest depth first, then first-come).
   * @returns `null` when nothing is claimable right now (URLs may still be in flight)
   */
  next(): Promise<Lease | null>;
  /**
   * Decide the held URLs whose depth can no longer drop: a held URL of depth `d` once no URL of
   * depth `d - 2` or less is queued or leased. Each is stored as `skipped: "budget"` (a store
   * that keeps records keeps its skip record, as for an entry added with `skip`) and returned
   * once, crawl-wide. Call it after a page completes, and once the crawl has nothing left to lease.
   * @returns the URLs decided (their entries, without `skip`), breadth-first
   */
  decideHeld(): Promise<FrontierEntry[]>;
  /**
   * Finish a leased URL in one atomic step: store its record, mark it done and add the links
   * discovered on it (as {@link Frontier.add} does). Succeeds only while `lease.token` still
   * owns the URL (fencing): a worker whose lease expired or was released cannot complete it.
   * @returns the discovered entries that were new
   * @throws StaleLeaseError when the token no longer owns the URL (nothing is written)
   */
  complete(lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[]>;
  /**
   * Extend a lease's expiry (stores without expiry may ignore this).
   * @throws StaleLeaseError when the token no longer owns the URL
   */
  renew(lease: Lease): Promise<void>;
  /** Give a leased URL back to the queue unvisited (e.g. on cancellation). */
  release(lease: Lease): Promise<void>;
  /**
   * Mark a URL that was reached another way (the final URL of a redirect) as done, so a
   * link to it is not rendered again.
   * @param owner - the canonical URL of the visit whose record carries the page (a durable store
   *   keeps it: a claim whose visit never completed, its process gone, is undone on reopening)
   * @returns `true` if the URL was unknown or only waiting (queued or held; it is now done),
   * `false` if it was already in flight or done
   */
  markDone(url: string, owner?: string): Promise<boolean>;
  /**
   * Take every queued URL out of the queue (marking them done), e.g. when a budget is spent. Held
   * URLs stay held ({@link Frontier.decideHeld} decides them once nothing is queued or leased).
   */
  drain(): Promise<FrontierEntry[]>;
  counts(): Promise<FrontierCounts>;
  /**
   * Every stored record, oldest first: visited pages' records as completed, and a record for
   * each URL added with `skip` (built with `blankRecord`). Memory stores keep none and yield
   * nothing; durable stores use it for `export` and to resume counters.
   */
  records(): AsyncIterable<PageRecord>;
  /**
   * Durable stores: pages navigated in earlier runs of the same crawl, where a resumed
   * `--max-pages` count starts. Stores without earlier runs leave it out (0).
   */
  visited?(): Promise<number>;
  /** Durable and shared stores: keep why this run ended (the last run's reason is what `export` reports). */
  recordEnd?(reason: EndReason): Promise<void>;
  /**
   * Durable and shared stores, on a resume with a larger budget: queue again the URLs earlier runs
   * skipped for their budget, and the URLs they held, as `reopenDepth` (store policy) says, and take
   * back the skip records.
   * @returns the canonical URLs queued again that had a skip record
   */
  reopenBudget?(budget: ResumeBudget): Promise<string[]>;
  close(): Promise<void>;
}

/** Thrown by {@link Frontier.complete} when a lease's token no longer owns its URL. */
export class StaleLeaseError extends Error {
  readonly code = 'stale-lease';
  constructor(url: string) {
    super(`lease for ${url} is no longer held`);
    this.name = 'StaleLeaseError';
  }
}

/**
 * A {@link Frontier} that several worker processes share (Redis). Beyond the base contract:
 * `next()` also hands out leases whose holder let them expire (a dead worker's), and returns
 * `null` once the crawl-wide page budget is spent; workers renew their leases every third of
 * {@link SharedFrontier.leaseTtlMs}; politeness and robots.txt go through the stores it gives.
 */
export interface SharedFrontier extends Frontier {
  readonly shared: true;
  /** Lease expiry (ms): a lease not renewed within this time may be taken over by another worker. */
  readonly leaseTtlMs: number;
  /** `true` once the crawl-wide `--max-pages` budget is spent (queued URLs can no longer be claimed). */
  budgetSpent(): Promise<boolean>;
  /** Crawl-wide politeness state. */
  readonly politeness: PolitenessStore;
  /** Crawl-wide robots.txt cache. */
  readonly robots: RobotsStore;
}

/**
 * Politeness state shared by every worker of one crawl (Redis), so that `--rate`,
 * `--per-host-concurrency`, `Crawl-delay` and `Retry-After` hold for the crawl as a whole.
 * Times are computed on the store's clock, so workers' clocks need not agree. Errors of the
 * store propagate (the crawl stops with exit 3). Used by `crawl/politeness.ts`.
 */
export interface PolitenessStore {
  /**
   * Atomically reserve the host's next navigation time: `gapMs` after the previous reservation
   * by any worker, and not inside a pause. The reservation stays open until its request is sent
   * ({@link PolitenessStore.sent}) or given up ({@link PolitenessStore.giveUp}), for at most
   * `openMs` past its time (a worker that died leaves it open); with `openMs` 0 it is not kept.
   * @returns how long to wait before navigating (ms, >= 0) and the reservation's name (`''` when not kept)
   */
  reserve(key: string, gapMs: number, openMs: number): Promise<{ waitMs: number; reservation: string }>;
  /** Record that the navigation request of `reservation` to `key` went out now (the store's clock); it is no longer open. */
  sent(key: string, reservation: string): Promise<void>;
  /** Close `reservation` without a request (the visit ended before navigating). */
  giveUp(key: string, reservation: string): Promise<void>;
  /**
   * How long a navigation whose reserved time has come must still wait (ms, >= 0): until `gapMs`
   * after the last navigation request that actually went out, and past any pause; `-1` while a
   * reservation made before `reservation` is still open (its request may go out any moment: ask again).
   */
  recheck(key: string, gapMs: number, reservation: string): Promise<number>;
  /** Hold every worker's navigations to `key` for `ms` from now (`Retry-After`). */
  pause(key: string, ms: number): Promise<void>;
  /**
   * Take one of the host's `cap` in-flight slots, crawl-wide, for `member` (a slot of a worker
   * that dies is freed when its lease expiry passes).
   * @returns `false` when every slot is taken
   */
  acquire(key: string, cap: number, member: string): Promise<boolean>;
  /** Give back the slot taken for `member`. */
  release(key: string, member: string): Promise<void>;
}

/** `true` when `f` is shared by several workers. */
export function isShared(f: Frontier): f is SharedFrontier {
  return (f as Partial<SharedFrontier>).shared === true;
}
