/**
 * The atomic core of the Redis frontier: the crawl's keys, and one Lua script per frontier step
 * (add, claim, complete, renew, release, mark-done, drain, decide, counts, begin, end, reopen), each atomic across workers
 * and timed by the Redis server's clock; plus the JSON the scripts take and store.
 * @module
 */
import type { FrontierEntry } from '../frontier.js';
import type { RecordError, SkipReason } from '../../model/record.js';
import { luaScript, NOW_MS, type LuaScript } from './connection.js';
import { WORKER_LIVE_MS } from './workers.js';
import { KEY_FIELD } from '../policy.js';

/**
 * Keys of one crawl, in the order the frontier scripts take them (KEYS[1] … KEYS[15]).
 * `budget`: URL → index in `records` of the skip record of each URL skipped for the budget (so
 * a resume with a larger budget can reopen it and blank that record in place). `held`: the URLs
 * held past `--max-depth`, ordered as the queue is (depth, then first-come). `claims`: leased URL
 * → the URLs its visit claimed (`markDone` with an owner) and what each was before, as JSON
 * `[{u, s}]` (`s`: `new`, `queued` or `held`), until the visit completes; a visit that does not
 * (its lease released, or taken over after expiry) has them undone.
 */
export const FRONTIER_KEYS = ['entries', 'state', 'queue', 'leases', 'tokens', 'records', 'counts', 'started', 'completions', 'seq', 'meta', 'workers', 'budget', 'held', 'claims'] as const;

/** What stands in `records` for a skip record taken back by a resume (records keep their places). */
export const GONE_RECORD = '{"$gone":1}';

/** The first key layout (`REDIS_SCHEMA_VERSION`) whose readers skip {@link GONE_RECORD}s: a crawl that gets one is marked with it. */
export const GONE_RECORD_LAYOUT = 2;

/**
 * The first key layout whose workers hold URLs past `--max-depth` (state `held`, key `held`): a
 * crawl that holds one is marked with it, so that older workers, which would never decide a held
 * URL, cannot join it.
 */
export const HELD_LAYOUT = 3;

const PRELUDE = `${NOW_MS}
local function score(depth, seq)
  return string.format('%.0f', depth * 1e9 + seq)
end
local function score_depth(s)
  return math.floor(tonumber(s) / 1e9)
end
-- Mark the crawl with key layout v unless it has that one or a later one.
local function raise_layout(v)
  if (tonumber(redis.call('HGET', KEYS[11], 'schema')) or 0) < v then redis.call('HSET', KEYS[11], 'schema', v) end
end
-- Queue (or, held, hold) a URL whose entry is stored, after the URLs waiting at its depth.
local function wait(url, depth, held)
  if held then
    redis.call('HSET', KEYS[2], url, 'held')
    redis.call('ZADD', KEYS[14], score(depth, redis.call('INCR', KEYS[10])), url)
    raise_layout(${HELD_LAYOUT})
  else
    redis.call('HSET', KEYS[2], url, 'queued')
    redis.call('ZADD', KEYS[3], score(depth, redis.call('INCR', KEYS[10])), url)
  end
end
-- Undo the claims of a visit that will not complete (its lease released or taken over): a URL
-- it claimed that was waiting waits again where it was; one only the claim knew is forgotten.
local function undo_claims(owner)
  local json = redis.call('HGET', KEYS[15], owner)
  if not json then return end
  redis.call('HDEL', KEYS[15], owner)
  for _, c in ipairs(cjson.decode(json)) do
    if redis.call('HGET', KEYS[2], c.u) == 'done' then
      redis.call('HINCRBY', KEYS[7], 'marked', -1)
      if c.s == 'new' then
        redis.call('HDEL', KEYS[1], c.u)
        redis.call('HDEL', KEYS[2], c.u)
      else
        wait(c.u, cjson.decode(redis.call('HGET', KEYS[1], c.u)).depth, c.s == 'held')
      end
    end
  end
end
-- A new URL is stored; a waiting one (queued or held) takes an entry without skip that lowers
-- its depth (a queued one is never held again); anything else is ignored (Frontier.add).
local function add_entries(json)
  local fresh = {}
  for i, e in ipairs(cjson.decode(json)) do
    if redis.call('HSETNX', KEYS[1], e.u, e.e) == 1 then
      if e.s then
        redis.call('HSET', KEYS[2], e.u, 'skipped')
        local n = redis.call('RPUSH', KEYS[6], e.s)
        if e.b then redis.call('HSET', KEYS[13], e.u, n - 1) end
        redis.call('HINCRBY', KEYS[7], 'skipped', 1)
      else
        wait(e.u, e.d, e.h)
      end
      fresh[#fresh + 1] = i
    elseif not e.s then
      local st = redis.call('HGET', KEYS[2], e.u)
      if (st == 'queued' and not e.h) or st == 'held' then
        if e.d < cjson.decode(redis.call('HGET', KEYS[1], e.u)).depth then
          redis.call('ZREM', st == 'queued' and KEYS[3] or KEYS[14], e.u)
          redis.call('HSET', KEYS[1], e.u, e.e)
          wait(e.u, e.d, e.h)
          fresh[#fresh + 1] = i
        end
      end
    end
  end
  return fresh
end
-- The smallest depth of a leased URL (expired leases included: they are taken over), or math.huge.
local function lowest_leased()
  local m = math.huge
  for _, url in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
    local d = cjson.decode(redis.call('HGET', KEYS[1], url)).depth
    if d < m then m = d end
  end
  return m
end
local function live_others(now, self)
  local n = redis.call('ZCOUNT', KEYS[12], now - ${WORKER_LIVE_MS}, '+inf')
  local mine = redis.call('ZSCORE', KEYS[12], self)
  if mine and tonumber(mine) >= now - ${WORKER_LIVE_MS} then n = n - 1 end
  return n
end
-- Close the crawl's running period at the last clean end of a worker (none: a killed run adds nothing).
local function fold_period()
  local a = tonumber(redis.call('HGET', KEYS[11], 'active_since'))
  local e = tonumber(redis.call('HGET', KEYS[11], 'ended_ms'))
  if a and e and e > a then redis.call('HINCRBY', KEYS[11], 'crawl_ms', e - a) end
  redis.call('HDEL', KEYS[11], 'active_since')
end
local function owns(url, token, now)
  if redis.call('HGET', KEYS[5], url) ~= token then return false end
  local exp = redis.call('ZSCORE', KEYS[4], url)
  return exp and tonumber(exp) > now
end
`;

/** The error every frontier script answers with when the crawl's keys are gone (see {@link CRAWL_PRESENT}). */
export const CRAWL_GONE = 'SPACRAWL_CRAWL_GONE';

/**
 * Run first by every frontier script: a crawl whose identity (its crawl key in `meta`) is gone
 * lost all its keys (a Redis restarted without persistence, a FLUSHALL, keys deleted). Carrying
 * on would start an empty crawl under its name: leases fail as expired, nothing is queued, and
 * a worker would end as if the crawl were done. So the script answers an error and writes nothing.
 */
const CRAWL_PRESENT = `
if redis.call('HEXISTS', KEYS[11], '${KEY_FIELD}') == 0 then return redis.error_reply('${CRAWL_GONE}') end
`;

const lua = (body: string): LuaScript => luaScript(PRELUDE + CRAWL_PRESENT + body);

export const SCRIPTS = {
  add: lua(`return add_entries(ARGV[1])`),
  // ARGV: token, ttl, maxPages (0 = none). Expired leases first (they were claimed earlier); the
  // third value returned is 1 when the lease was taken over from a holder that let it expire.
  claim: lua(`
local now = now_ms()
local url
local ex = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1)
local taken = 0
if #ex > 0 then
  url = ex[1]
  taken = 1
  undo_claims(url)
else
  local q = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
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
return {'lease', redis.call('HGET', KEYS[1], url), taken}
`),
  // ARGV: url, token, state (done|failed), record JSON, discovered entries JSON.
  complete: lua(`
local now = now_ms()
local url = ARGV[1]
if not owns(url, ARGV[2], now) then return {0} end
redis.call('ZREM', KEYS[4], url)
redis.call('HDEL', KEYS[5], url)
redis.call('HDEL', KEYS[15], url)
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
  // ARGV: url, token. Back to the front of its depth; what its visit claimed is undone.
  release: lua(`
if redis.call('HGET', KEYS[5], ARGV[1]) ~= ARGV[2] then return 0 end
undo_claims(ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], 'queued')
local e = cjson.decode(redis.call('HGET', KEYS[1], ARGV[1]))
redis.call('ZADD', KEYS[3], score(e.depth, 0), ARGV[1])
return 1
`),
  // ARGV: url, entry JSON for an unknown URL, owner (the leased URL whose visit claims it, or '')
  markDone: lua(`
local st = redis.call('HGET', KEYS[2], ARGV[1])
if not st then
  redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
elseif st == 'queued' then
  redis.call('ZREM', KEYS[3], ARGV[1])
elseif st == 'held' then
  redis.call('ZREM', KEYS[14], ARGV[1])
else
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], 'done')
redis.call('HINCRBY', KEYS[7], 'marked', 1)
if ARGV[3] ~= '' and redis.call('HGET', KEYS[2], ARGV[3]) == 'leased' then
  local claims = cjson.decode(redis.call('HGET', KEYS[15], ARGV[3]) or '[]')
  claims[#claims + 1] = {u = ARGV[1], s = st or 'new'}
  redis.call('HSET', KEYS[15], ARGV[3], cjson.encode(claims))
end
return 1
`),
  // ARGV: skip reason
  drain: lua(`
local out = {}
for _, url in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  local json = redis.call('HGET', KEYS[1], url)
  local e = cjson.decode(json)
  redis.call('HSET', KEYS[2], url, 'skipped')
  local n = redis.call('RPUSH', KEYS[6], cjson.encode({['$skip'] = ARGV[1], url = url, requestedUrl = e.requestedUrl, depth = e.depth, referrer = e.referrer}))
  if ARGV[1] == 'budget' then redis.call('HSET', KEYS[13], url, n - 1) end
  redis.call('HINCRBY', KEYS[7], 'skipped', 1)
  out[#out + 1] = json
end
redis.call('DEL', KEYS[3])
return out
`),
  // Held URLs no queued or leased URL can report at a smaller depth any more (one of depth d once
  // nothing of depth d - 2 or less is queued or leased) are skipped for the budget, with a record.
  decide: lua(`
if redis.call('ZCARD', KEYS[14]) == 0 then return {} end
local lowest = lowest_leased()
local q = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if #q > 0 then lowest = math.min(lowest, score_depth(q[2])) end
local urls
if lowest == math.huge then urls = redis.call('ZRANGE', KEYS[14], 0, -1)
else urls = redis.call('ZRANGEBYSCORE', KEYS[14], '-inf', '(' .. score(lowest + 2, 0)) end
local out = {}
for _, url in ipairs(urls) do
  local json = redis.call('HGET', KEYS[1], url)
  local e = cjson.decode(json)
  redis.call('ZREM', KEYS[14], url)
  redis.call('HSET', KEYS[2], url, 'skipped')
  local n = redis.call('RPUSH', KEYS[6], cjson.encode({['$skip'] = 'budget', url = url, requestedUrl = e.requestedUrl, depth = e.depth, referrer = e.referrer}))
  redis.call('HSET', KEYS[13], url, n - 1)
  redis.call('HINCRBY', KEYS[7], 'skipped', 1)
  out[#out + 1] = json
end
return out
`),
  counts: lua(`
local now = now_ms()
local c = redis.call('HMGET', KEYS[7], 'done', 'failed', 'skipped', 'marked', 'gone')
local expired = redis.call('ZCOUNT', KEYS[4], '-inf', now)
local live = redis.call('ZCOUNT', KEYS[12], now - ${WORKER_LIVE_MS}, '+inf')
local m = redis.call('HMGET', KEYS[11], 'started_ms', 'crawl_ms', 'active_since', 'ended_ms')
local started, crawl, active, ended = tonumber(m[1]), tonumber(m[2]) or 0, tonumber(m[3]), tonumber(m[4])
local elapsed = crawl
if active then
  if live > 0 then elapsed = elapsed + now - active
  elseif ended and ended > active then elapsed = elapsed + ended - active end
end
return {
  redis.call('ZCARD', KEYS[3]) + redis.call('ZCARD', KEYS[14]) + expired,
  redis.call('ZCARD', KEYS[4]) - expired,
  tonumber(c[1]) or 0, tonumber(c[2]) or 0, tonumber(c[3]) or 0, tonumber(c[4]) or 0,
  redis.call('ZCOUNT', KEYS[9], now - 60000, '+inf'),
  live,
  redis.call('SCARD', KEYS[8]),
  redis.call('LLEN', KEYS[6]) - (tonumber(c[5]) or 0),
  started or -1,
  elapsed,
  ended or -1,
  active or -1,
  now
}
`),
  // ARGV: worker id. A worker starts: the crawl's first start is kept; a start with no other
  // live worker opens a running period (closing the last one first).
  begin: lua(`
local now = now_ms()
redis.call('HSETNX', KEYS[11], 'started_ms', now)
if live_others(now, ARGV[1]) == 0 then
  fold_period()
  redis.call('HSET', KEYS[11], 'active_since', now)
end
return 1
`),
  // ARGV: worker id, end reason. A worker ends cleanly; the last live one closes the running period.
  end: lua(`
local now = now_ms()
redis.call('HSET', KEYS[11], 'ended_ms', now, 'end_reason', ARGV[2])
if live_others(now, ARGV[1]) == 0 then fold_period() end
return 1
`),
  // ARGV: deepest depth to reopen. URLs skipped for the budget go back in the queue in their old
  // order; their skip records are blanked in place (GONE_RECORD). Held URLs go back too (after
  // them, in their order; they have no record and are not returned).
  reopen: lua(`
local max = tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[13])
local picked = {}
for i = 1, #all, 2 do
  local url = all[i]
  local e = cjson.decode(redis.call('HGET', KEYS[1], url))
  if e.depth <= max and redis.call('HGET', KEYS[2], url) == 'skipped' then
    picked[#picked + 1] = {url = url, idx = tonumber(all[i + 1]), depth = e.depth}
  end
end
table.sort(picked, function(a, b) return a.idx < b.idx end)
if #picked > 0 then raise_layout(${GONE_RECORD_LAYOUT}) end
local out = {}
for _, p in ipairs(picked) do
  redis.call('LSET', KEYS[6], p.idx, '${GONE_RECORD}')
  redis.call('HDEL', KEYS[13], p.url)
  redis.call('HSET', KEYS[2], p.url, 'queued')
  redis.call('ZADD', KEYS[3], score(p.depth, redis.call('INCR', KEYS[10])), p.url)
  redis.call('HINCRBY', KEYS[7], 'skipped', -1)
  redis.call('HINCRBY', KEYS[7], 'gone', 1)
  out[#out + 1] = p.url
end
for _, url in ipairs(redis.call('ZRANGE', KEYS[14], 0, -1)) do
  local e = cjson.decode(redis.call('HGET', KEYS[1], url))
  if e.depth <= max then
    redis.call('ZREM', KEYS[14], url)
    wait(url, e.depth, false)
  end
end
return out
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

/**
 * Entries as the add scripts take them (`u` URL, `e` stored entry, `d` depth): skipped ones carry
 * their record (`s`, and `b` for a budget skip), held ones `h`.
 */
export function encodeEntries(entries: readonly FrontierEntry[]): string {
  return JSON.stringify(
    entries.map((e) => {
      const stored: StoredEntry = { url: e.url, requestedUrl: e.requestedUrl, depth: e.depth, referrer: e.referrer };
      const item: { u: string; e: string; d: number; s?: string; b?: 1; h?: 1 } = { u: e.url, e: JSON.stringify(stored), d: e.depth };
      if (e.held && !e.skip) item.h = 1;
      if (e.skip) {
        const marker: SkipMarker = { $skip: e.skip, ...stored, error: e.skipError ?? null, duplicateOf: e.duplicateOf ?? null };
        item.s = JSON.stringify(marker);
        if (e.skip === 'budget') item.b = 1;
      }
      return item;
    }),
  );
}

/** The entries whose 1-based indexes a script returned as new. */
export function pickEntries(entries: readonly FrontierEntry[], indexes: readonly unknown[]): FrontierEntry[] {
  return indexes.map((i) => entries[Number(i) - 1]!);
}
