/**
 * The shared {@link Frontier}: one crawl's state lives in Redis so that any number of worker
 * processes, on any machines, crawl it together (`--redis URL --crawl-id NAME`).
 *
 * Model (as Browsertrix Crawler and scrapy-redis do it): every canonical URL is a field of one
 * hash (deduplication), its state another; the queue is a sorted set ordered by depth, then
 * first-come; leases are a sorted set of expiry times with a fencing token per URL. Claim,
 * complete, renew, release, mark-done and drain are each one Lua script, so they are atomic
 * across workers, and every time they compare is read from the Redis server's clock
 * (`TIME`), so workers' clocks need not agree. A worker renews its leases; one that dies
 * leaves leases that expire and are claimed by the others. Delivery is at least once: a page
 * whose worker died after visiting it but before completing it is visited again.
 *
 * Keys are `spacrawl:{NAME}:*` (one hash tag, so a Redis Cluster keeps a crawl on one node).
 * Records are a list, in completion order. Redis should run with AOF persistence
 * (`appendonly yes`) for completed pages to survive a Redis restart.
 *
 * A little over 400 lines, one class on purpose: each method is one documented step of the
 * Frontier contract over one Lua script (`scripts.ts`), and the steps share the connection, the
 * crawl's keys and the error mapping; the parts that are not steps live beside it (politeness,
 * robots, workers, connection).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { PageRecord, SkipReason } from '../../model/record.js';
import type { RobotsStore } from '../../url/robots.js';
import { StaleLeaseError, type FrontierCounts, type FrontierEntry, type Lease, type PolitenessStore, type SharedFrontier } from '../frontier.js';
import { CrawlMismatchError, joinCrawlAsync, leaseTtl, outcomeState, pagedRecords, readStoredRecord, reopenDepth, skipRecord, StoreError, type CrawlKey, type ResumeBudget } from '../policy.js';
import type { EndReason } from '../../model/summary.js';
import { UsageError } from '../../model/errors.js';
import { DEFAULT_REDIS_RETRY_MS, firstLine, RedisConnection, RedisStoreError, redisTargetProblem, RedisTargetError, type LuaScript } from './connection.js';
import { DEFAULT_LEASE_TTL_MS } from './defaults.js';
import { redisPoliteness } from './politeness.js';
import { redisRobots } from './robots.js';
import { CRAWL_GONE, encodeEntries, FRONTIER_KEYS, pickEntries, SCRIPTS, type SkipMarker, type StoredEntry } from './scripts.js';
import { crawlStatus, WorkerHeartbeat, type CrawlStatus } from './workers.js';

export { DEFAULT_REDIS_RETRY_MS, RedisStoreError, RedisTargetError, redisTargetProblem } from './connection.js';
export { WORKER_LIVE_MS, type CrawlStatus } from './workers.js';

/**
 * Version of the crawl's key layout in Redis; a crawl stored with a higher version is refused.
 * 2: records may hold blanked skip records (`{"$gone":1}`, left by a resume with a larger budget),
 * which version 1 cannot read; a crawl is marked 2 when a resume blanks one. 3: URLs may be held
 * past `--max-depth` (state `held`, key `held`), which version 2 workers would never decide; a
 * crawl is marked 3 when it is created, or when it first holds a URL.
 */
export const REDIS_SCHEMA_VERSION = 3;

export { DEFAULT_LEASE_TTL_MS } from './defaults.js';

/** Options of {@link RedisFrontier.open}. */
export interface RedisFrontierOptions {
  /** The crawl's name (`--crawl-id`): workers with the same name on the same Redis share the crawl. */
  crawlId: string;
  /**
   * What identifies the crawl: stored by the first worker; a worker with a different key is
   * refused ({@link CrawlMismatchError}) unless `force`. `null` joins the stored crawl as
   * it is (a worker started without seeds, `status`, `export`); it must exist.
   */
  crawlKey: CrawlKey | null;
  /** Join even when the stored key differs; the new key replaces it. @default false */
  force?: boolean;
  /** Lease expiry (ms). @default 60000 */
  leaseTtlMs?: number;
  /**
   * How long to keep reconnecting when Redis cannot be reached, at start or mid-crawl, before
   * every call fails with {@link RedisStoreError} (ms). @default 30000
   */
  retryMs?: number;
  /** Crawl-wide page budget: URLs that may be claimed in all (`--max-pages`); `null` = none. */
  maxPages?: number | null;
  /** Write a heartbeat (the worker counts as live in `status`). @default true */
  heartbeat?: boolean;
}

/** The crawl id names no stored crawl, and no seeds were given to start one; the CLI exits 2. */
export class NoSuchCrawlError extends UsageError {
  readonly code = 'no-such-crawl';
  constructor(crawlId: string) {
    super(`no crawl named ${crawlId} in Redis`);
    this.name = 'NoSuchCrawlError';
  }
}

/**
 * A {@link SharedFrontier} in Redis. Open it with {@link RedisFrontier.open}; every method
 * after that throws {@link RedisStoreError} when Redis fails (and `StaleLeaseError` where the
 * {@link Frontier} contract says so).
 */
export class RedisFrontier implements SharedFrontier {
  readonly shared = true as const;
  /** Workers' politeness state, crawl-wide. */
  readonly politeness: PolitenessStore;
  /** robots.txt files fetched by any worker of the crawl. */
  readonly robots: RobotsStore;
  /** The crawl's name. */
  readonly crawlId: string;
  private readonly keys: string[];
  private readonly workers: WorkerHeartbeat;
  private closed = false;

  private constructor(
    private readonly conn: RedisConnection,
    /** Lease expiry (ms). */
    readonly leaseTtlMs: number,
    private readonly maxPages: number | null,
    /** The crawl key in effect (stored, or given by the first worker). */
    readonly crawlKey: CrawlKey,
  ) {
    this.crawlId = conn.crawlId;
    this.keys = FRONTIER_KEYS.map((k) => conn.key(k));
    this.politeness = redisPoliteness(conn, leaseTtlMs);
    this.robots = redisRobots(conn);
    this.workers = new WorkerHeartbeat(conn);
  }

  /** This worker's id in `status` (`host:pid:random`). */
  get workerId(): string {
    return this.workers.workerId;
  }

  /**
   * Connect to Redis and join (or start) the crawl `opts.crawlId`.
   *
   * The first worker stores the crawl key; later ones are compared with it (`joinCrawl`).
   * Starts the worker's heartbeat. Waits for Redis up to `retryMs`.
   * @param url - `redis://[user:password@]host:port[/db]` or `rediss://…`
   * @throws RedisTargetError for a bad URL or crawl id
   * @throws RangeError when `leaseTtlMs` is not a positive number
   * @throws NoSuchCrawlError when `crawlKey` is `null` and no such crawl is stored
   * @throws CrawlMismatchError when the stored crawl differs and `force` is not set
   * @throws RedisStoreError when Redis cannot be reached within `retryMs`, answers with an
   * error, or holds a crawl of a newer layout
   */
  static async open(url: string, opts: RedisFrontierOptions): Promise<RedisFrontier> {
    const problem = redisTargetProblem(url, opts.crawlId);
    if (problem) throw new RedisTargetError(url, opts.crawlId, problem);
    const leaseTtlMs = leaseTtl(opts.leaseTtlMs, DEFAULT_LEASE_TTL_MS);
    const conn = await RedisConnection.open(url, opts.crawlId, opts.retryMs ?? DEFAULT_REDIS_RETRY_MS);
    try {
      const self = new RedisFrontier(conn, leaseTtlMs, opts.maxPages ?? null, await join(conn, opts));
      if (opts.heartbeat !== false) {
        await self.run(SCRIPTS.begin, [self.workers.workerId]);
        await self.workers.start();
      }
      return self;
    } catch (err) {
      conn.client.disconnect();
      if (err instanceof StoreError || err instanceof NoSuchCrawlError || err instanceof CrawlMismatchError) throw err;
      throw conn.cannotUse(err);
    }
  }

  /**
   * Run a frontier script. A crawl whose keys vanished under the workers (see `CRAWL_PRESENT`)
   * is an infrastructure failure with a line of its own: it must stop the worker (exit 3), not
   * look like a finished crawl.
   */
  private async run(script: LuaScript, args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await this.conn.eval(script, this.keys, args);
    } catch (err) {
      if (err instanceof RedisStoreError && err.message.includes(CRAWL_GONE)) {
        throw new RedisStoreError(
          `crawl ${this.crawlId} is gone from Redis (its keys were lost: a Redis restarted without persistence, or deleted); the pages it recorded there are lost: start it again`,
          { cause: err },
        );
      }
      throw err;
    }
  }

  /**
   * Offer URLs in one atomic step: each canonical URL not stored before is queued (held, with
   * `held`; or, with `skip`, stored as skipped with a record); a stored URL still queued or held
   * takes an entry that lowers its depth, as the {@link Frontier} contract says; others are ignored.
   * @returns the entries taken (new or lowering), in the order given
   * @throws RedisStoreError when Redis fails
   */
  async add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    if (entries.length === 0) return [];
    const res = (await this.run(SCRIPTS.add, [encodeEntries(entries)])) as unknown[];
    return pickEntries(entries, res);
  }

  /**
   * Claim the next URL atomically: one whose lease expired (a dead worker's; what that visit
   * claimed is undone, see {@link RedisFrontier.markDone}), else the queued
   * URL of lowest depth, first-come within a depth. It gets a fresh token and expires
   * `leaseTtlMs` from now on Redis's clock. A URL not claimed before is refused once the
   * crawl-wide budget is spent.
   * @returns the lease (`recovered` when it was taken over from an expired one), or `null` when nothing is claimable (URLs may be in flight elsewhere)
   * @throws RedisStoreError when Redis fails
   */
  async next(): Promise<Lease | null> {
    const token = randomUUID();
    const res = (await this.run(SCRIPTS.claim, [token, this.leaseTtlMs, this.maxPages ?? 0])) as [string, string?, number?] | null;
    if (!res || res[0] !== 'lease' || !res[1]) return null;
    const e = JSON.parse(res[1]) as StoredEntry;
    const lease: Lease = { entry: { url: e.url, requestedUrl: e.requestedUrl, depth: e.depth, referrer: e.referrer }, token };
    if (Number(res[2]) === 1) lease.recovered = true;
    return lease;
  }

  /**
   * Decide atomically the held URLs no queued or leased URL (of any worker) can report at a
   * smaller depth any more (see {@link Frontier.decideHeld}): each is stored as skipped for
   * `budget`, with a record (which a resume with a larger budget can reopen).
   * @returns their entries, breadth-first
   * @throws RedisStoreError when Redis fails
   */
  async decideHeld(): Promise<FrontierEntry[]> {
    const res = (await this.run(SCRIPTS.decide, [])) as string[];
    return res.map(storedEntry);
  }

  /**
   * Finish a lease atomically: if the token still owns the unexpired lease, append `record` to
   * the crawl's records, mark the URL with its `outcomeState` (`failed` for an error page, else
   * `done`) and add `discovered`.
   * @returns the discovered entries that were new
   * @throws StaleLeaseError when the lease expired or was taken over (nothing is written)
   * @throws RedisStoreError when Redis fails
   */
  async complete(lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    const args = [lease.entry.url, lease.token, outcomeState(record), JSON.stringify(record), encodeEntries(discovered)];
    const res = (await this.run(SCRIPTS.complete, args)) as unknown[];
    if (Number(res[0]) !== 1) throw new StaleLeaseError(lease.entry.url);
    return pickEntries(discovered, res.slice(1));
  }

  /**
   * Extend a lease to `leaseTtlMs` from now.
   * @throws StaleLeaseError when the lease expired or was taken over
   * @throws RedisStoreError when Redis fails
   */
  async renew(lease: Lease): Promise<void> {
    const ok = await this.run(SCRIPTS.renew, [lease.entry.url, lease.token, this.leaseTtlMs]);
    if (Number(ok) !== 1) throw new StaleLeaseError(lease.entry.url);
  }

  /**
   * Put a leased URL back at the front of its depth, unvisited; what its visit claimed
   * ({@link RedisFrontier.markDone}) is undone.
   * @throws StaleLeaseError when the token no longer owns it
   * @throws RedisStoreError when Redis fails
   */
  async release(lease: Lease): Promise<void> {
    const ok = await this.run(SCRIPTS.release, [lease.entry.url, lease.token]);
    if (Number(ok) !== 1) throw new StaleLeaseError(lease.entry.url);
  }

  /**
   * Mark a URL reached another way (a redirect's final URL) as done, without a record.
   * @param owner - the leased URL whose visit carries the page: the claim is kept with its lease
   *   until that visit completes, and undone if it does not (the lease released, or taken over
   *   by another worker after it expired): a claimed URL that was waiting waits again, one only
   *   the claim knew is forgotten, so that the visit done again can claim it again
   * @returns `true` if it was unknown, queued or held
   * @throws RedisStoreError when Redis fails
   */
  async markDone(url: string, owner?: string): Promise<boolean> {
    const stored: StoredEntry = { url, requestedUrl: url, depth: 0, referrer: null };
    return Number(await this.run(SCRIPTS.markDone, [url, JSON.stringify(stored), owner ?? ''])) === 1;
  }

  /**
   * Take every queued URL out of the queue atomically; each is stored as skipped for `reason`
   * with a record. Leased and held URLs are not touched.
   * @returns the drained entries, breadth-first
   * @throws RedisStoreError when Redis fails
   */
  async drain(reason: SkipReason = 'budget'): Promise<FrontierEntry[]> {
    const res = (await this.run(SCRIPTS.drain, [reason])) as string[];
    return res.map(storedEntry);
  }

  /** `true` once `maxPages` distinct URLs were claimed, crawl-wide. @throws RedisStoreError */
  async budgetSpent(): Promise<boolean> {
    if (this.maxPages === null) return false;
    const claimed = await this.conn.guard(() => this.conn.client.scard(this.keys[7]!));
    return claimed >= this.maxPages;
  }

  /**
   * Crawl-wide sizes: `queued` (held URLs and expired leases included), `inFlight` (live leases), `done`
   * (done, failed, skipped, and URLs marked done).
   * @throws RedisStoreError when Redis fails
   */
  async counts(): Promise<FrontierCounts> {
    const [queued = 0, inFlight = 0, done = 0, failed = 0, skipped = 0, marked = 0] = await this.rawCounts();
    return { queued, inFlight, done: done + failed + skipped + marked };
  }

  private async rawCounts(): Promise<number[]> {
    return ((await this.run(SCRIPTS.counts, [])) as unknown[]).map(Number);
  }

  /**
   * A snapshot for `spacrawl status` and `export`: counts, workers, and the crawl's time (from
   * the first worker's start; running time summed over the periods a worker was live, each ending
   * at the last clean end of a worker) and end reason.
   * @throws RedisStoreError when Redis fails
   */
  async status(): Promise<CrawlStatus> {
    const raw = await this.rawCounts();
    const endReason = await this.conn.guard(() => this.conn.client.hget(this.conn.key('meta'), 'end_reason'));
    return crawlStatus(raw, this.crawlId, this.crawlKey, endReason);
  }

  /**
   * Keep why and when this worker's run ended (meta `end_reason`, `ended_ms`, on Redis's clock);
   * the last live worker to end closes the crawl's running period. The last worker's reason is
   * the crawl's.
   * @throws RedisStoreError when Redis fails
   */
  async recordEnd(reason: EndReason): Promise<void> {
    await this.run(SCRIPTS.end, [this.workers.workerId, reason]);
  }

  /**
   * For a worker started with a larger budget: queue again the URLs skipped for the budget
   * (`skipped: "budget"`) and the URLs held, as `reopenDepth` (store policy) says — nothing while
   * the URLs claimed crawl-wide already reach `maxPages`; URLs deeper than `maxDepth` stay as they
   * are. The skip records are blanked in place (records and exports no longer show them). One Lua script.
   * @returns the canonical URLs queued again that had a skip record, in their old order
   * @throws RedisStoreError when Redis fails
   */
  async reopenBudget(budget: ResumeBudget): Promise<string[]> {
    const claimed = await this.conn.guard(() => this.conn.client.scard(this.keys[7]!));
    const maxDepth = reopenDepth(claimed, budget);
    if (maxDepth === null) return [];
    return ((await this.run(SCRIPTS.reopen, [maxDepth])) as unknown[]).map(String);
  }

  /**
   * Every stored record, in the order they were stored (all workers'). Read a few hundred per
   * round trip; records appended meanwhile are included.
   * @throws RedisStoreError when Redis fails or a stored record is unreadable
   */
  records(): AsyncGenerator<PageRecord, void, undefined> {
    const list = this.keys[5]!;
    return pagedRecords<string>(({ offset, limit }) => this.conn.guard(() => this.conn.client.lrange(list, offset, offset + limit - 1)), toRecord);
  }

  /**
   * Leave the crawl: stop the heartbeat, say goodbye in `status` (best effort, 1 s) and
   * disconnect. Leases still held expire on their own. Never throws; calling it again does
   * nothing.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.workers.stop();
    this.closed = true;
    this.conn.close();
  }
}

/**
 * Join the crawl's identity (`joinCrawl` over the `meta` hash), refusing a layout newer than
 * this version's.
 * @returns the crawl key in effect
 */
async function join(conn: RedisConnection, opts: RedisFrontierOptions): Promise<CrawlKey> {
  const r = conn.client;
  const metaKey = conn.key('meta');
  const schema = await r.hget(metaKey, 'schema');
  if (schema !== null && !(Number(schema) >= 1 && Number(schema) <= REDIS_SCHEMA_VERSION)) {
    throw new RedisStoreError(`crawl ${opts.crawlId} in Redis was written by a newer spacrawl (layout ${schema}; this version reads up to ${REDIS_SCHEMA_VERSION})`);
  }
  const key = await joinCrawlAsync(
    {
      get: async (k) => (await r.hget(metaKey, k)) ?? undefined,
      setIfAbsent: async (k, v) => (await r.hsetnx(metaKey, k, v)) === 1,
      set: async (k, v) => void (await r.hset(metaKey, k, v)),
    },
    {
      given: opts.crawlKey,
      force: opts.force ?? false,
      where: { crawlId: opts.crawlId },
      unreadable: () => new RedisStoreError(`crawl ${opts.crawlId} in Redis has an unreadable crawl key`),
    },
  );
  if (key === null) throw new NoSuchCrawlError(opts.crawlId);
  if (opts.crawlKey !== null) {
    await r.hsetnx(metaKey, 'schema', String(REDIS_SCHEMA_VERSION));
    await r.hsetnx(metaKey, 'created_at', new Date().toISOString());
  }
  return key as CrawlKey;
}

/** An entry as the `entries` hash stores it (JSON), as a frontier entry. */
function storedEntry(json: string): FrontierEntry {
  const e = JSON.parse(json) as StoredEntry;
  return { url: e.url, requestedUrl: e.requestedUrl, depth: e.depth, referrer: e.referrer };
}

/** A stored record line as a PageRecord. */
function toRecord(row: string): PageRecord | null {
  let v: PageRecord | SkipMarker | { $gone: 1 };
  try {
    v = JSON.parse(row) as PageRecord | SkipMarker | { $gone: 1 };
  } catch (err) {
    throw new RedisStoreError(`a stored record is not JSON: ${firstLine(err)}`);
  }
  if ('$gone' in v) return null;
  if (!('$skip' in v)) return readStoredRecord(v);
  return skipRecord({ url: v.url, requestedUrl: v.requestedUrl, depth: v.depth, referrer: v.referrer, skip: v.$skip, skipError: v.error ?? null, duplicateOf: v.duplicateOf ?? null });
}
