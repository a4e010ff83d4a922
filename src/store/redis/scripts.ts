/**
 * The atomic core of the Redis frontier: the crawl's keys, and one Lua script per frontier step
 * (add, claim, complete, renew, release, mark-done, drain, counts), each atomic across workers
 * and timed by the Redis server's clock; plus the JSON the scripts take and store.
 * @module
 */
import type { FrontierEntry } from '../frontier.js';
import type { RecordError, SkipReason } from '../../model/record.js';
import { luaScript, NOW_MS, type LuaScript } from './connection.js';
import { WORKER_LIVE_MS } from './workers.js';

/** Keys of one crawl, in the order the frontier scripts take them (KEYS[1] … KEYS[12]). */
export const FRONTIER_KEYS = ['entries', 'state', 'queue', 'leases', 'tokens', 'records', 'counts', 'started', 'completions', 'seq', 'meta', 'workers'] as const;

const PRELUDE = `${NOW_MS}
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

const lua = (body: string): LuaScript => luaScript(PRELUDE + body);

export const SCRIPTS = {
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
} satisfies Record<string, LuaScript>;

/** A skipped or drained URL's compact form in the records list (expanded with `skipRecord`). */
export interface SkipMarker {
  $skip: SkipReason;
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
  error?: RecordError | null;
  duplicateOf?: string | null;
}

/** The entry as stored in the `entries` hash. */
export interface StoredEntry {
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
}

/** Entries as the add scripts take them (`u` URL, `e` stored entry, `d` depth): skipped ones carry their record (`s`). */
export function encodeEntries(entries: readonly FrontierEntry[]): string {
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
export function pickEntries(entries: readonly FrontierEntry[], indexes: readonly unknown[]): FrontierEntry[] {
  return indexes.map((i) => entries[Number(i) - 1]!);
}
