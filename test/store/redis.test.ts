import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisServer } from '../../fixtures/redis-server.js';
import type { FrontierEntry } from '../../src/store/frontier.js';
import { CrawlMismatchError } from '../../src/store/policy.js';
import { NoSuchCrawlError, RedisFrontier, RedisStoreError, RedisTargetError } from '../../src/store/redis/frontier.js';
import { UsageError } from '../../src/model/errors.js';
import type { PageRecord } from '../../src/model/record.js';
import { pageRecord, skipRedis } from './helpers.js';

// What only the Redis store does, against a real redis-server (started here on a free loopback
// port with AOF persistence): a crawl-wide budget, joining a crawl by id, crawl-wide politeness,
// an unreachable Redis. The Frontier contract it shares with the other stores (with two workers
// where it matters) is in frontier-contract.test.ts; CLI workers are in ../redis.test.ts.

const skip = skipRedis('test/store/redis.test.ts');

let redis: RedisServer;
let crawlSeq = 0;
const newCrawlId = (): string => `s${process.pid}-${++crawlSeq}`;

beforeAll(async () => {
  if (skip) return;
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.dispose();
});

const entry = (url: string, depth: number, referrer: string | null = null): FrontierEntry => ({ url, requestedUrl: url, depth, referrer });
const key = { seeds: ['http://a.test/'], scope: 'host' };

describe.skipIf(skip)('RedisFrontier against a real Redis', () => {
  const open = (crawlId: string, extra: Partial<Parameters<typeof RedisFrontier.open>[1]> = {}): Promise<RedisFrontier> =>
    RedisFrontier.open(redis.url, { crawlId, crawlKey: key, heartbeat: false, ...extra });

  it('keeps a crawl-wide budget and drains the rest as skipped records', async () => {
    const id = newCrawlId();
    const [a, b] = [await open(id, { maxPages: 2 }), await open(id, { maxPages: 2 })];
    await a.add([0, 1, 2, 3, 4].map((i) => entry(`http://a.test/${i}`, i)));
    expect((await a.next())?.entry.url).toBe('http://a.test/0');
    expect((await b.next())?.entry.url).toBe('http://a.test/1');
    expect(await a.next()).toBeNull();
    expect(await b.next()).toBeNull();
    expect(await b.budgetSpent()).toBe(true);
    expect((await a.drain()).map((e) => e.url)).toEqual(['http://a.test/2', 'http://a.test/3', 'http://a.test/4']);
    expect(await b.drain()).toEqual([]);
    const recs: PageRecord[] = [];
    for await (const r of b.records()) recs.push(r);
    expect(recs.map((r) => [r.url, r.skipped, r.depth])).toEqual([
      ['http://a.test/2', 'budget', 2],
      ['http://a.test/3', 'budget', 3],
      ['http://a.test/4', 'budget', 4],
    ]);
    await Promise.all([a.close(), b.close()]);
  });

  it("undoes the claims of a visit that does not complete (its lease taken over after expiry, or released): a waiting URL waits again, one only the claim knew is forgotten; a completed visit's claims stay", async () => {
    const id = newCrawlId();
    const [a, b] = [await open(id, { leaseTtlMs: 300 }), await open(id, { leaseTtlMs: 300 })];
    await a.add([entry('http://a.test/', 0)]);
    const home = (await a.next())!;
    await a.complete(home, pageRecord(home.entry), [entry('http://a.test/old', 1, 'http://a.test/'), entry('http://a.test/slow', 1, 'http://a.test/'), entry('http://a.test/deep', 2, 'http://a.test/')]);
    const old = (await a.next())!;
    expect(old.entry.url).toBe('http://a.test/old');
    // /old's visit was redirected to /slow (queued) and to /gone (unknown) and claimed both; then worker a died.
    expect(await a.markDone('http://a.test/slow', old.entry.url)).toBe(true);
    expect(await a.markDone('http://a.test/gone', old.entry.url)).toBe(true);
    expect(await b.counts()).toMatchObject({ queued: 1, inFlight: 1, done: 3 });
    await new Promise((r) => setTimeout(r, 400));
    const taken = (await b.next())!;
    expect([taken.entry.url, taken.recovered]).toEqual(['http://a.test/old', true]);
    expect(await b.counts()).toMatchObject({ queued: 2, inFlight: 1, done: 1 });
    // b's visit of /old reaches /gone again and carries it; its lease is released (a stop), which undoes that claim too.
    expect(await b.markDone('http://a.test/gone', taken.entry.url)).toBe(true);
    await b.release(taken);
    expect(await b.counts()).toMatchObject({ queued: 3, inFlight: 0, done: 1 });
    const again = (await b.next())!;
    expect(again.entry.url).toBe('http://a.test/old');
    expect(await b.markDone('http://a.test/gone', again.entry.url)).toBe(true);
    await b.complete(again, pageRecord(again.entry), []);
    // Claims of a completed visit stay; a URL claimed without an owner stays.
    expect(await b.markDone('http://a.test/deep')).toBe(true);
    const order: string[] = [];
    for (let l = await b.next(); l; l = await b.next()) {
      order.push(l.entry.url);
      await b.complete(l, pageRecord(l.entry), []);
    }
    expect(order).toEqual(['http://a.test/slow']);
    expect(await b.counts()).toMatchObject({ queued: 0, inFlight: 0, done: 5 });
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a worker of another crawl, and a worker without seeds for an unknown crawl', async () => {
    const id = newCrawlId();
    const a = await open(id);
    await expect(open(id, { crawlKey: { seeds: ['http://b.test/'], scope: 'host' } })).rejects.toBeInstanceOf(CrawlMismatchError);
    await expect(open(id, { crawlKey: { seeds: ['http://b.test/'], scope: 'host' } })).rejects.toMatchObject({
      code: 'crawl-mismatch',
      where: { crawlId: id },
      fields: ['seeds'],
      message: `crawl ${id} in Redis is a different crawl: seeds differ (stored: http://a.test/; now: http://b.test/); use another --crawl-id, or --force to replace its settings`,
    });
    const joined = await open(id, { crawlKey: null });
    expect(joined.crawlKey.seeds).toEqual(['http://a.test/']);
    await expect(open(newCrawlId(), { crawlKey: null })).rejects.toBeInstanceOf(NoSuchCrawlError);
    const forced = await open(id, { crawlKey: { seeds: ['http://b.test/'], scope: 'host' }, force: true });
    expect(forced.crawlKey.seeds).toEqual(['http://b.test/']);
    await Promise.all([a.close(), joined.close(), forced.close()]);
  });

  it('spaces navigations to a host crawl-wide and caps its in-flight slots across workers', async () => {
    const id = newCrawlId();
    const ws = [await open(id), await open(id), await open(id)];
    // A wait is the slot's time minus Redis's clock at the call: calls that reach Redis later (a busy machine)
    // see a shorter wait, by at most the time the calls took. Bounds: [gap × n − took, gap × n].
    let t0 = Date.now();
    const waits = (await Promise.all(ws.map(async (w) => (await w.politeness.reserve('h:80', 500, 0)).waitMs))).sort((x, y) => x - y);
    let took = Date.now() - t0;
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThanOrEqual(500 - took);
    expect(waits[1]).toBeLessThanOrEqual(500);
    expect(waits[2]).toBeGreaterThanOrEqual(1000 - took);
    expect(waits[2]).toBeLessThanOrEqual(1000);
    // A later reservation waits while an earlier one is open (its request not sent yet: -1); a
    // request sent late pushes the next one back: the gap counts from the request, crawl-wide.
    const r0 = await ws[0]!.politeness.reserve('h2:80', 500, 10_000);
    const r1 = await ws[1]!.politeness.reserve('h2:80', 500, 10_000);
    expect(await ws[1]!.politeness.recheck('h2:80', 500, r1.reservation)).toBe(-1);
    expect(await ws[0]!.politeness.recheck('h2:80', 500, r0.reservation)).toBe(0);
    t0 = Date.now();
    await ws[0]!.politeness.sent('h2:80', r0.reservation);
    const still = await ws[1]!.politeness.recheck('h2:80', 500, r1.reservation);
    took = Date.now() - t0;
    expect(still).toBeGreaterThanOrEqual(500 - took);
    expect(still).toBeLessThanOrEqual(500);
    // One given up (its visit ended before navigating) holds no one; one left open by a worker
    // that died holds the later ones only until its deadline.
    const r2 = await ws[2]!.politeness.reserve('h2:80', 500, 10_000);
    const r3 = await ws[0]!.politeness.reserve('h2:80', 500, 10_000);
    await ws[1]!.politeness.giveUp('h2:80', r1.reservation);
    expect(await ws[2]!.politeness.recheck('h2:80', 500, r2.reservation)).toBeGreaterThanOrEqual(0);
    expect(await ws[0]!.politeness.recheck('h2:80', 500, r3.reservation)).toBe(-1);
    const r4 = await ws[1]!.politeness.reserve('h4:80', 500, 1);
    const r5 = await ws[2]!.politeness.reserve('h4:80', 500, 10_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await ws[2]!.politeness.recheck('h4:80', 500, r5.reservation)).toBeGreaterThanOrEqual(0);
    expect(r4.reservation).not.toBe('');
    // A pause (Retry-After) set by one worker holds every worker's next slot; a shorter one later does not shorten it.
    t0 = Date.now();
    await ws[2]!.politeness.pause('h3:80', 800);
    await ws[0]!.politeness.pause('h3:80', 100);
    const paused = (await ws[1]!.politeness.reserve('h3:80', 0, 0)).waitMs;
    took = Date.now() - t0;
    expect(paused).toBeGreaterThanOrEqual(800 - took);
    expect(paused).toBeLessThanOrEqual(800);
    expect(await ws[0]!.politeness.acquire('h:80', 2, 'a')).toBe(true);
    expect(await ws[1]!.politeness.acquire('h:80', 2, 'b')).toBe(true);
    expect(await ws[2]!.politeness.acquire('h:80', 2, 'c')).toBe(false);
    await ws[0]!.politeness.release('h:80', 'a');
    expect(await ws[2]!.politeness.acquire('h:80', 2, 'c')).toBe(true);
    await Promise.all(ws.map((w) => w.close()));
  });

  it('fails with RedisStoreError after the retry time when Redis cannot be reached', async () => {
    const t0 = Date.now();
    await expect(RedisFrontier.open('redis://127.0.0.1:1', { crawlId: 'x', crawlKey: key, retryMs: 1_000 })).rejects.toBeInstanceOf(RedisStoreError);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5_000);
  });

  it('refuses a URL that is not redis:// or rediss://, or a bad crawl id, before connecting (a usage error)', async () => {
    await expect(RedisFrontier.open('http://127.0.0.1:1', { crawlId: 'x', crawlKey: key })).rejects.toMatchObject({
      name: 'RedisTargetError',
      message: 'the Redis URL must be a redis:// or rediss:// URL, got "http://127.0.0.1:1"',
    });
    const bad = RedisFrontier.open(redis.url, { crawlId: 'a b', crawlKey: key });
    await expect(bad).rejects.toBeInstanceOf(RedisTargetError);
    await expect(bad).rejects.toBeInstanceOf(UsageError);
    await expect(bad).rejects.toThrow('the crawl id must be 1 to 100 letters, digits, dots, underscores or dashes, got "a b"');
  });
});
