/**
 * The crawl-wide politeness store in Redis: every worker's navigations to a host are spaced
 * and capped together (`--rate`, `--per-host-concurrency`, `Crawl-delay`, `Retry-After`). Each
 * step is one Lua script on the host's keys (`host:KEY`, a hash of times; `flight:KEY`, a
 * sorted set of in-flight slots), timed by the Redis server's clock.
 * @module
 */
import type { PolitenessStore } from '../frontier.js';
import { luaScript, NOW_MS, type LuaScript, type RedisConnection } from './connection.js';

// KEYS[1] = the host's hash, KEYS[2] = its in-flight set, KEYS[3] = its open reservations (a
// sorted set: score = reservation number, member = "number:deadline").
const SCRIPTS = {
  // ARGV: gap (ms), how long a reservation stays open past its time (ms; 0: not kept open, no
  // gap to keep). Returns the wait (ms) before the reserved navigation time and the
  // reservation's member ('' when not kept).
  reserve: luaScript(`${NOW_MS}
local now = now_ms()
local h = redis.call('HMGET', KEYS[1], 'last', 'paused')
local slot = math.max(now, (tonumber(h[1]) or -1e15) + tonumber(ARGV[1]), tonumber(h[2]) or 0)
redis.call('HSET', KEYS[1], 'last', string.format('%.0f', slot))
redis.call('PEXPIRE', KEYS[1], 86400000)
if tonumber(ARGV[2]) <= 0 then return {slot - now, ''} end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
local member = seq .. ':' .. string.format('%.0f', slot + tonumber(ARGV[2]))
redis.call('ZADD', KEYS[3], seq, member)
redis.call('PEXPIRE', KEYS[3], 86400000)
return {slot - now, member}
`),
  // ARGV: member. The reservation's request went out now (or it was given up: ARGV[2] = '0').
  close: luaScript(`${NOW_MS}
redis.call('ZREM', KEYS[3], ARGV[1])
if ARGV[2] == '1' then
  local now = now_ms()
  local cur = tonumber(redis.call('HGET', KEYS[1], 'sent')) or 0
  if now > cur then redis.call('HSET', KEYS[1], 'sent', string.format('%.0f', now)) end
  redis.call('PEXPIRE', KEYS[1], 86400000)
end
return 1
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
  // ARGV: gap (ms), member. Returns -1 while an earlier reservation is open (expired ones are
  // dropped), else how long to wait still: gap after the last request sent, past a pause.
  recheck: luaScript(`${NOW_MS}
local now = now_ms()
local seq = tonumber(string.match(ARGV[2], '^(%d+):'))
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. seq)) do
  local deadline = tonumber(string.match(m, ':(%d+)$')) or 0
  if deadline > now then return -1 end
  redis.call('ZREM', KEYS[3], m)
end
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
    conn.eval(script, [conn.key(`host:${key}`), conn.key(`flight:${key}`), conn.key(`open:${key}`)], args);
  const ms = (v: number): number => Math.max(0, Math.round(v));
  return {
    reserve: async (key, gapMs, openMs) => {
      const [waitMs, reservation] = (await host(SCRIPTS.reserve, key, [ms(gapMs), ms(openMs)])) as [number, string];
      return { waitMs: Number(waitMs), reservation: String(reservation) };
    },
    sent: async (key, reservation) => {
      await host(SCRIPTS.close, key, [reservation, '1']);
    },
    giveUp: async (key, reservation) => {
      await host(SCRIPTS.close, key, [reservation, '0']);
    },
    recheck: async (key, gapMs, reservation) => Number(await host(SCRIPTS.recheck, key, [ms(gapMs), reservation])),
    pause: async (key, pauseMs) => {
      await host(SCRIPTS.raise, key, ['paused', ms(pauseMs)]);
    },
    acquire: async (key, cap, member) => Number(await host(SCRIPTS.acquire, key, [cap, member, slotTtlMs])) === 1,
    release: async (key, member) => {
      await conn.guard(() => conn.client.zrem(conn.key(`flight:${key}`), member));
    },
  };
}
