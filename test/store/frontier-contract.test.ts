import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../fixtures/redis-server.js';
import { blankRecord } from '../../src/model/record.js';
import { StaleLeaseError, type Frontier } from '../../src/store/frontier.js';
import { MemoryFrontier } from '../../src/store/memory.js';
import { RedisFrontier } from '../../src/store/redis/frontier.js';
import { SqliteFrontier } from '../../src/store/sqlite/frontier.js';
import { allRecords, drainLeases, entry, pageRecord, skipRedis, until } from './helpers.js';

// The Frontier contract (src/store/frontier.ts), one suite run over every store: memory, SQLite
// (a state file) and Redis (a real redis-server on a free loopback port). What only one store
// does (locking, kill -9, file problems, budgets across workers, Redis loss) is tested in
// sqlite.test.ts, redis.test.ts and ../redis.test.ts. About 500 lines on purpose: one list of the
// contract's promises (depth rules included), run over the three stores alike from one setup.

const KEY = { seeds: ['http://site.test/'], scope: 'host' };
const redisSkipped = skipRedis('test/store/frontier-contract.test.ts');

let tmp: string;
let redis: RedisServer | undefined;
let fileNo = 0;
let crawlNo = 0;
const opened: Frontier[] = [];
const files = new WeakMap<Frontier, string>();

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-contract-'));
  if (!redisSkipped) redis = await startRedis();
});
afterEach(async () => {
  for (const f of opened.splice(0)) await f.close().catch(() => {});
});
afterAll(async () => {
  await redis?.dispose();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface StoreUnderTest {
  name: string;
  /** Leases expire after `leaseTtlMs` unless renewed. */
  expires: boolean;
  /** `records()` gives back what was stored (the memory store keeps none). */
  keepsRecords: boolean;
  skipped: boolean;
  /** A new, empty store. */
  open(opts?: { leaseTtlMs?: number }): Promise<Frontier>;
  /** Another claimer on the same crawl: another worker for Redis, else the store itself. */
  peer(f: Frontier, opts?: { leaseTtlMs?: number }): Promise<Frontier>;
  /** URL states by path where the store keeps them (done, failed, skipped …); it may close `f`. */
  states?(f: Frontier): Promise<Record<string, string>>;
}

const keep = <F extends Frontier>(f: F): F => {
  opened.push(f);
  return f;
};
const byPath = (entries: [string, string][]): Record<string, string> => Object.fromEntries(entries.map(([u, s]) => [new URL(u).pathname, s]));

const STORES: StoreUnderTest[] = [
  {
    name: 'memory',
    expires: false,
    keepsRecords: false,
    skipped: false,
    open: async () => keep(new MemoryFrontier()),
    peer: async (f) => f,
  },
  {
    name: 'SQLite',
    expires: true,
    keepsRecords: true,
    skipped: false,
    open: async (opts = {}) => {
      const file = path.join(tmp, `state-${++fileNo}.db`);
      const f = keep(SqliteFrontier.open(file, { crawlKey: KEY, ...opts }));
      files.set(f, file);
      return f;
    },
    peer: async (f) => f,
    states: async (f) => {
      await f.close();
      const db = new Database(files.get(f)!, { readonly: true });
      try {
        return byPath(db.prepare<[], { url: string; state: string }>('SELECT url, state FROM urls ORDER BY seq').all().map((r) => [r.url, r.state]));
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'Redis',
    expires: true,
    keepsRecords: true,
    skipped: redisSkipped,
    open: async (opts = {}) => keep(await RedisFrontier.open(redis!.url, { crawlId: `c${process.pid}-${++crawlNo}`, crawlKey: KEY, heartbeat: false, ...opts })),
    peer: async (f, opts = {}) =>
      keep(await RedisFrontier.open(redis!.url, { crawlId: (f as RedisFrontier).crawlId, crawlKey: KEY, heartbeat: false, ...opts })),
    states: async (f) => {
      const client = new Redis(redis!.url);
      try {
        return byPath(Object.entries(await client.hgetall(`spacrawl:{${(f as RedisFrontier).crawlId}}:state`)));
      } finally {
        client.disconnect();
      }
    },
  },
];

describe.each(STORES)('$name frontier: the Frontier contract', (s) => {
  const test = s.skipped ? it.skip : it;
  /** Declared only for stores whose leases expire / that keep records. */
  const withExpiry = (name: string, fn: () => Promise<void>): void => void (s.expires && test(name, fn));
  const withRecords = (name: string, fn: () => Promise<void>): void => void (s.keepsRecords && test(name, fn));
  /** What `records()` yields: `expected` for a store that keeps records, nothing for one that does not. */
  const kept = <T>(expected: T[]): T[] => (s.keepsRecords ? expected : []);

  test('serves breadth-first: lowest depth first, first-come within a depth', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0), entry('/b', 0)]);
    const a = await f.next();
    expect(a?.entry.url).toBe('http://site.test/a');
    // Deeper URLs offered first still wait for shallower ones offered later.
    await f.complete(a!, pageRecord(a!.entry), [entry('/d2', 2, a!.entry.url), entry('/c1', 1, a!.entry.url), entry('/e1', 1, a!.entry.url)]);
    await f.add([entry('/f0', 0)]);
    expect(await drainLeases(f)).toEqual(['/b', '/f0', '/c1', '/e1', '/d2']);
    expect(await f.next()).toBeNull();
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 6 });
  });

  test('add dedups by canonical URL, also within one batch, and returns the new entries in order', async () => {
    const f = await s.open();
    const a = entry('/a', 0);
    expect(await f.add([a])).toEqual([a]);
    expect(await f.add([a])).toEqual([]);
    expect(await f.add([{ ...a, depth: 3 }])).toEqual([]);
    const b = entry('/b', 1);
    const c = entry('/c', 1, null, { skip: 'robots' });
    expect(await f.add([b, entry('/a', 2), { ...b }, c])).toEqual([b, c]);
    // A skipped URL is done at once and never leased.
    expect(await f.counts()).toEqual({ queued: 2, inFlight: 0, done: 1 });
    const leased = [await f.next(), await f.next(), await f.next()];
    expect(leased.map((l) => l?.entry.url ?? null)).toEqual(['http://site.test/a', 'http://site.test/b', null]);
    expect(await f.add([entry('/b', 0), c])).toEqual([]);
  });

  test('deduplicates across claimers; of concurrent claims each URL goes to exactly one', async () => {
    const a = await s.open();
    const b = await s.peer(a);
    expect((await a.add([entry('/x', 2), entry('/', 0)])).map((e) => e.url)).toEqual(['http://site.test/x', 'http://site.test/']);
    // /x waits at depth 2: the other claimer's report at depth 1 is taken, as a new URL is.
    expect(await b.add([entry('/x', 1), entry('/y', 1)])).toEqual([entry('/x', 1), entry('/y', 1)]);
    const claims = await Promise.all([a.next(), b.next(), a.next(), b.next(), a.next()]);
    const urls = claims.filter((c) => c !== null).map((c) => c.entry.url);
    expect(urls.sort()).toEqual(['http://site.test/', 'http://site.test/x', 'http://site.test/y']);
    expect(claims.filter((c) => c === null)).toHaveLength(2);
    expect(await a.counts()).toEqual({ queued: 0, inFlight: 3, done: 0 });
  });

  test('a report at a smaller depth wins while the URL waits (depth, referrer, requested URL, breadth-first place); a leased or visited URL keeps its entry and record', async () => {
    const f = await s.open();
    await f.add([entry('/', 0), entry('/t', 0)]);
    const home = (await f.next())!;
    const t = (await f.next())!;
    await f.complete(home, pageRecord(home.entry), [entry('/a', 1, home.entry.url), entry('/e', 1, home.entry.url)]);
    const a = (await f.next())!;
    expect(a.entry.url).toBe('http://site.test/a');
    // /a (depth 1) reports /b at depth 2 first, while /t (depth 0) is still in flight.
    const fromA = entry('/b', 2, a.entry.url, { requestedUrl: 'http://site.test/b?via=a' });
    expect(await f.add([fromA, entry('/d', 2, a.entry.url)])).toEqual([fromA, entry('/d', 2, a.entry.url)]);
    // Not smaller: ignored; an entry with skip never replaces a waiting URL.
    expect(await f.add([entry('/b', 2, 'http://site.test/e'), entry('/b', 3), entry('/b', 1, null, { skip: 'robots' })])).toEqual([]);
    const fromT = entry('/b', 1, t.entry.url, { requestedUrl: 'http://site.test/b?via=t' });
    expect(await f.complete(t, pageRecord(t.entry), [fromT])).toEqual([fromT]);
    expect(await f.counts()).toEqual({ queued: 3, inFlight: 1, done: 2 });
    // Breadth-first at its new depth, after the URLs already waiting there: /e, then /b, then /d.
    const e = (await f.next())!;
    expect(e.entry.url).toBe('http://site.test/e');
    const b = (await f.next())!;
    expect(b.entry).toEqual(fromT);
    // Leased: a report at a smaller depth changes nothing.
    expect(await f.add([entry('/b', 0, 'http://site.test/x')])).toEqual([]);
    expect(await f.markDone(b.entry.url)).toBe(false);
    const bRec = pageRecord(b.entry);
    await f.complete(b, bRec, []);
    // Visited: its record stays as stored, and it is not queued again.
    expect(await f.add([entry('/b', 0, 'http://site.test/x')])).toEqual([]);
    for (const l of [a, e]) await f.complete(l, pageRecord(l.entry), []);
    expect(await drainLeases(f)).toEqual(['/d']);
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 6 });
    const recs = await allRecords(f);
    expect(recs.filter((r) => r.url === b.entry.url)).toEqual(kept([bRec]));
    if (s.keepsRecords) expect(recs.find((r) => r.url === b.entry.url)).toMatchObject({ depth: 1, referrer: 'http://site.test/t', requestedUrl: 'http://site.test/b?via=t' });
  });

  test('leasing does not wait for nearer pages in flight: a URL leased before a nearer report keeps its depth', async () => {
    const f = await s.open();
    const peer = await s.peer(f);
    await f.add([entry('/', 0), entry('/t', 0)]);
    const home = (await f.next())!;
    const t = (await f.next())!;
    await f.complete(home, pageRecord(home.entry), [entry('/a', 1, home.entry.url), entry('/b', 1, home.entry.url)]);
    const a = (await f.next())!;
    await f.complete(a, pageRecord(a.entry), [entry('/deep', 2, a.entry.url)]);
    // /t (depth 0) is still leased: /b (depth 1), then /deep (depth 2) go all the same, for every claimer.
    const b = (await peer.next())!;
    expect(b.entry.url).toBe('http://site.test/b');
    const deep = (await f.next())!;
    expect(deep.entry).toEqual(entry('/deep', 2, a.entry.url));
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 3, done: 2 });
    // /t reports /deep nearer now: it is leased already, and keeps its entry.
    expect(await f.complete(t, pageRecord(t.entry), [entry('/deep', 1, t.entry.url)])).toEqual([]);
    await f.complete(b, pageRecord(b.entry), []);
    await f.complete(deep, pageRecord(deep.entry), [entry('/far', 3, deep.entry.url)]);
    expect(await drainLeases(f)).toEqual(['/far']);
  });

  test('a held URL (past --max-depth) is never leased; a report within the limit queues it; decideHeld skips the others for the budget once nothing could report them nearer, each once', async () => {
    const f = await s.open();
    const peer = await s.peer(f);
    await f.add([entry('/', 0), entry('/t', 0)]);
    const home = (await f.next())!;
    const t = (await f.next())!;
    await f.complete(home, pageRecord(home.entry), [entry('/a', 1, home.entry.url)]);
    const a = (await f.next())!;
    const held = { held: true } as const;
    const heldB = entry('/b', 2, a.entry.url, held);
    const heldC = entry('/c', 2, a.entry.url, held);
    expect(await f.complete(a, pageRecord(a.entry), [heldB, heldC])).toEqual([heldB, heldC]);
    // /t (depth 0) is in flight: it could still report /b or /c at depth 1.
    expect(await f.decideHeld()).toEqual([]);
    expect(await f.next()).toBeNull();
    expect(await f.counts()).toEqual({ queued: 2, inFlight: 1, done: 2 });
    // A held report at the same depth changes nothing; a queued URL is never held again.
    expect(await f.add([entry('/c', 2, 'http://site.test/x', held)])).toEqual([]);
    const fromT = entry('/b', 1, t.entry.url);
    expect(await f.complete(t, pageRecord(t.entry), [fromT])).toEqual([fromT]);
    expect(await f.add([entry('/b', 0, null, held)])).toEqual([]);
    // Nothing of depth 0 is left: /b (depth 1, queued) could report /c at depth 2 only, not nearer.
    expect(await f.decideHeld()).toEqual([entry('/c', 2, a.entry.url)]);
    expect(await peer.decideHeld()).toEqual([]);
    const b = (await f.next())!;
    expect(b.entry).toEqual(fromT);
    // Decided: later reports, nearer or not, change nothing.
    expect(await f.complete(b, pageRecord(b.entry), [entry('/c', 2, b.entry.url, held)])).toEqual([]);
    expect(await f.add([entry('/c', 1, b.entry.url)])).toEqual([]);
    expect(await f.next()).toBeNull();
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 5 });
    const recs = await allRecords(f);
    expect(recs.map((r) => `${new URL(r.url).pathname}:${r.skipped ?? r.depth}`)).toEqual(kept(['/:0', '/a:1', '/t:0', '/c:budget', '/b:1']));
    if (s.keepsRecords) expect(recs[3]).toMatchObject({ depth: 2, referrer: 'http://site.test/a', status: null, error: null });
    if (s.states) expect(await s.states(f)).toMatchObject({ '/b': 'done', '/c': 'skipped' });
  });

  test('held URLs: markDone takes them, drain leaves them, decideHeld decides them once nothing is queued or leased', async () => {
    const f = await s.open();
    const held = { held: true } as const;
    await f.add([entry('/', 0), entry('/one', 1), entry('/h', 3, null, held), entry('/h2', 3, null, held)]);
    expect(await f.markDone('http://site.test/h')).toBe(true);
    expect(await f.counts()).toEqual({ queued: 3, inFlight: 0, done: 1 });
    // /one (depth 1) could report /h2 at depth 2, within a limit of 2: it waits.
    expect(await f.decideHeld()).toEqual([]);
    expect((await f.drain()).map((e) => new URL(e.url).pathname)).toEqual(['/', '/one']);
    expect(await f.counts()).toEqual({ queued: 1, inFlight: 0, done: 3 });
    expect(await f.decideHeld()).toEqual([entry('/h2', 3)]);
    expect(await f.decideHeld()).toEqual([]);
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 4 });
    expect((await allRecords(f)).map((r) => `${new URL(r.url).pathname}:${r.skipped}`)).toEqual(kept(['/:budget', '/one:budget', '/h2:budget']));
  });

  withRecords('reopenBudget queues held URLs up to maxDepth again (they have no record to take back)', async () => {
    const f = await s.open();
    await f.add([entry('/', 0), entry('/h', 2, 'http://site.test/x', { held: true })]);
    expect(await f.reopenBudget!({ maxPages: 10, maxDepth: 1 })).toEqual([]);
    expect(await drainLeases(f)).toEqual(['/']);
    expect(await f.reopenBudget!({ maxPages: 10, maxDepth: 2 })).toEqual([]);
    const h = (await f.next())!;
    expect(h.entry).toEqual(entry('/h', 2, 'http://site.test/x'));
    await f.complete(h, pageRecord(h.entry), []);
    expect(await f.decideHeld()).toEqual([]);
    expect((await allRecords(f)).map((r) => `${new URL(r.url).pathname}:${r.skipped ?? 'page'}`)).toEqual(['/:page', '/h:page']);
  });

  test('hands out distinct tokens, and counts queued, in-flight and done', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0), entry('/b', 0), entry('/c', 0)]);
    const l1 = (await f.next())!;
    const l2 = (await f.next())!;
    expect(l1.token).not.toBe(l2.token);
    expect(l1.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(l1.entry).toEqual(entry('/a', 0));
    expect(await f.counts()).toEqual({ queued: 1, inFlight: 2, done: 0 });
    await f.complete(l1, pageRecord(l1.entry, 404), []);
    expect(await f.counts()).toEqual({ queued: 1, inFlight: 1, done: 1 });
  });

  test('markDone marks unknown and queued URLs done, but not leased or done ones', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0), entry('/b', 0)]);
    const a = (await f.next())!;
    expect(await f.markDone('http://site.test/b')).toBe(true);
    expect(await f.markDone('http://site.test/redirected')).toBe(true);
    expect(await f.markDone('http://site.test/a')).toBe(false);
    expect(await f.markDone('http://site.test/b')).toBe(false);
    expect(await f.add([entry('/redirected', 1)])).toEqual([]);
    expect(await f.next()).toBeNull();
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 1, done: 2 });
    await f.complete(a, pageRecord(a.entry), []);
    expect((await allRecords(f)).map((r) => r.url)).toEqual(kept(['http://site.test/a']));
  });

  test('drain takes the queued URLs out (breadth-first), stores them as skipped and leaves leases alone', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0), entry('/c', 1), entry('/b', 0)]);
    const a = (await f.next())!;
    const drained = await f.drain();
    expect(drained).toEqual([entry('/b', 0), entry('/c', 1)]);
    expect(await f.next()).toBeNull();
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 1, done: 2 });
    await f.complete(a, pageRecord(a.entry), []);
    const recs = await allRecords(f);
    expect(recs.map((r) => [r.url, r.skipped])).toEqual(
      kept([
        ['http://site.test/b', 'budget'],
        ['http://site.test/c', 'budget'],
        ['http://site.test/a', null],
      ]),
    );
    expect(await f.drain()).toEqual([]);
  });

  test('a released lease cannot complete or renew, and its failed complete writes nothing', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0)]);
    const lease = (await f.next())!;
    await f.renew(lease);
    await f.release(lease);
    await expect(f.complete(lease, pageRecord(lease.entry), [entry('/x', 1, lease.entry.url)])).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(f.renew(lease)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(f.release(lease)).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await allRecords(f)).toEqual([]);
    expect(await f.counts()).toEqual({ queued: 1, inFlight: 0, done: 0 });
    // The link of the refused completion was not added.
    expect(await f.add([entry('/x', 1)])).toHaveLength(1);
    // The released URL is claimed again, with a new token that works.
    const again = (await f.next())!;
    expect(again.entry.url).toBe(lease.entry.url);
    expect(again.token).not.toBe(lease.token);
    await f.complete(again, pageRecord(again.entry), []);
    expect((await allRecords(f)).map((r) => r.url)).toEqual(kept(['http://site.test/a']));
  });

  withExpiry('an expired lease cannot complete or renew; another claimer takes it over, before deeper URLs, with a new token', async () => {
    // 1.5 s: "still held" must not meet a busy machine's pause between two store calls.
    const f = await s.open({ leaseTtlMs: 1_500 });
    const other = await s.peer(f, { leaseTtlMs: 1_500 });
    await f.add([entry('/a', 0)]);
    const lease = (await f.next())!;
    expect(await other.next()).toBeNull(); // still held
    await f.add([entry('/b', 1)]);
    await until(async () => (await f.counts()).inFlight === 0);
    expect(await f.counts()).toEqual({ queued: 2, inFlight: 0, done: 0 });
    await expect(f.renew(lease)).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(f.complete(lease, pageRecord(lease.entry), [entry('/x', 1)])).rejects.toThrow(/no longer held/);
    expect(await allRecords(f)).toEqual([]);
    // The expired lease is claimed again before the deeper queued URL.
    const again = (await other.next())!;
    expect(again.entry.url).toBe('http://site.test/a');
    expect(again.token).not.toBe(lease.token);
    // Taken over from an expired lease: marked recovered (spacrawl_leases_recovered_total); a claim from the queue is not.
    expect(again.recovered).toBe(true);
    expect(lease.recovered).toBeUndefined();
    await expect(f.complete(lease, pageRecord(lease.entry), [])).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(f.renew(lease)).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await other.complete(again, pageRecord(again.entry), [entry('/x', 1)])).toEqual([entry('/x', 1)]);
    expect((await allRecords(f)).map((r) => r.url)).toEqual(['http://site.test/a']);
  });

  test('renew keeps a lease alive past its first expiry; a released lease is claimable again at once', async () => {
    // Generous margins: with a TTL of 2 s and a renewal every 600 ms, a timer late by more than
    // 1.4 s would be needed to fail this (800 ms and 300 ms failed once with two CPU hogs running).
    const f = await s.open({ leaseTtlMs: 2_000 });
    const other = await s.peer(f, { leaseTtlMs: 2_000 });
    await f.add([entry('/1', 1), entry('/2', 1)]);
    const l1 = (await f.next())!;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 600));
      await f.renew(l1);
    }
    // 2.4 s after the claim: alive only thanks to the renewals, so the other claimer gets /2.
    const l2 = (await other.next())!;
    expect(l2.entry.url).toBe('http://site.test/2');
    expect(await other.next()).toBeNull();
    await f.complete(l1, pageRecord(l1.entry), []);
    await other.release(l2);
    expect((await f.next())!.entry.url).toBe('http://site.test/2');
  });

  test('complete stores the record, the state and the discovered links in one step and returns only fresh links', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0), entry('/b', 0)]);
    const a = (await f.next())!;
    const found = [
      entry('/b', 1, a.entry.url), // known already
      entry('/c', 1, a.entry.url),
      entry('/private', 1, a.entry.url, { skip: 'robots', skipError: { code: 'robots-unavailable', message: 'robots.txt timed out' } }),
      entry('/c', 1, a.entry.url), // twice on the page
      entry('/a', 1, a.entry.url), // itself
    ];
    const aRec = pageRecord(a.entry);
    expect(await f.complete(a, aRec, found)).toEqual([found[1], found[2]]);
    const b = (await f.next())!;
    const broken = pageRecord(b.entry, 500);
    expect(await f.complete(b, broken, [entry('/c', 1, b.entry.url)])).toEqual([]);
    const c = (await f.next())!;
    expect(c.entry).toEqual(found[1]);
    const timedOut = blankRecord(c.entry.url, c.entry.requestedUrl, 1, c.entry.referrer);
    timedOut.error = { code: 'timeout', message: 'navigation timed out' };
    await f.complete(c, timedOut, []);
    expect((await allRecords(f)).map((r) => new URL(r.url).pathname)).toEqual(kept(['/a', '/private', '/b', '/c']));
    if (s.states) expect(await s.states(f)).toEqual({ '/a': 'done', '/b': 'failed', '/c': 'failed', '/private': 'skipped' });
  });

  test('records() yields page records and skipped-URL records in the order they were stored', async () => {
    const f = await s.open();
    const robotsErr = { code: 'robots-unavailable', message: 'robots.txt answered 500' };
    await f.add([entry('/', 0), entry('/trap', 0, null, { skip: 'trap' })]);
    const home = (await f.next())!;
    const homeRec = pageRecord(home.entry);
    homeRec.links = ['http://site.test/a'];
    await f.complete(home, homeRec, [
      entry('/a', 1, home.entry.url),
      entry('/blocked', 1, home.entry.url, { skip: 'robots', skipError: robotsErr }),
      entry('/deep', 9, home.entry.url, { skip: 'budget' }),
      entry('/?utm=1', 1, home.entry.url, { skip: 'duplicate', duplicateOf: 'http://site.test/' }),
    ]);
    const a = (await f.next())!;
    const aRec = pageRecord(a.entry, 404);
    await f.complete(a, aRec, []);

    const recs = await allRecords(f);
    expect(recs.map((r) => [new URL(r.url).pathname, r.skipped])).toEqual(
      kept([
        ['/trap', 'trap'],
        ['/', null],
        ['/blocked', 'robots'],
        ['/deep', 'budget'],
        ['/', 'duplicate'],
        ['/a', null],
      ]),
    );
    if (!s.keepsRecords) return;
    expect(recs[1]).toEqual(homeRec);
    expect(recs[5]).toEqual(aRec);
    expect(recs[4]).toMatchObject({ url: 'http://site.test/?utm=1', duplicateOf: 'http://site.test/', error: null });
    expect(recs[3]!.duplicateOf).toBeNull();
    const blocked = blankRecord('http://site.test/blocked', 'http://site.test/blocked', 1, 'http://site.test/');
    blocked.skipped = 'robots';
    blocked.error = robotsErr;
    expect(recs[2]).toEqual(blocked);
    expect(recs[0]).toMatchObject({ depth: 0, referrer: null, error: null, skipped: 'trap', status: null });
  });

  withRecords('reopenBudget: URLs skipped for the budget (drained, or added too deep) are queued again in their old order, their skip records taken back; nothing while the pages visited reach maxPages', async () => {
    const f = await s.open();
    await f.add([entry('/a', 0), entry('/b', 1), entry('/c', 1), entry('/deep', 3, null, { skip: 'budget' })]);
    const a = (await f.next())!;
    await f.complete(a, pageRecord(a.entry), []);
    expect((await f.drain()).map((e) => new URL(e.url).pathname)).toEqual(['/b', '/c']);
    const paths = async (): Promise<string[]> => (await allRecords(f)).map((r) => `${new URL(r.url).pathname}:${r.skipped ?? 'page'}`);
    expect(await paths()).toEqual(['/deep:budget', '/a:page', '/b:budget', '/c:budget']);

    expect(await f.reopenBudget!({ maxPages: 1, maxDepth: Infinity })).toEqual([]); // one page visited already
    expect(await paths()).toEqual(['/deep:budget', '/a:page', '/b:budget', '/c:budget']);
    expect(await f.reopenBudget!({ maxPages: 10, maxDepth: 2 })).toEqual([entry('/b', 1).url, entry('/c', 1).url]);
    expect(await paths()).toEqual(['/deep:budget', '/a:page']);
    expect(await f.counts()).toEqual({ queued: 2, inFlight: 0, done: 2 });
    expect(await drainLeases(f)).toEqual(['/b', '/c']);
    // A deeper budget reopens the URL added too deep.
    expect(await f.reopenBudget!({ maxPages: 10, maxDepth: Infinity })).toEqual([entry('/deep', 3).url]);
    expect(await drainLeases(f)).toEqual(['/deep']);
    expect(await paths()).toEqual(['/a:page', '/b:page', '/c:page', '/deep:page']);
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 4 });
  });

  withRecords('records() pages through many records and allows other calls between items', async () => {
    const f = await s.open();
    const n = 600;
    await f.add(Array.from({ length: n }, (_, i) => entry(`/p${i}`, 1)));
    for (let l = await f.next(); l; l = await f.next()) await f.complete(l, pageRecord(l.entry), []);
    let i = 0;
    for await (const r of f.records()) {
      expect(r.url).toBe(`http://site.test/p${i++}`);
      if (i % 100 === 0) await f.add([entry(`/extra${i}`, 2)]);
    }
    expect(i).toBe(n);
  });
});
