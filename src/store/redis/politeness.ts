/**
 * The crawl-wide politeness store in Redis: every worker's navigations to a host are spaced
 * and capped together (`--rate`, `--per-host-concurrency`, `Crawl-delay`, `Retry-After`). Each
 * step is one Lua script on the host's keys (`host:KEY`, a hash of times; `flight:KEY`, a
 * sorted set of in-flight slots), timed by the Redis server's clock.
 * @module
 */
import type { PolitenessStore } from '../frontier.js';
import { luaScript, NOW_MS, type LuaScript, type RedisConnection } from './connection.js';

// KEYS[1] = the host's hash, KEYS[2] = its in-flight set.
const SCRIPTS = {
  // ARGV: gap (ms). Returns the wait (ms) before the reserved navigation time.
  reserve: luaScript(`${NOW_MS}
local now = now_ms()
local h = redis.call('HMGET', KEYS[1], 'last', 'paused')
local slot = math.max(now, (tonumber(h[1]) or -1e15) + tonumber(ARGV[1]), tonumber(h[2]) or 0)
redis.call('HSET', KEYS[1], 'last', string.format('%.0f', slot))
redis.call('PEXPIRE', KEYS[1], 86400000)
return slot - now
`),
  // Raise a time field of the host's hash to now + ms, never lowering it.
  // ARGV: field ('sent': a navigation request went out; 'paused': a Retry-After or backoff), ms from now.
  raise: luaScript(`${NOW_MS}
local until_ = now_ms() + tonumber(ARGV[2])
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1])) or 0
if until_ > cur then redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f', until_)) end
redis.call('PEXPIRE', KEYS[1], 86400000)
return 1
`),
  // ARGV: gap (ms). Returns how long to wait still: gap after the last request sent, past a pause.
  recheck: luaScript(`${NOW_MS}
local now = now_ms()
local h = redis.call('HMGET', KEYS[1], 'sent', 'paused')
return math.max(0, (tonumber(h[1]) or -1e15) + tonumber(ARGV[1]) - now, (tonumber(h[2]) or 0) - now)
`),
  // ARGV: cap, member, ttl (ms)
  acquire: luaScript(`${NOW_MS}
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], 86400000)
return 1
`),
} satisfies Record<string, LuaScript>;

/**
 * The politeness store of one crawl.
 * @param slotTtlMs - how long an in-flight slot is held without being given back (the lease
 *   expiry: a slot of a worker that died is freed with its lease)
 */
export function redisPoliteness(conn: RedisConnection, slotTtlMs: number): PolitenessStore {
  const host = (script: LuaScript, key: string, args: readonly (string | number)[]): Promise<unknown> =>
    conn.eval(script, [conn.key(`host:${key}`), conn.key(`flight:${key}`)], args);
  const ms = (v: number): number => Math.max(0, Math.round(v));
  return {
    reserve: async (key, gapMs) => Number(await host(SCRIPTS.reserve, key, [ms(gapMs)])),
    sent: async (key) => {
      await host(SCRIPTS.raise, key, ['sent', 0]);
    },
    recheck: async (key, gapMs) => Number(await host(SCRIPTS.recheck, key, [ms(gapMs)])),
    pause: async (key, pauseMs) => {
      await host(SCRIPTS.raise, key, ['paused', ms(pauseMs)]);
    },
    acquire: async (key, cap, member) => Number(await host(SCRIPTS.acquire, key, [cap, member, slotTtlMs])) === 1,
    release: async (key, member) => {
      await conn.guard(() => conn.client.zrem(conn.key(`flight:${key}`), member));
    },
  };
}
