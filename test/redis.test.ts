import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagedPath, startPagedSite } from '../fixtures/sites/paged.js';
import type { FixtureServer } from '../fixtures/server.js';
import { StaleLeaseError, type FrontierEntry } from '../src/store/frontier.js';
import { NoSuchCrawlError, RedisFrontier, RedisStoreError } from '../src/store/redis/frontier.js';
import { CrawlMismatchError } from '../src/store/policy.js';
import { blankRecord, type PageRecord } from '../src/report/record.js';
import { redisServerPath, startRedis, type RedisServer } from '../fixtures/redis-server.js';

// Distributed crawls: the shared frontier against a real redis-server (started here on a free
// loopback port with AOF persistence), and several real CLI worker processes crawling one site.

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'run.js');
const available = redisServerPath() !== null;
// In CI (CI or SPACRAWL_REQUIRE_REDIS set) a missing redis-server is a failure (beforeAll throws);
// elsewhere the file is skipped, loudly.
const skip = !available && !process.env.CI && !process.env.SPACRAWL_REQUIRE_REDIS;
if (skip) process.stderr.write('\n*** test/redis.test.ts SKIPPED: redis-server is not installed (apt-get install redis-server) ***\n\n');

let redis: RedisServer;
let tmp: string;
let crawlSeq = 0;
const newCrawlId = (): string => `t${process.pid}-${++crawlSeq}`;

beforeAll(async () => {
  if (skip) return;
  spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
  redis = await startRedis();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-redis-test-'));
});
afterAll(async () => {
  await redis?.dispose();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const entry = (url: string, depth: number, referrer: string | null = null): FrontierEntry => ({ url, requestedUrl: url, depth, referrer });
const key = { seeds: ['http://a.test/'], scope: 'host' };
const record = (url: string, depth = 0): PageRecord => ({ ...blankRecord(url, url, depth, null), status: 200 });

describe.skipIf(skip)('RedisFrontier against a real Redis', () => {
  const open = (crawlId: string, extra: Partial<Parameters<typeof RedisFrontier.open>[1]> = {}): Promise<RedisFrontier> =>
    RedisFrontier.open(redis.url, { crawlId, crawlKey: key, heartbeat: false, ...extra });

  it('deduplicates across workers and claims breadth-first; one URL goes to exactly one of two racing workers', async () => {
    const id = newCrawlId();
    const [a, b] = [await open(id), await open(id)];
    expect((await a.add([entry('http://a.test/x', 2), entry('http://a.test/', 0)])).map((e) => e.url)).toEqual(['http://a.test/x', 'http://a.test/']);
    expect(await b.add([entry('http://a.test/x', 1), entry('http://a.test/y', 1)])).toEqual([entry('http://a.test/y', 1)]);
    const claims = await Promise.all([a.next(), b.next(), a.next(), b.next(), a.next()]);
    const urls = claims.filter((c) => c !== null).map((c) => c.entry.url);
    expect(urls.sort()).toEqual(['http://a.test/', 'http://a.test/x', 'http://a.test/y']);
    expect(claims.filter((c) => c === null)).toHaveLength(2);
    expect(await a.counts()).toEqual({ queued: 0, inFlight: 3, done: 0 });
    await Promise.all([a.close(), b.close()]);
  });

  it('hands an expired lease to another worker and fences the old token out', async () => {
    const id = newCrawlId();
    const [a, b] = [await open(id, { leaseTtlMs: 300 }), await open(id, { leaseTtlMs: 300 })];
    await a.add([entry('http://a.test/', 0)]);
    const la = (await a.next())!;
    expect(await b.next()).toBeNull(); // still held
    await new Promise((r) => setTimeout(r, 400));
    const lb = (await b.next())!;
    expect(lb.entry.url).toBe('http://a.test/');
    expect(lb.token).not.toBe(la.token);
    await expect(a.complete(la, record('http://a.test/'), [])).rejects.toBeInstanceOf(StaleLeaseError);
    await expect(a.renew(la)).rejects.toBeInstanceOf(StaleLeaseError);
    expect((await b.complete(lb, record('http://a.test/'), [entry('http://a.test/n', 1)])).map((e) => e.url)).toEqual(['http://a.test/n']);
    const recs: PageRecord[] = [];
    for await (const r of a.records()) recs.push(r);
    expect(recs.map((r) => r.url)).toEqual(['http://a.test/']);
    await Promise.all([a.close(), b.close()]);
  });

  it('a renewed lease is not taken over; a released one goes back to the front of its depth', async () => {
    const id = newCrawlId();
    const [a, b] = [await open(id, { leaseTtlMs: 300 }), await open(id, { leaseTtlMs: 300 })];
    await a.add([entry('http://a.test/1', 1), entry('http://a.test/2', 1)]);
    const l1 = (await a.next())!;
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 150));
      await a.renew(l1);
    }
    const l2 = (await b.next())!;
    expect(l2.entry.url).toBe('http://a.test/2'); // not the renewed one
    expect(await b.next()).toBeNull();
    await a.release(l1);
    expect((await b.next())!.entry.url).toBe('http://a.test/1');
    await Promise.all([a.close(), b.close()]);
  });

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

  it('refuses a worker of another crawl, and a worker without seeds for an unknown crawl', async () => {
    const id = newCrawlId();
    const a = await open(id);
    await expect(open(id, { crawlKey: { seeds: ['http://b.test/'], scope: 'host' } })).rejects.toBeInstanceOf(CrawlMismatchError);
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
    const waits = (await Promise.all(ws.map((w) => w.politeness.reserve('h:80', 500)))).sort((x, y) => x - y);
    expect(waits[0]).toBe(0);
    expect(waits[1]).toBeGreaterThanOrEqual(480);
    expect(waits[1]).toBeLessThanOrEqual(500);
    expect(waits[2]).toBeGreaterThanOrEqual(980);
    expect(waits[2]).toBeLessThanOrEqual(1000);
    // A request sent late pushes the next one back: the gap counts from the request, crawl-wide.
    expect(await ws[1]!.politeness.recheck('h2:80', 500)).toBe(0);
    await ws[0]!.politeness.sent('h2:80');
    const still = await ws[1]!.politeness.recheck('h2:80', 500);
    expect(still).toBeGreaterThanOrEqual(480);
    expect(still).toBeLessThanOrEqual(500);
    // A pause (Retry-After) set by one worker holds every worker's next slot; a shorter one later does not shorten it.
    await ws[2]!.politeness.pause('h3:80', 800);
    await ws[0]!.politeness.pause('h3:80', 100);
    const paused = await ws[1]!.politeness.reserve('h3:80', 0);
    expect(paused).toBeGreaterThanOrEqual(780);
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
});

// --- worker processes ---------------------------------------------------------------------------

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
}

function worker(args: string[]): ChildProcess {
  // Own process group, so a kill reaches its Chromium too (as the death of a machine would).
  return spawn(process.execPath, [BIN, 'crawl', '--no-soft404', '--click', 'off', '-q', ...args], { cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<Exit> {
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (d) => (stderr += d));
  child.stdout?.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr, stdout })));
}

function cli(args: string[]): Exit {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: tmp, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

function readJsonl(file: string): PageRecord[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as PageRecord);
}

/** Every record of a shared crawl, through `spacrawl export --redis`. */
function exported(crawlId: string): PageRecord[] {
  const file = path.join(tmp, `${crawlId}-export.jsonl`);
  const r = cli(['export', '--redis', redis.url, '--crawl-id', crawlId, '--report', `jsonl:${file}`]);
  expect(r.code, r.stderr).toBe(0);
  return readJsonl(file);
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pathOf = (u: string): string => new URL(u).pathname;
const paths = (n: number): string[] => Array.from({ length: n }, (_, i) => pagedPath(i)).sort();

describe.skipIf(skip)('spacrawl crawl --redis: several workers, one crawl', () => {
  let site: FixtureServer;
  beforeAll(async () => {
    site = await startPagedSite(100, 20);
  });
  afterAll(async () => {
    await site?.close();
  });

  it('three workers visit every page of a 100-page site exactly once, with one record each; status and export see the whole crawl', async () => {
    site.reset();
    const id = newCrawlId();
    const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '2'];
    const first = worker([`${site.origin}/`, ...common, '--out', `${id}-1.jsonl`]);
    const firstDone = exited(first);
    await until(() => site.documents().length >= 1, 30_000); // the first worker seeded the crawl
    const others = [2, 3].map((n) => worker([...common, '--out', `${id}-${n}.jsonl`]));
    const runs = await Promise.all([firstDone, ...others.map(exited)]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(runs[1]!.stderr).toContain(`joining crawl ${id}: ${site.origin}/`);

    const docs = site.documents().map((d) => d.path);
    expect(docs.slice().sort()).toEqual(paths(100)); // each page requested once, none twice
    const perWorker = [1, 2, 3].map((n) => readJsonl(path.join(tmp, `${id}-${n}.jsonl`)));
    for (const recs of perWorker) expect(recs.length).toBeGreaterThan(0); // all three did work
    expect(perWorker.flat().map((r) => pathOf(r.url)).sort()).toEqual(paths(100));
    const all = exported(id);
    expect(all.map((r) => pathOf(r.url)).sort()).toEqual(paths(100));
    expect(all.every((r) => r.status === 200 && r.title?.startsWith('Node '))).toBe(true);

    const st = cli(['status', '--redis', redis.url, '--crawl-id', id, '--json']);
    expect(st.code, st.stderr).toBe(0);
    const status = JSON.parse(st.stdout) as Record<string, number>;
    expect([status.queued, status.inFlight, status.done, status.failed, status.skipped, status.claimed, status.records]).toEqual([0, 0, 100, 0, 0, 100, 100]);
    expect(status.pagesPerSecond).toBeCloseTo(100 / 60, 1);
  });

  it('when one worker is killed mid-crawl, the others take over its leases and finish every page', async () => {
    site.reset();
    const id = newCrawlId();
    const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '2', '--lease-ttl', '2'];
    const first = worker([`${site.origin}/`, ...common]);
    const firstDone = exited(first);
    await until(() => site.documents().length >= 1, 30_000);
    const victim = worker(common);
    const victimDone = exited(victim);
    const third = worker(common);
    const thirdDone = exited(third);
    await until(() => site.documents().length >= 30, 60_000);
    process.kill(-victim.pid!, 'SIGKILL');
    const [r1, rv, r3] = await Promise.all([firstDone, victimDone, thirdDone]);
    expect(rv.code).toBeNull(); // killed
    expect(r1.code, r1.stderr).toBe(0);
    expect(r3.code, r3.stderr).toBe(0);
    const all = exported(id);
    expect(all.map((r) => pathOf(r.url)).sort()).toEqual(paths(100)); // every page, one record each
    const docs = site.documents().map((d) => d.path);
    expect([...new Set(docs)].sort()).toEqual(paths(100));
    // At least once: only the pages the killed worker had in flight (2 at most) are visited twice.
    expect(docs.length - 100).toBeLessThanOrEqual(2);
  });

  it('--max-pages 50 across three workers: 50 navigations in all, the rest recorded as budget-skipped', async () => {
    site.reset();
    const id = newCrawlId();
    const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '2', '--max-pages', '50'];
    const runs = await Promise.all([worker([`${site.origin}/`, ...common]), worker([`${site.origin}/`, ...common]), worker([`${site.origin}/`, ...common])].map(exited));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    expect(site.documents()).toHaveLength(50);
    const all = exported(id);
    const visited = all.filter((r) => r.skipped === null);
    expect(visited).toHaveLength(50);
    expect(new Set(all.map((r) => r.url)).size).toBe(all.length); // one record per URL
    expect(all.filter((r) => r.skipped !== null).every((r) => r.skipped === 'budget')).toBe(true);
    expect(all.length).toBeGreaterThan(50);
  });
});

describe.skipIf(skip)('spacrawl crawl --redis: politeness and failures', () => {
  it('--rate 2 with three workers: the host sees page requests at least 450 ms apart', async () => {
    const site = await startPagedSite(8, 0);
    try {
      const id = newCrawlId();
      const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '2', '--rate', '2'];
      const runs = await Promise.all(
        [1, 2, 3].map((n) => worker([`${site.origin}/`, ...common, '--out', `${id}-${n}.jsonl`])).map(exited),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      const docs = site.documents();
      expect(docs.map((d) => d.path).sort()).toEqual(paths(8));
      const workersThatNavigated = [1, 2, 3].filter((n) => readJsonl(path.join(tmp, `${id}-${n}.jsonl`)).length > 0);
      expect(workersThatNavigated.length).toBeGreaterThanOrEqual(2); // the spacing is crawl-wide, not per worker
      const gaps = docs.slice(1).map((d, i) => d.at - docs[i]!.at);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(450);
    } finally {
      await site.close();
    }
  });

  it('Redis stopped mid-crawl: exit 3 within the retry time; after a restart the same command resumes and finishes', async () => {
    const site = await startPagedSite(60, 100);
    try {
      const id = newCrawlId();
      const args = [`${site.origin}/`, '--redis', redis.url, '--crawl-id', id, '--concurrency', '2', '--lease-ttl', '2', '--redis-timeout', '3'];
      const child = worker([...args, '--out', `${id}-a.jsonl`]);
      const done = exited(child);
      await until(() => site.documents().length >= 10, 60_000);
      await redis.stop();
      const stoppedAt = Date.now();
      const r = await done;
      expect(r.code, r.stderr).toBe(3);
      expect(Date.now() - stoppedAt).toBeLessThan(3_000 + 10_000);
      expect(r.stderr).toMatch(/could not reconnect within 3 s|cannot use Redis/);
      const before = readJsonl(path.join(tmp, `${id}-a.jsonl`));
      expect(before.length).toBeGreaterThan(0);
      expect(before.length).toBeLessThan(60);

      await redis.start();
      const again = await exited(worker([...args, '--out', `${id}-b.jsonl`]));
      expect(again.code, again.stderr).toBe(0);
      const all = exported(id);
      expect(all.map((x) => pathOf(x.url)).sort()).toEqual(paths(60)); // nothing recorded before the stop was lost
      // The first run's records are all in Redis: the resumed run did not record them again.
      const after = readJsonl(path.join(tmp, `${id}-b.jsonl`)).map((x) => x.url);
      for (const x of before) expect(after).not.toContain(x.url);
    } finally {
      await site.close();
    }
  });

  it('bad usage exits 2 with one line, before touching Redis', () => {
    const cases: [string[], RegExp][] = [
      [['crawl', 'http://127.0.0.1:9/', '--redis', redis.url], /--redis needs --crawl-id/],
      [['crawl', 'http://127.0.0.1:9/', '--crawl-id', 'x'], /--crawl-id needs --redis/],
      [['crawl', 'http://127.0.0.1:9/', '--redis', 'http://127.0.0.1:6379', '--crawl-id', 'x'], /redis:\/\/ or rediss:\/\//],
      [['crawl', 'http://127.0.0.1:9/', '--redis', redis.url, '--crawl-id', 'a b'], /--crawl-id must be/],
      [['crawl', 'http://127.0.0.1:9/', '--redis', redis.url, '--crawl-id', 'x', '--state', 's.db'], /cannot be used together/],
      [['crawl', '--redis', redis.url, '--crawl-id', `missing-${process.pid}`], /no crawl named missing-/],
      [['crawl'], /give at least one seed URL/],
      [['status', '--redis', redis.url, '--crawl-id', `missing-${process.pid}`], /no crawl named missing-/],
    ];
    for (const [args, msg] of cases) {
      const r = cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
  });
});
