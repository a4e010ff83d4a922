/**
 * One worker's connection to the Redis of a shared crawl: the client with its reconnect policy,
 * the crawl's key prefix, the {@link RedisConnection.guard} that turns every Redis failure into
 * a {@link RedisStoreError}, and Lua scripts run by SHA ({@link RedisConnection.eval}). The
 * frontier, politeness, robots and worker stores of `redis/` all go through it.
 * @module
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { UsageError } from '../../model/errors.js';
import { guard, StoreError } from '../policy.js';

import { redisTargetProblem } from './target.js';

export { DEFAULT_REDIS_RETRY_MS } from './defaults.js';


/**
 * Redis cannot be used: unreachable for longer than the retry time, lost mid-crawl, or it
 * answered with an error. It must stop the crawl (the CLI exits 3); what was already written
 * stays.
 */
export class RedisStoreError extends StoreError {
  override readonly code = 'redis-store';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RedisStoreError';
  }
}

export { redisTargetProblem };

/** A Redis URL or crawl id that cannot be used (see {@link redisTargetProblem}); the CLI exits 2. */
export class RedisTargetError extends UsageError {
  readonly code = 'bad-redis-target';
  constructor(url: string, crawlId: string, problem: 'url' | 'crawl-id') {
    super(
      problem === 'url'
        ? `the Redis URL must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`
        : `the crawl id must be 1 to 100 letters, digits, dots, underscores or dashes, got ${JSON.stringify(crawlId)}`,
    );
    this.name = 'RedisTargetError';
  }
}

/** A Lua script with its SHA-1 (what EVALSHA takes). */
export interface LuaScript {
  src: string;
  sha: string;
}

/** A Lua script, ready for {@link RedisConnection.eval}. */
export function luaScript(src: string): LuaScript {
  return { src, sha: createHash('sha1').update(src).digest('hex') };
}

/** Lua: `now_ms()`, the Redis server's clock in ms (so workers' clocks need not agree). */
export const NOW_MS = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/** What the Redis client's event handlers know about the connection. */
interface ConnectionState {
  /** When the connection was lost (ms since epoch), or `null` while connected. */
  downSince: number | null;
  /** The client stopped reconnecting (the retry time ran out): every call now fails. */
  gaveUp: boolean;
  /** The client's last error, for messages. */
  lastError: Error | null;
}

/**
 * A connection to the Redis of crawl `crawlId`. Commands wait while the client reconnects, up
 * to the retry time; then every call fails with a {@link RedisStoreError}.
 */
export class RedisConnection {
  /** Prefix of every key of the crawl: `spacrawl:{NAME}:` (one hash tag, so a Redis Cluster keeps a crawl on one node). */
  readonly prefix: string;
  private closed = false;

  private constructor(
    /** The client, for calls made through {@link RedisConnection.guard}. */
    readonly client: Redis,
    private readonly state: ConnectionState,
    private readonly url: string,
    /** The crawl's name. */
    readonly crawlId: string,
    private readonly retryMs: number,
  ) {
    this.prefix = `spacrawl:{${crawlId}}:`;
  }

  /**
   * Connect and wait until Redis answers PING, for up to `retryMs`.
   * @param url - `redis://[user:password@]host:port[/db]` or `rediss://…`
   * @param crawlId - the crawl's name (checked with {@link redisTargetProblem} by the caller)
   * @throws RedisStoreError when Redis cannot be reached within `retryMs`
   */
  static async open(url: string, crawlId: string, retryMs: number): Promise<RedisConnection> {
    const state: ConnectionState = { downSince: null, gaveUp: false, lastError: null };
    const client = new Redis(url, {
      // Commands wait while the client reconnects; when it gives up they all fail.
      maxRetriesPerRequest: null,
      enableOfflineQueue: true,
      connectTimeout: Math.min(5_000, Math.max(500, retryMs)),
      retryStrategy: () => {
        const now = Date.now();
        const since = (state.downSince ??= now);
        if (now - since >= retryMs) {
          state.gaveUp = true;
          return null;
        }
        return Math.min(1_000, Math.max(50, (now - since) / 4));
      },
    });
    client.on('error', (err: Error) => {
      state.lastError = err;
    });
    client.on('ready', () => {
      state.downSince = null;
    });
    const conn = new RedisConnection(client, state, url, crawlId, retryMs);
    try {
      await client.ping();
    } catch (err) {
      client.disconnect();
      throw conn.cannotUse(err);
    }
    return conn;
  }

  /** The key `name` of this crawl. */
  key(name: string): string {
    return this.prefix + name;
  }

  /** `true` while the client is connected. */
  get ready(): boolean {
    return this.client.status === 'ready';
  }

  /** The error for a failure while connecting or joining the crawl (before the store is open). */
  cannotUse(err: unknown): RedisStoreError {
    const s = this.state;
    return new RedisStoreError(`cannot use Redis at ${redact(this.url)}: ${firstLine(s.lastError ?? err)} (gave up after ${Math.round(this.retryMs / 1000)} s)`, {
      cause: err,
    });
  }

  /** Run a Redis call; any failure becomes a {@link RedisStoreError} with a one-line message. */
  async guard<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new RedisStoreError(`the Redis frontier of crawl ${this.crawlId} is closed`);
    return guard(fn, (err) => {
      const where = redact(this.url);
      if (this.state.gaveUp || /Connection is closed/i.test(firstLine(err))) {
        const last = this.state.lastError ? ` (${firstLine(this.state.lastError)})` : '';
        return new RedisStoreError(`lost the connection to Redis at ${where} and could not reconnect within ${Math.round(this.retryMs / 1000)} s${last}`, { cause: err });
      }
      return new RedisStoreError(`Redis at ${where}: ${firstLine(err)}`, { cause: err });
    });
  }

  /** EVALSHA, loading the script when Redis does not know it (first use, or after a restart). Guarded. */
  eval(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return this.guard(async () => {
      try {
        return await this.client.evalsha(script.sha, keys.length, ...keys, ...args);
      } catch (err) {
        if (!/NOSCRIPT/.test(firstLine(err))) throw err;
        return await this.client.eval(script.src, keys.length, ...keys, ...args);
      }
    });
  }

  /** Disconnect; every later call fails with a {@link RedisStoreError}. */
  close(): void {
    this.closed = true;
    this.client.disconnect();
  }
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

/** The first line of an error message, without the Redis client's "Please report this." (it is no bug of the client's). */
export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err))
    .split('\n')[0]!
    .replace(/\s*Please report this\.?/i, '')
    .replace(/^Protocol error, got "(.*)" as reply type byte\.?$/, 'not a Redis server (it answered "$1")')
    .trim();
}
