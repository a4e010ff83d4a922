import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assertBuilt, runInProcess } from './helpers/cli.js';
import { gate } from './helpers/gate.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pagedPath, startPagedSite } from '../fixtures/sites/paged.js';
import type { FixtureServer } from '../fixtures/server.js';
import type { PageRecord } from '../src/model/record.js';
import { redisServerPath, startRedis, type RedisServer } from '../fixtures/redis-server.js';
import { Redis } from 'ioredis';

// Distributed crawls: several real CLI worker processes crawling one site through a real
// redis-server (started here on a free loopback port with AOF persistence). The Redis store
// itself is tested in store/redis.test.ts and store/frontier-contract.test.ts. `export`, `status`
// and the usage errors (no crawling, no process needed) run in-process (runInProcess).
//
// The cases share no crawl (each has its own crawl id and site; the one that stops Redis has its
// own redis-server), so they run concurrently, two at a time.

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
/** A case may wait for its turn (two run at once), so its time limit counts the wait as well. */
const CASE_MS = 300_000;
const twoAtOnce = gate(2);
const newCrawlId = (): string => `t${process.pid}-${++crawlSeq}`;

beforeAll(async () => {
  if (skip) return;
  assertBuilt(); // spawned runs execute dist/: built beforehand (npm test does), never here
  redis = await startRedis();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-redis-test-'));
});
afterAll(async () => {
  await redis?.dispose();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
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

/** `spacrawl ARGS…` in this process: for commands that crawl nothing (export, status, refusals). */
async function cli(args: string[]): Promise<Exit> {
  const r = await runInProcess(args);
  return { code: r.code, stderr: r.stderr, stdout: r.stdout };
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
async function exported(crawlId: string, url = redis.url): Promise<PageRecord[]> {
  const file = path.join(tmp, `${crawlId}-export.jsonl`);
  const r = await cli(['export', '--redis', url, '--crawl-id', crawlId, '--report', `jsonl:${file}`]);
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
/** Pages of the site the several-worker tests crawl: enough for three workers to share and for a kill after 30 to leave work (60 % of the 100 pages these tests crawled before). */
const SIZE = 60;

describe.skipIf(skip).concurrent('spacrawl crawl --redis: several workers, one crawl', () => {
  const sites: FixtureServer[] = [];
  /** A site of {@link SIZE} pages for one case (its request log is that case's alone). */
  const newSite = async (): Promise<FixtureServer> => {
    const site = await startPagedSite(SIZE, 20);
    sites.push(site);
    return site;
  };
  afterAll(async () => {
    await Promise.all(sites.map((s) => s.close()));
  });

  it('three workers visit every page of a 60-page site exactly once, with one record each; status and export see the whole crawl', () =>
    twoAtOnce(async () => {
      // Pages 7 and deeper are held until six of them are in flight at once: with two tabs a worker,
      // only three workers can do that, so each has work however late the two joiners start (on a
      // busy machine the first worker alone used to finish all 60 pages before the others were up).
      // A fallback well under the 30 s navigation timeout lets the assertions below say what failed.
      const held = new Set<number>();
      let release = (): void => {};
      const released = new Promise<void>((ok) => {
        release = ok;
        setTimeout(ok, 25_000).unref();
      });
      const site = await startPagedSite(SIZE, 20, (i) => {
        if (i < 7) return undefined;
        held.add(i);
        if (held.size >= 6) release();
        return released;
      });
      sites.push(site);
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
      expect(docs.slice().sort()).toEqual(paths(SIZE)); // each page requested once, none twice
      const perWorker = [1, 2, 3].map((n) => readJsonl(path.join(tmp, `${id}-${n}.jsonl`)));
      for (const recs of perWorker) expect(recs.length).toBeGreaterThan(0); // all three did work
      expect(perWorker.flat().map((r) => pathOf(r.url)).sort()).toEqual(paths(SIZE));
      const all = await exported(id);
      expect(all.map((r) => pathOf(r.url)).sort()).toEqual(paths(SIZE));
      expect(all.every((r) => r.status === 200 && r.title?.startsWith('Node '))).toBe(true);

      const st = await cli(['status', '--redis', redis.url, '--crawl-id', id, '--json']);
      expect(st.code, st.stderr).toBe(0);
      const status = JSON.parse(st.stdout) as Record<string, number>;
      expect([status.queued, status.inFlight, status.done, status.failed, status.skipped, status.claimed, status.records]).toEqual([0, 0, SIZE, 0, 0, SIZE, SIZE]);
      // Pages done in the last 60 s, per second: all of them unless the crawl and this check took
      // more than a minute (a busy machine), never more.
      expect(status.pagesPerSecond).toBeGreaterThan(0);
      expect(status.pagesPerSecond).toBeLessThanOrEqual(SIZE / 60 + 0.01);
    }), CASE_MS);

  it('when one worker is killed mid-crawl, the others take over its leases and finish every page', () =>
    twoAtOnce(async () => {
      const site = await newSite();
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
      const all = await exported(id);
      expect(all.map((r) => pathOf(r.url)).sort()).toEqual(paths(SIZE)); // every page, one record each
      const docs = site.documents().map((d) => d.path);
      expect([...new Set(docs)].sort()).toEqual(paths(SIZE));
      // At least once: only the pages the killed worker had in flight (2 at most) are visited twice.
      expect(docs.length - SIZE).toBeLessThanOrEqual(2);
    }), CASE_MS);

  it('--max-pages 50 across three workers: 50 navigations in all, the rest recorded as budget-skipped', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const id = newCrawlId();
      const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '2', '--max-pages', '50'];
      const runs = await Promise.all([worker([`${site.origin}/`, ...common]), worker([`${site.origin}/`, ...common]), worker([`${site.origin}/`, ...common])].map(exited));
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      expect(site.documents()).toHaveLength(50);
      const all = await exported(id);
      const visited = all.filter((r) => r.skipped === null);
      expect(visited).toHaveLength(50);
      expect(new Set(all.map((r) => r.url)).size).toBe(all.length); // one record per URL
      expect(all.filter((r) => r.skipped !== null).every((r) => r.skipped === 'budget')).toBe(true);
      expect(all.length).toBeGreaterThan(50);
    }), CASE_MS);
  it('export and status give the crawl\'s time and end reason: from the first start to the last clean end, max-pages then done', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const id = newCrawlId();
      const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '4']; // one worker at a time here
      const t0 = Date.now();
      const r1 = await exited(worker([`${site.origin}/`, ...common, '--max-pages', '5']));
      const wall = Date.now() - t0;
      expect(r1.code, r1.stderr).toBe(0);
      type Summary = { endReason: string; elapsedMs: number; pages: number };
      const exportJson = async (): Promise<{ summary: Summary; stderr: string }> => {
        const r = await cli(['export', '--redis', redis.url, '--crawl-id', id, '--report', `json:${path.join(tmp, `${id}.json`)}`, '--json']);
        expect(r.code, r.stderr).toBe(0);
        return { summary: JSON.parse(r.stdout) as Summary, stderr: r.stderr };
      };
      const e1 = await exportJson();
      expect(e1.summary.endReason).toBe('max-pages');
      expect(e1.summary.pages).toBe(5);
      expect(e1.summary.elapsedMs).toBeGreaterThan(0);
      expect(e1.summary.elapsedMs).toBeLessThanOrEqual(wall);
      expect(e1.stderr).toMatch(/crawl started \d{4}-\d\d-\d\dT[^,]+, ended \d{4}-\d\d-\d\dT\S+ \(max-pages\); [\d.]+ s of crawling/);
      type St = { running: boolean; endReason: string | null; startedAt: string; endedAt: string; elapsedMs: number; seeds: string[] };
      const st = async (): Promise<St> => JSON.parse((await cli(['status', '--redis', redis.url, '--crawl-id', id, '--json'])).stdout) as St;
      const s1 = await st();
      expect(s1).toMatchObject({ running: false, endReason: 'max-pages', seeds: [`${site.origin}/`], elapsedMs: e1.summary.elapsedMs });
      expect(Date.parse(s1.endedAt) - Date.parse(s1.startedAt)).toBeGreaterThanOrEqual(e1.summary.elapsedMs - 1000);

      // A second run with no budget: the time adds up, the start stays, the end reason is the last run's.
      const r2 = await exited(worker([...common]));
      expect(r2.code, r2.stderr).toBe(0);
      const s2 = await st();
      expect(s2).toMatchObject({ running: false, endReason: 'done', startedAt: s1.startedAt });
      expect(s2.elapsedMs).toBeGreaterThan(s1.elapsedMs);
      expect(Date.parse(s2.endedAt)).toBeGreaterThan(Date.parse(s1.endedAt));
      expect((await exportJson()).summary).toMatchObject({ endReason: 'done', pages: SIZE, elapsedMs: s2.elapsedMs });
    }), CASE_MS);

  it('resuming with a larger --max-pages reopens the budget-skipped URLs: no page twice, one record per URL', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const id = newCrawlId();
      const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '4']; // one worker at a time here
      const r1 = await exited(worker([`${site.origin}/`, ...common, '--max-pages', '10']));
      expect(r1.code, r1.stderr).toBe(0);
      expect(site.documents()).toHaveLength(10);
      const budget1 = (await exported(id)).filter((r) => r.skipped === 'budget').length;
      expect(budget1).toBeGreaterThan(0);

      const r2 = await exited(worker([...common, '--max-pages', '30']));
      expect(r2.code, r2.stderr).toBe(0);
      expect(r2.stderr).toContain(`resuming: ${budget1} URLs skipped for the budget before are queued again`);
      expect(site.documents()).toHaveLength(30);
      expect(new Set(site.documents().map((d) => d.path)).size).toBe(30);
      const all2 = await exported(id);
      expect(all2.filter((r) => r.skipped === null)).toHaveLength(30);
      expect(new Set(all2.map((r) => r.url)).size).toBe(all2.length);
      // The same budget again reopens nothing: the crawl-wide claims already reach it.
      const r3 = await exited(worker([...common, '--max-pages', '30']));
      expect(r3.code, r3.stderr).toBe(0);
      expect(r3.stderr).not.toContain('queued again');
      expect(site.documents()).toHaveLength(30);

      const r4 = await exited(worker([...common]));
      expect(r4.code, r4.stderr).toBe(0);
      expect(site.documents().map((d) => d.path).sort()).toEqual(paths(SIZE)); // each page once
      const all = await exported(id);
      expect(all.map((r) => pathOf(r.url)).sort()).toEqual(paths(SIZE));
      expect(all.every((r) => r.skipped === null)).toBe(true);
      const st = JSON.parse((await cli(['status', '--redis', redis.url, '--crawl-id', id, '--json'])).stdout) as Record<string, unknown>;
      expect(st).toMatchObject({ queued: 0, inFlight: 0, done: SIZE, skipped: 0, claimed: SIZE, records: SIZE, endReason: 'done' });
    }), CASE_MS);
});

describe.skipIf(skip).concurrent('spacrawl crawl --redis: politeness and failures', () => {
  // Alone (it.sequential): the gaps are measured where the server sees the requests, so other
  // crawls' Chromiums competing for the CPU would delay one request's arrival and not the next.
  it.sequential('--rate 2 with three workers: the host sees page requests at least 400 ms apart (spaced 525)', () =>
    twoAtOnce(async () => {
      // 16 pages at 2/s: ~8 s, time for the joiners to start on a busy machine (a worker's start
      // takes 2-4 s there) and take a page each.
      const site = await startPagedSite(16, 0);
      try {
        const id = newCrawlId();
        const common = ['--redis', redis.url, '--crawl-id', id, '--concurrency', '2', '--rate', '2'];
        const runs = await Promise.all(
          [1, 2, 3].map((n) => worker([`${site.origin}/`, ...common, '--out', `${id}-${n}.jsonl`])).map(exited),
        );
        for (const r of runs) expect(r.code, r.stderr).toBe(0);
        const docs = site.documents();
        expect(docs.map((d) => d.path).sort()).toEqual(paths(16));
        const workersThatNavigated = [1, 2, 3].filter((n) => readJsonl(path.join(tmp, `${id}-${n}.jsonl`)).length > 0);
        expect(workersThatNavigated.length).toBeGreaterThanOrEqual(2); // the spacing is crawl-wide, not per worker
        const gaps = docs.slice(1).map((d, i) => d.at - docs[i]!.at).sort((a, b) => a - b);
        // 525 ms apart (the gap and its margin), each worker marking its request sent in Redis once
        // its browser reports it: a worker slowed by a busy machine marks late. The server logs in
        // this process's event loop, so on a busy machine one arrival logged late shortens the gap
        // after it (385 ms in a full run beside two CPU hogs): the median holds the spacing, the
        // shortest gap only the bound a late log can bend. Without the shared spacing, gaps of ~0 ms.
        expect(gaps[Math.floor(gaps.length / 2)]).toBeGreaterThanOrEqual(500);
        expect(gaps[0]).toBeGreaterThanOrEqual(250);
      } finally {
        await site.close();
      }
    }), CASE_MS);

  it('Redis stopped mid-crawl: exit 3 within the retry time; after a restart the same command resumes and finishes', () =>
    twoAtOnce(async () => {
      // A redis-server of its own: the other cases' crawls go on while this one is stopped.
      const own = await startRedis();
      const site = await startPagedSite(60, 100);
      try {
        const id = newCrawlId();
        const args = [`${site.origin}/`, '--redis', own.url, '--crawl-id', id, '--concurrency', '2', '--lease-ttl', '2', '--redis-timeout', '3'];
        const child = worker([...args, '--out', `${id}-a.jsonl`]);
        const done = exited(child);
        await until(() => site.documents().length >= 10, 60_000);
        await own.stop();
        const stoppedAt = Date.now();
        const r = await done;
        expect(r.code, r.stderr).toBe(3);
        expect(Date.now() - stoppedAt).toBeLessThan(3_000 + 10_000);
        expect(r.stderr).toMatch(/could not reconnect within 3 s|cannot use Redis/);
        const before = readJsonl(path.join(tmp, `${id}-a.jsonl`));
        expect(before.length).toBeGreaterThan(0);
        expect(before.length).toBeLessThan(60);

        await own.start();
        const again = await exited(worker([...args, '--out', `${id}-b.jsonl`]));
        expect(again.code, again.stderr).toBe(0);
        const all = await exported(id, own.url);
        expect(all.map((x) => pathOf(x.url)).sort()).toEqual(paths(60)); // nothing recorded before the stop was lost
        // The first run's records are all in Redis: the resumed run did not record them again.
        const after = readJsonl(path.join(tmp, `${id}-b.jsonl`)).map((x) => x.url);
        for (const x of before) expect(after).not.toContain(x.url);
      } finally {
        await site.close();
        await own.dispose();
      }
    }), CASE_MS);

  it('the crawl\'s keys vanish mid-crawl (Redis restarted without persistence): the worker exits 3 with one line, not 0 as if the crawl were done', () =>
    twoAtOnce(async () => {
      // A redis-server of its own, emptied under the worker as a restart without AOF empties it.
      const own = await startRedis();
      const site = await startPagedSite(60, 100);
      const admin = new Redis(own.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await admin.connect();
        const id = newCrawlId();
        const child = worker([`${site.origin}/`, '--redis', own.url, '--crawl-id', id, '--concurrency', '2', '--out', `${id}-gone.jsonl`]);
        const done = exited(child);
        await until(() => site.documents().length >= 5, 60_000);
        await admin.flushall();
        const r = await done;
        expect(r.code, r.stderr).toBe(3);
        const lines = r.stderr.split('\n').filter((l) => l.startsWith('spacrawl:'));
        expect(lines).toEqual([`spacrawl: crawl aborted: crawl ${id} is gone from Redis (its keys were lost: a Redis restarted without persistence, or deleted); the pages it recorded there are lost: start it again`]);
        expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
        // Nothing was written under the crawl's name but the politeness state of its host: no
        // empty crawl started in its place.
        expect((await admin.keys(`spacrawl:{${id}}:*`)).filter((k) => !k.includes(':host:'))).toEqual([]);
      } finally {
        admin.disconnect();
        await site.close();
        await own.dispose();
      }
    }), CASE_MS);

  it('bad usage exits 2 with one line, before touching Redis', () =>
    twoAtOnce(async () => {
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
        const r = await cli(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toMatch(msg);
      }
    }), CASE_MS);
});

describe.skipIf(skip).concurrent('spacrawl crawl --redis: recovered leases', () => {
  it('a worker killed while holding a lease: another worker takes it over after expiry, and its spacrawl_leases_recovered_total says 1', () =>
    twoAtOnce(async () => {
      const { startFixtureServer, html } = await import('../fixtures/server.js');
      const links = [1, 2, 3, 4, 5].map((i) => `<a href="/p/${i}">${i}</a>`).join(' ');
      const site = await startFixtureServer((_req, url) => {
        if (url.pathname === '/robots.txt') return { status: 404, body: '' };
        // The seed answers slowly, so the first worker is killed while it holds the seed's lease.
        if (url.pathname === '/') return { body: html('Home', links), delayMs: 3000 };
        const m = /^\/p\/(\d)$/.exec(url.pathname);
        if (m) return { body: html(`Page ${m[1]}`, '<p>ok</p>') };
        return { status: 404, body: html('Not found', '') };
      });
      try {
        const id = newCrawlId();
        const victim = worker([`${site.origin}/`, '--redis', redis.url, '--crawl-id', id, '--concurrency', '1', '--lease-ttl', '2']);
        const victimDone = exited(victim);
        await until(() => site.documents().some((d) => d.path === '/'), 60_000);
        process.kill(-victim.pid!, 'SIGKILL');
        expect((await victimDone).code).toBeNull();

        // The rescuer joins without seeds, with the default lease expiry (its own leases never lapse here).
        const rescuer = spawn(
          process.execPath,
          [BIN, 'crawl', '--no-soft404', '--click', 'off', '--no-progress', '--redis', redis.url, '--crawl-id', id, '--metrics', '127.0.0.1:0', '--metrics-linger', '120'],
          { cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let stderr = '';
        rescuer.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        const rescuerDone = exited(rescuer);
        await until(() => /serving the final values/.test(stderr), 90_000);
        const url = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr)![1]!;
        const text = await (await fetch(url)).text();
        const recovered = /^spacrawl_leases_recovered_total\{([^}]*)\} (\S+)$/m.exec(text);
        expect(recovered, text).not.toBeNull();
        expect(Number(recovered![2])).toBe(1);
        expect(recovered![1]).toContain(`crawl_id="${id}"`);
        process.kill(-rescuer.pid!, 'SIGINT');
        const r = await rescuerDone;
        expect(r.code, r.stderr).toBe(0);

        // The seed was requested by both workers; every URL has one record.
        expect(site.documents().filter((d) => d.path === '/')).toHaveLength(2);
        const all = await exported(id);
        expect(all.map((x) => pathOf(x.url)).sort()).toEqual(['/', '/p/1', '/p/2', '/p/3', '/p/4', '/p/5']);
        expect(all.find((x) => pathOf(x.url) === '/')?.title).toBe('Home');
      } finally {
        await site.close();
      }
    }), CASE_MS);
});
