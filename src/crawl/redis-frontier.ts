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
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import os from 'node:os';
import { Redis } from 'ioredis';
import { blankRecord, upgradeRecord, type PageRecord, type RecordError, type SkipReason } from '../model/record.js';
import type { RobotsFetch, RobotsStore } from '../url/robots.js';
import { keyDiff, normalizeKey, stableStringify, type CrawlKey } from './crawl-key.js';
import { StaleLeaseError, type FrontierCounts, type FrontierEntry, type Lease, type SharedFrontier } from './frontier.js';
import { OptionsError } from './options.js';
import type { PolitenessStore } from './politeness.js';
import { InfrastructureError, UsageError } from '../model/errors.js';

/** Version of the crawl's key layout in Redis; a crawl stored with a higher version is refused. */
export const REDIS_SCHEMA_VERSION = 1;

/** Default lease expiry (ms). Workers renew every third of it. */
export const DEFAULT_LEASE_TTL_MS = 60_000;

/** Default time to keep reconnecting to a Redis that went away before giving up (ms). */
export const DEFAULT_REDIS_RETRY_MS = 30_000;

/** A worker counts as live while its last heartbeat is younger than this (ms). */
export const WORKER_LIVE_MS = 10_000;

/** How often a worker writes its heartbeat (ms). */
const HEARTBEAT_MS = 2_000;

/** Records read per round trip by {@link RedisFrontier.records}. */
const RECORD_PAGE = 256;

/** A crawl id: letters, digits, `.`, `_`, `-`; 1 to 100 characters. */
const CRAWL_ID = /^[A-Za-z0-9._-]{1,100}$/;

/** Options of {@link RedisFrontier.open}. */
export interface RedisFrontierOptions {
  /** The crawl's name (`--crawl-id`): workers with the same name on the same Redis share the crawl. */
  crawlId: string;
  /**
   * What identifies the crawl: stored by the first worker; a worker with a different key is
   * refused ({@link RedisCrawlMismatchError}) unless `force`. `null` joins the stored crawl as
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

/** A snapshot of a shared crawl, for `spacrawl status`. */
export interface CrawlStatus {
  crawlId: string;
  /** Queued URLs, plus leased ones whose lease expired (claimable again). */
  queued: number;
  /** URLs leased by a live worker. */
  inFlight: number;
  /** Pages visited without error and with a status below 400. */
  done: number;
  /** Pages visited with an error or a status >= 400. */
  failed: number;
  /** URLs decided without a visit (robots, scope, budget, duplicate, trap). */
  skipped: number;
  /** Distinct URLs claimed so far (what `--max-pages` counts). */
  claimed: number;
  /** Pages completed per second over the last minute. */
  pagesPerSecond: number;
  /** Workers whose heartbeat is younger than {@link WORKER_LIVE_MS}. */
  workers: number;
  /** Records stored. */
  records: number;
  /** The stored crawl key (seeds, scope …). */
  crawlKey: CrawlKey;
}

/**
 * Redis cannot be used: unreachable for longer than the retry time, lost mid-crawl, or it
 * answered with an error. It must stop the crawl (the CLI exits 3); what was already written
 * stays.
 */
export class RedisStoreError extends InfrastructureError {
  override readonly code = 'redis-store';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RedisStoreError';
  }
}

/** The crawl id names a crawl of other seeds or scope, and `force` was not given; the CLI exits 2. */
export class RedisCrawlMismatchError extends UsageError {
  readonly code = 'crawl-mismatch';
  /** Names of the crawl-key fields that differ. */
  readonly fields: string[];
  constructor(crawlId: string, fields: string[], details: string) {
    super(`crawl ${crawlId} in Redis is a different crawl: ${details}; use another --crawl-id, or --force to replace its settings`);
    this.name = 'RedisCrawlMismatchError';
    this.fields = fields;
  }
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
 * Check `--redis` and `--crawl-id` values.
 * @throws OptionsError for a URL that is not `redis://` or `rediss://`, or a bad crawl id
 */
export function checkRedisTarget(url: string, crawlId: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OptionsError(`--redis must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new OptionsError(`--redis must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  if (!CRAWL_ID.test(crawlId)) throw new OptionsError(`--crawl-id must be 1 to 100 letters, digits, dots, underscores or dashes, got ${JSON.stringify(crawlId)}`);
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return url;
  }
}

// --- Lua --------------------------------------------------------------------------------------

/** Keys of one crawl, in the order the frontier scripts take them (KEYS[1] … KEYS[12]). */
const FRONTIER_KEYS = ['entries', 'state', 'queue', 'leases', 'tokens', 'records', 'counts', 'started', 'completions', 'seq', 'meta', 'workers'] as const;

const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function score(depth, seq)
  return string.format('%.0f', depth * 1e9 + seq)
end
local function add_entries(json)
  local fresh = {}
  for i, e in ipairs(cjson.decode(json)) do
    if redis.call('HSETNX', KEYS[1], e.u, e.e) == 1 then
      if e.s then
        redis.call('HSET', KEYS[2], e.u, 'skipped')
        redis.call('RPUSH', KEYS[6], e.s)
        redis.call('HINCRBY', KEYS[7], 'skipped', 1)
      else
        redis.call('HSET', KEYS[2], e.u, 'queued')
        redis.call('ZADD', KEYS[3], score(e.d, redis.call('INCR', KEYS[10])), e.u)
      end
      fresh[#fresh + 1] = i
    end
  end
  return fresh
end
local function owns(url, token, now)
  if redis.call('HGET', KEYS[5], url) ~= token then return false end
  local exp = redis.call('ZSCORE', KEYS[4], url)
  return exp and tonumber(exp) > now
end
`;

interface LuaScript {
  src: string;
  sha: string;
}

function lua(body: string, prelude = true): LuaScript {
  const src = prelude ? PRELUDE + body : body;
  return { src, sha: createHash('sha1').update(src).digest('hex') };
}

const SCRIPTS = {
  add: lua(`return add_entries(ARGV[1])`),
  // ARGV: token, ttl, maxPages (0 = none). Expired leases first (they were claimed earlier).
  claim: lua(`
local now = now_ms()
local url
local ex = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1)
if #ex > 0 then
  url = ex[1]
else
  local q = redis.call('ZRANGE', KEYS[3], 0, 0)
  if #q == 0 then return nil end
  url = q[1]
  local max = tonumber(ARGV[3])
  if max > 0 and redis.call('SISMEMBER', KEYS[8], url) == 0 and redis.call('SCARD', KEYS[8]) >= max then
    return {'budget'}
  end
  redis.call('ZREM', KEYS[3], url)
end
redis.call('SADD', KEYS[8], url)
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), url)
redis.call('HSET', KEYS[5], url, ARGV[1])
redis.call('HSET', KEYS[2], url, 'leased')
return {'lease', redis.call('HGET', KEYS[1], url)}
`),
  // ARGV: url, token, state (done|failed), record JSON, discovered entries JSON.
  complete: lua(`
local now = now_ms()
local url = ARGV[1]
if not owns(url, ARGV[2], now) then return {0} end
redis.call('ZREM', KEYS[4], url)
redis.call('HDEL', KEYS[5], url)
redis.call('HSET', KEYS[2], url, ARGV[3])
redis.call('RPUSH', KEYS[6], ARGV[4])
redis.call('HINCRBY', KEYS[7], ARGV[3], 1)
redis.call('ZADD', KEYS[9], now, url)
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now - 120000)
local fresh = add_entries(ARGV[5])
table.insert(fresh, 1, 1)
return fresh
`),
  // ARGV: url, token, ttl
  renew: lua(`
local now = now_ms()
if not owns(ARGV[1], ARGV[2], now) then return 0 end
redis.call('ZADD', KEYS[4], now + tonumber(ARGV[3]), ARGV[1])
return 1
`),
  // ARGV: url, token. Back to the front of its depth.
  release: lua(`
if redis.call('HGET', KEYS[5], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], 'queued')
local e = cjson.decode(redis.call('HGET', KEYS[1], ARGV[1]))
redis.call('ZADD', KEYS[3], score(e.depth, 0), ARGV[1])
return 1
`),
  // ARGV: url, entry JSON for an unknown URL
  markDone: lua(`
local st = redis.call('HGET', KEYS[2], ARGV[1])
if not st then
  redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
elseif st == 'queued' then
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], 'done')
redis.call('HINCRBY', KEYS[7], 'marked', 1)
return 1
`),
  // ARGV: skip reason
  drain: lua(`
local out = {}
for _, url in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local json = redis.call('HGET', KEYS[1], url)
  local e = cjson.decode(json)
  redis.call('HSET', KEYS[2], url, 'skipped')
  redis.call('RPUSH', KEYS[6], cjson.encode({['$skip'] = ARGV[1], url = url, requestedUrl = e.requestedUrl, depth = e.depth, referrer = e.referrer}))
  redis.call('HINCRBY', KEYS[7], 'skipped', 1)
  out[#out + 1] = json
end
redis.call('DEL', KEYS[3])
return out
`),
  counts: lua(`
local now = now_ms()
local c = redis.call('HMGET', KEYS[7], 'done', 'failed', 'skipped', 'marked')
local expired = redis.call('ZCOUNT', KEYS[4], '-inf', now)
return {
  redis.call('ZCARD', KEYS[3]) + expired,
  redis.call('ZCARD', KEYS[4]) - expired,
  tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(c[3]) or 0, tonumber(c[4]) or 0,
  redis.call('ZCOUNT', KEYS[9], now - 60000, '+inf'),
  redis.call('ZCOUNT', KEYS[12], now - ${WORKER_LIVE_MS}, '+inf'),
  redis.call('SCARD', KEYS[8]),
  redis.call('LLEN', KEYS[6])
}
`),
  // ARGV: worker id, 1 = alive / 0 = leaving
  heartbeat: lua(`
local now = now_ms()
if ARGV[2] == '1' then redis.call('ZADD', KEYS[12], now, ARGV[1]) else redis.call('ZREM', KEYS[12], ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[12], '-inf', now - 3600000)
return 1
`),
  // Politeness: KEYS[1] = the host's hash, KEYS[2] = its in-flight set.
  // ARGV: gap (ms). Returns the wait (ms) before the reserved navigation time.
  reserve: lua(`
local now = now_ms()
local h = redis.call('HMGET', KEYS[1], 'last', 'paused')
local slot = math.max(now, (tonumber(h[1]) or -1e15) + tonumber(ARGV[1]), tonumber(h[2]) or 0)
redis.call('HSET', KEYS[1], 'last', string.format('%.0f', slot))
redis.call('PEXPIRE', KEYS[1], 86400000)
return slot - now
`),
  // Raise a time field of the host's hash to now + ms, never lowering it.
  // ARGV: field ('sent': a navigation request went out; 'paused': a Retry-After or backoff), ms from now.
  raise: lua(`
local until_ = now_ms() + tonumber(ARGV[2])
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if until_ > cur then redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f', until_)) end
redis.call('PEXPIRE', KEYS[1], 86400000)
return 1
`),
  // ARGV: gap (ms). Returns how long to wait still: gap after the last request sent, past a pause.
  recheck: lua(`
local now = now_ms()
local h = redis.call('HMGET', KEYS[1], 'sent', 'paused')
return math.max(0, (tonumber(h[1]) or -1e15) + tonumber(ARGV[1]) - now, (tonumber(h[2]) or 0) - now)
`),
  // ARGV: cap, member, ttl (ms)
  acquire: lua(`
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], 86400000)
return 1
`),
} satisfies Record<string, LuaScript>;

/** What the Redis client's event handlers know about the connection. */
interface ConnectionState {
  /** When the connection was lost (ms since epoch), or `null` while connected. */
  downSince: number | null;
  /** The client stopped reconnecting (the retry time ran out): every call now fails. */
  gaveUp: boolean;
  /** The client's last error, for messages. */
  lastError: Error | null;
}

/** A stored record, or a drained URL's compact form (expanded with `blankRecord`). */
interface SkipMarker {
  $skip: SkipReason;
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
  error?: RecordError | null;
  duplicateOf?: string | null;
}

/** The entry as stored in the `entries` hash. */
interface StoredEntry {
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
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
  /** This worker's id in `status` (`host:pid:random`). */
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly keys: string[];
  private readonly prefix: string;
  private heartbeat: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly redis: Redis,
    /** The connection's state, kept by the client's event handlers (see {@link RedisFrontier.open}). */
    private readonly conn: ConnectionState,
    private readonly url: string,
    /** The crawl's name. */
    readonly crawlId: string,
    /** Lease expiry (ms). */
    readonly leaseTtlMs: number,
    private readonly retryMs: number,
    private readonly maxPages: number | null,
    /** The crawl key in effect (stored, or given by the first worker). */
    readonly crawlKey: CrawlKey,
  ) {
    this.prefix = `spacrawl:{${crawlId}}:`;
    this.keys = FRONTIER_KEYS.map((k) => this.prefix + k);
    this.politeness = {
      reserve: async (key, gapMs) => Number(await this.host(SCRIPTS.reserve, key, [Math.max(0, Math.round(gapMs))])),
      sent: async (key) => {
        await this.host(SCRIPTS.raise, key, ['sent', 0]);
      },
      recheck: async (key, gapMs) => Number(await this.host(SCRIPTS.recheck, key, [Math.max(0, Math.round(gapMs))])),
      pause: async (key, ms) => {
        await this.host(SCRIPTS.raise, key, ['paused', Math.max(0, Math.round(ms))]);
      },
      acquire: async (key, cap, member) => Number(await this.host(SCRIPTS.acquire, key, [cap, member, this.leaseTtlMs])) === 1,
      release: async (key, member) => {
        await this.guard(() => this.redis.zrem(`${this.prefix}flight:${key}`, member));
      },
    };
    this.robots = {
      get: async (origin) => {
        const v = await this.guard(() => this.redis.hget(`${this.prefix}robots`, origin));
        return v === null ? null : (JSON.parse(v) as RobotsFetch);
      },
      set: async (origin, fetched) => {
        await this.guard(() => this.redis.hsetnx(`${this.prefix}robots`, origin, JSON.stringify(fetched)));
      },
    };
  }

  /**
   * Connect to Redis and join (or start) the crawl `opts.crawlId`.
   *
   * The first worker stores the crawl key; later ones are compared with it. Starts the
   * worker's heartbeat. Waits for Redis up to `retryMs`.
   * @param url - `redis://[user:password@]host:port[/db]` or `rediss://…`
   * @throws OptionsError for a bad URL or crawl id
   * @throws NoSuchCrawlError when `crawlKey` is `null` and no such crawl is stored
   * @throws RedisCrawlMismatchError when the stored crawl differs and `force` is not set
   * @throws RedisStoreError when Redis cannot be reached within `retryMs`, answers with an
   * error, or holds a crawl of a newer layout
   */
  static async open(url: string, opts: RedisFrontierOptions): Promise<RedisFrontier> {
    checkRedisTarget(url, opts.crawlId);
    const leaseTtlMs = opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!(Number.isFinite(leaseTtlMs) && leaseTtlMs > 0)) throw new RangeError(`leaseTtlMs must be a positive number of milliseconds, got ${leaseTtlMs}`);
    const retryMs = opts.retryMs ?? DEFAULT_REDIS_RETRY_MS;
    const conn: ConnectionState = { downSince: null, gaveUp: false, lastError: null };
    const redis = new Redis(url, {
      // Commands wait while the client reconnects; when it gives up they all fail.
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      connectTimeout: Math.min(5_000, Math.max(500, retryMs)),
      retryStrategy: () => {
        const now = Date.now();
        const since = (conn.downSince ??= now);
        if (now - since >= retryMs) {
          conn.gaveUp = true;
          return null;
        }
        return Math.min(1_000, Math.max(50, (now - since) / 4));
      },
    });
    redis.on('error', (err: Error) => {
      conn.lastError = err;
    });
    redis.on('ready', () => {
      conn.downSince = null;
    });
    const where = redact(url);
    const fail = (err: unknown): RedisStoreError =>
      new RedisStoreError(`cannot use Redis at ${where}: ${firstLine(conn.lastError ?? err)} (gave up after ${Math.round(retryMs / 1000)} s)`, { cause: err });
    try {
      await redis.ping();
    } catch (err) {
      redis.disconnect();
      throw fail(err);
    }
    const prefix = `spacrawl:{${opts.crawlId}}:`;
    try {
      const meta = await redis.hgetall(`${prefix}meta`);
      const schema = meta.schema === undefined ? null : Number(meta.schema);
      if (schema !== null && !(schema >= 1 && schema <= REDIS_SCHEMA_VERSION)) {
        throw new RedisStoreError(`crawl ${opts.crawlId} in Redis was written by a newer spacrawl (layout ${meta.schema}; this version reads up to ${REDIS_SCHEMA_VERSION})`);
      }
      let key: CrawlKey;
      if (opts.crawlKey === null) {
        if (meta.crawl_key === undefined) throw new NoSuchCrawlError(opts.crawlId);
        key = JSON.parse(meta.crawl_key) as CrawlKey;
      } else {
        const given = normalizeKey(opts.crawlKey);
        // The first worker to get here stores its key; everyone else compares with it.
        await redis.hsetnx(`${prefix}meta`, 'crawl_key', stableStringify(given));
        await redis.hsetnx(`${prefix}meta`, 'schema', String(REDIS_SCHEMA_VERSION));
        await redis.hsetnx(`${prefix}meta`, 'created_at', new Date().toISOString());
        const stored = JSON.parse((await redis.hget(`${prefix}meta`, 'crawl_key')) ?? 'null') as Record<string, unknown> | null;
        const diff = stored ? keyDiff(stored, given) : null;
        if (diff && !opts.force) throw new RedisCrawlMismatchError(opts.crawlId, diff.fields, diff.details);
        if (diff) await redis.hset(`${prefix}meta`, 'crawl_key', stableStringify(given));
        key = given as CrawlKey;
      }
      const self = new RedisFrontier(redis, conn, url, opts.crawlId, leaseTtlMs, retryMs, opts.maxPages ?? null, key);
      if (opts.heartbeat !== false) {
        await self.beat(true);
        self.heartbeat = setInterval(() => void self.beat(true).catch(() => {}), HEARTBEAT_MS);
        self.heartbeat.unref();
      }
      return self;
    } catch (err) {
      redis.disconnect();
      if (err instanceof RedisStoreError || err instanceof NoSuchCrawlError || err instanceof RedisCrawlMismatchError) throw err;
      throw fail(err);
    }
  }

  private async beat(alive: boolean): Promise<void> {
    await this.run(SCRIPTS.heartbeat, this.keys, [this.workerId, alive ? '1' : '0']);
  }

  /** Run a Redis call; any failure becomes a {@link RedisStoreError} with a one-line message. */
  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new RedisStoreError(`the Redis frontier of crawl ${this.crawlId} is closed`);
    try {
      return await fn();
    } catch (err) {
      if (err instanceof StaleLeaseError || err instanceof RedisStoreError) throw err;
      const where = redact(this.url);
      if (this.conn.gaveUp || /Connection is closed/i.test(firstLine(err))) {
        throw new RedisStoreError(
          `lost the connection to Redis at ${where} and could not reconnect within ${Math.round(this.retryMs / 1000)} s${this.conn.lastError ? ` (${firstLine(this.conn.lastError)})` : ''}`,
          { cause: err },
        );
      }
      throw new RedisStoreError(`Redis at ${where}: ${firstLine(err)}`, { cause: err });
    }
  }

  /** EVALSHA, loading the script when Redis does not know it (first use, or after a restart). */
  private run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.guard(async () => {
      try {
        return await this.redis.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!/NOSCRIPT/.test(firstLine(err))) throw err;
        return await this.redis.eval(script.src, keys.length, ...keys, ...args);
      }
    });
  }

  /** Run a politeness script on host `key`'s keys. */
  private host(script: LuaScript, key: string, args: readonly (string | number)[]): Promise<unknown> {
    return this.run(script, [`${this.prefix}host:${key}`, `${this.prefix}flight:${key}`], args);
  }

  /** Entries as the add scripts take them: skipped ones carry their record. */
  private encode(entries: readonly FrontierEntry[]): string {
    return JSON.stringify(
      entries.map((e) => {
        const stored: StoredEntry = { url: e.url, requestedUrl: e.requestedUrl, depth: e.depth, referrer: e.referrer };
        const item: { u: string; e: string; d: number; s?: string } = { u: e.url, e: JSON.stringify(stored), d: e.depth };
        if (e.skip) {
          const marker: SkipMarker = { $skip: e.skip, ...stored, error: e.skipError ?? null, duplicateOf: e.duplicateOf ?? null };
          item.s = JSON.stringify(marker);
        }
        return item;
      }),
    );
  }

  /** The entries whose 1-based indexes a script returned as new. */
  private static pick(entries: readonly FrontierEntry[], indexes: readonly unknown[]): FrontierEntry[] {
    return indexes.map((i) => entries[Number(i) - 1]!);
  }

  /**
   * Offer URLs in one atomic step: each canonical URL not stored before is queued (or, with
   * `skip`, stored as skipped with a record); others are ignored.
   * @returns the entries that were new, in the order given
   * @throws RedisStoreError when Redis fails
   */
  async add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    if (entries.length === 0) return [];
    const res = (await this.run(SCRIPTS.add, this.keys, [this.encode(entries)])) as unknown[];
    return RedisFrontier.pick(entries, res);
  }

  /**
   * Claim the next URL atomically: one whose lease expired (a dead worker's), else the queued
   * URL of lowest depth, first-come within a depth. It gets a fresh token and expires
   * `leaseTtlMs` from now on Redis's clock. A URL not claimed before is refused once the
   * crawl-wide budget is spent.
   * @returns the lease, or `null` when nothing is claimable (URLs may be in flight elsewhere)
   * @throws RedisStoreError when Redis fails
   */
  async next(): Promise<Lease | null> {
    const token = randomUUID();
    const res = (await this.run(SCRIPTS.claim, this.keys, [token, this.leaseTtlMs, this.maxPages ?? 0])) as [string, string?] | null;
    if (!res || res[0] !== 'lease' || !res[1]) return null;
    const e = JSON.parse(res[1]) as StoredEntry;
    return { entry: { url: e.url, requestedUrl: e.requestedUrl, depth: e.depth, referrer: e.referrer }, token };
  }

  /**
   * Finish a lease atomically: if the token still owns the unexpired lease, append `record` to
   * the crawl's records, mark the URL done (`failed` when the record has an error or a status
   * >= 400) and add `discovered`.
   * @returns the discovered entries that were new
   * @throws StaleLeaseError when the lease expired or was taken over (nothing is written)
   * @throws RedisStoreError when Redis fails
   */
  async complete(lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    const failed = record.error !== null || (record.status !== null && record.status >= 400);
    const res = (await this.run(SCRIPTS.complete, this.keys, [
      lease.entry.url,
      lease.token,
      failed ? 'failed' : 'done',
      JSON.stringify(record),
      this.encode(discovered),
    ])) as unknown[];
    if (Number(res[0]) !== 1) throw new StaleLeaseError(lease.entry.url);
    return RedisFrontier.pick(discovered, res.slice(1));
  }

  /**
   * Extend a lease to `leaseTtlMs` from now.
   * @throws StaleLeaseError when the lease expired or was taken over
   * @throws RedisStoreError when Redis fails
   */
  async renew(lease: Lease): Promise<void> {
    const ok = await this.run(SCRIPTS.renew, this.keys, [lease.entry.url, lease.token, this.leaseTtlMs]);
    if (Number(ok) !== 1) throw new StaleLeaseError(lease.entry.url);
  }

  /**
   * Put a leased URL back at the front of its depth, unvisited.
   * @throws StaleLeaseError when the token no longer owns it
   * @throws RedisStoreError when Redis fails
   */
  async release(lease: Lease): Promise<void> {
    const ok = await this.run(SCRIPTS.release, this.keys, [lease.entry.url, lease.token]);
    if (Number(ok) !== 1) throw new StaleLeaseError(lease.entry.url);
  }

  /**
   * Mark a URL reached another way (a redirect's final URL) as done, without a record.
   * @returns `true` if it was unknown or only queued
   * @throws RedisStoreError when Redis fails
   */
  async markDone(url: string): Promise<boolean> {
    const stored: StoredEntry = { url, requestedUrl: url, depth: 0, referrer: null };
    return Number(await this.run(SCRIPTS.markDone, this.keys, [url, JSON.stringify(stored)])) === 1;
  }

  /**
   * Take every queued URL out of the queue atomically; each is stored as skipped for `reason`
   * with a record. Leased URLs are not touched.
   * @returns the drained entries, breadth-first
   * @throws RedisStoreError when Redis fails
   */
  async drain(reason: SkipReason = 'budget'): Promise<FrontierEntry[]> {
    const res = (await this.run(SCRIPTS.drain, this.keys, [reason])) as string[];
    return res.map((j) => {
      const e = JSON.parse(j) as StoredEntry;
      return { url: e.url, requestedUrl: e.requestedUrl, depth: e.depth, referrer: e.referrer };
    });
  }

  /** `true` once `maxPages` distinct URLs were claimed, crawl-wide. @throws RedisStoreError */
  async budgetSpent(): Promise<boolean> {
    if (this.maxPages === null) return false;
    const claimed = await this.guard(() => this.redis.scard(this.keys[7]!));
    return claimed >= this.maxPages;
  }

  /**
   * Crawl-wide sizes: `queued` (including expired leases), `inFlight` (live leases), `done`
   * (done, failed, skipped, and URLs marked done).
   * @throws RedisStoreError when Redis fails
   */
  async counts(): Promise<FrontierCounts> {
    const [queued = 0, inFlight = 0, done = 0, failed = 0, skipped = 0, marked = 0] = await this.rawCounts();
    return { queued, inFlight, done: done + failed + skipped + marked };
  }

  private async rawCounts(): Promise<number[]> {
    return ((await this.run(SCRIPTS.counts, this.keys, [])) as unknown[]).map(Number);
  }

  /** A snapshot for `spacrawl status`. @throws RedisStoreError when Redis fails */
  async status(): Promise<CrawlStatus> {
    const s = await this.rawCounts();
    return {
      crawlId: this.crawlId,
      queued: s[0]!,
      inFlight: s[1]!,
      done: s[2]!,
      failed: s[3]!,
      skipped: s[4]!,
      pagesPerSecond: Math.round((s[6]! / 60) * 100) / 100,
      workers: s[7]!,
      claimed: s[8]!,
      records: s[9]!,
      crawlKey: this.crawlKey,
    };
  }

  /**
   * Every stored record, in the order they were stored (all workers'). Read a few hundred per
   * round trip; records appended meanwhile are included.
   * @throws RedisStoreError when Redis fails or a stored record is unreadable
   */
  async *records(): AsyncGenerator<PageRecord, void, undefined> {
    for (let start = 0; ; start += RECORD_PAGE) {
      const rows = await this.guard(() => this.redis.lrange(this.keys[5]!, start, start + RECORD_PAGE - 1));
      for (const row of rows) yield toRecord(row);
      if (rows.length < RECORD_PAGE) return;
    }
  }

  /**
   * Leave the crawl: stop the heartbeat, say goodbye in `status` (best effort, 1 s) and
   * disconnect. Leases still held expire on their own. Never throws; calling it again does
   * nothing.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.heartbeat && this.redis.status === 'ready') {
      await Promise.race([this.beat(false).catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
    }
    this.closed = true;
    this.redis.disconnect();
  }
}

/** A stored record line as a PageRecord. */
function toRecord(row: string): PageRecord {
  let v: PageRecord | SkipMarker;
  try {
    v = JSON.parse(row) as PageRecord | SkipMarker;
  } catch (err) {
    throw new RedisStoreError(`a stored record is not JSON: ${firstLine(err)}`);
  }
  if (!('$skip' in v)) return upgradeRecord(v);
  const r = blankRecord(v.url, v.requestedUrl, v.depth, v.referrer);
  r.skipped = v.$skip;
  r.error = v.error ?? null;
  r.duplicateOf = v.duplicateOf ?? null;
  return r;
}

/** The first line of an error message, without the Redis client's "Please report this." (it is no bug of the client's). */
function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err))
    .split('\n')[0]!
    .replace(/\s*Please report this\.?/i, '')
    .replace(/^Protocol error, got "(.*)" as reply type byte\.?$/, 'not a Redis server (it answered "$1")')
    .trim();
}
