import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { assertBuilt, runInProcess } from './helpers/cli.js';
import { gate } from './helpers/gate.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPagedSite, pagedId, pagedPath } from '../fixtures/sites/paged.js';
import type { FixtureServer } from '../fixtures/server.js';

// Durable crawls (--state): kill -9 at several points, Ctrl-C, resume, refusals. Every crawl
// here is the real CLI in a child process, against a real SQLite file; `export` (which crawls
// nothing) and the refusals made before a crawl starts run in-process (runInProcess).
//
// The cases share nothing (each has its own site, state file and output), so they run
// concurrently, two at a time (each crawl is a process and a Chromium of its own).

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'run.js');
// 60 pages: enough for kills early, midway and near the end with pages in flight at concurrency 4
// (10 pages after the last kill point, as 90 of 100 had), at 60 % of a 100-page crawl's cost.
const SIZE = 60;
const ALL = Array.from({ length: SIZE }, (_, i) => pagedPath(i)).sort();
/** A case may wait for its turn (two run at once), so its time limit counts the wait as well. */
const CASE_MS = 300_000;
const twoAtOnce = gate(2);
const sites: FixtureServer[] = [];
let tmp: string;

beforeAll(() => {
  assertBuilt(); // spawned runs execute dist/: built beforehand (npm test does), never here
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-resume-'));
});
afterAll(async () => {
  await Promise.all(sites.map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A paged site of {@link SIZE} pages for one case (its request log is that case's alone). */
async function newSite(): Promise<FixtureServer> {
  const site = await startPagedSite(SIZE);
  sites.push(site);
  return site;
}

/**
 * The settle cap of these crawls (ms): long, because what is tested is durability, not the settle.
 * A page read at the cap before its script rendered its links loses its whole subtree (the full
 * suite beside two CPU hogs once lost `/n/6` and the 11 pages below it at the default 5 s).
 */
const SETTLE_CAP_MS = 30_000;

function start(site: FixtureServer, args: string[]): ChildProcess {
  // Own process group, so a kill reaches Chromium too (as a crash of the whole machine would).
  return spawn(process.execPath, [BIN, 'crawl', `${site.origin}/`, '--no-soft404', '--click', 'off', '-q', '--settle-timeout', String(SETTLE_CAP_MS), ...args], { cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** For a failure message: the records of the parents of pages missing from `recs` (title, settled, links). */
function parentsOfMissing(recs: Record<string, unknown>[]): string {
  const pathOf = (r: Record<string, unknown>): string => new URL(String(r.url)).pathname;
  const have = new Set(recs.map(pathOf));
  const parents = new Set(ALL.filter((p) => !have.has(p)).map((p) => pagedPath(Math.floor(((pagedId(p) ?? 0) - 1) / 2))));
  return JSON.stringify(recs.filter((r) => parents.has(pathOf(r))).map(({ url, title, settled, links, timings }) => ({ url, title, settled, links, timings })));
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string; stdout: string }> {
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (d) => (stderr += d));
  child.stdout?.on('data', (d) => (stdout += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr, stdout })));
}

/** `spacrawl export ARGS…` in this process: it reads the state file and crawls nothing. */
async function exportRun(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const r = await runInProcess(['export', ...args]);
  return { code: r.code, stderr: r.stderr };
}

const lines = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

async function until(cond: () => boolean, what: string, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const waitForLines = (file: string, n: number): Promise<void> => until(() => lines(file).length >= n, `${file} to reach ${n} lines`);

/** Paths of page documents requested, with counts. */
function docCounts(site: FixtureServer): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of site.documents()) m.set(r.path, (m.get(r.path) ?? 0) + 1);
  return m;
}

/** URLs with a stored record, read from the state file directly (after the crawler died). */
function committed(db: string): Set<string> {
  const conn = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return new Set(conn.prepare<[], string>('SELECT url FROM records').pluck().all().map((u) => new URL(u).pathname));
  } finally {
    conn.close();
  }
}

describe.concurrent('kill -9, then resume', () => {
  for (const killAt of [3, 12, 24, 36, 50]) {
    it(`killed after ${killAt} records: the resume finishes, every page has one record, only pages in flight were fetched twice`, () =>
      twoAtOnce(async () => {
        const site = await newSite();
        const db = path.join(tmp, `kill-${killAt}.db`);
        const out = path.join(tmp, `kill-${killAt}.jsonl`);
        const first = start(site, ['--state', db, '--out', out, '--concurrency', '4']);
        const firstDone = exited(first);
        await waitForLines(out, killAt);
        process.kill(-first.pid!, 'SIGKILL');
        await firstDone;
        // Requests already on the wire when the group died may reach the server a moment later:
        // once the server has no connection left open, every one of them is in its log.
        await until(() => site.openConnections() === 0, 'the killed crawl\'s connections to close');
        const requestedBefore = new Set(docCounts(site).keys());
        const inFlight = [...requestedBefore].filter((p) => !committed(db).has(p));

        const second = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4', '--json']));
        expect(second.code).toBe(0);
        const recs = lines(out).map((l) => JSON.parse(l) as { url: string } & Record<string, unknown>);
        const perPage = new Map<string, number>();
        for (const r of recs) perPage.set(new URL(r.url).pathname, (perPage.get(new URL(r.url).pathname) ?? 0) + 1);
        expect([...perPage.keys()].sort(), `parents of the missing pages: ${parentsOfMissing(recs)}`).toEqual(ALL);
        expect([...perPage.values()].every((n) => n === 1)).toBe(true);
        const counts = docCounts(site);
        expect([...counts.keys()].sort()).toEqual(ALL);
        const twice = [...counts].filter(([, n]) => n > 1).map(([p]) => p);
        expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
        for (const p of twice) expect(inFlight).toContain(p);
        const summary = JSON.parse(second.stdout) as { pages: number; ok: number };
        expect([summary.pages, summary.ok]).toEqual([SIZE, SIZE]); // the summary covers both runs
      }), CASE_MS);
  }
});

describe.concurrent('Ctrl-C, then resume', () => {
  it('SIGINT releases in-flight pages after the grace period; the resume requests again only a page it released', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const db = path.join(tmp, 'sigint.db');
      const out = path.join(tmp, 'sigint.jsonl');
      const first = start(site, ['--state', db, '--out', out, '--concurrency', '4']);
      const firstDone = exited(first);
      await waitForLines(out, 20);
      first.kill('SIGINT');
      const r1 = await firstDone;
      expect(r1.code).toBe(130);
      // A report made from the stopped crawl says it stopped.
      const endReason = async (): Promise<string> => {
        const json = path.join(tmp, 'sigint-export.json');
        const e = await exportRun(['--state', db, '--report', `json:${json}`]);
        expect(e.code).toBe(0);
        return (JSON.parse(fs.readFileSync(json, 'utf8')) as { summary: { endReason: string } }).summary.endReason;
      };
      expect(await endReason()).toBe('interrupted');
      // A visit the grace period did not see finish (seconds on a starved machine) is released, not
      // committed: only such a page may be requested again.
      await until(() => site.openConnections() === 0, 'the stopped crawl\'s connections to close');
      const released = [...docCounts(site).keys()].filter((p) => !committed(db).has(p));
      const r2 = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4']));
      expect(r2.code).toBe(0);
      expect(await endReason()).toBe('done');
      const counts = docCounts(site);
      expect([...counts.keys()].sort()).toEqual(ALL);
      expect([...counts].filter(([p, n]) => n !== 1 && !(n === 2 && released.includes(p)))).toEqual([]);
      expect(lines(out)).toHaveLength(SIZE);
    }), CASE_MS);
});

describe.concurrent('resuming with a larger budget', () => {
  it('--max-pages 10, then 30, then none: the budget-skipped URLs are queued again, no page is requested twice, --out keeps one record per URL', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const db = path.join(tmp, 'budget.db');
      const out = path.join(tmp, 'budget.jsonl');
      type Rec = { url: string; skipped: string | null };
      const read = (): Rec[] => lines(out).map((l) => JSON.parse(l) as Rec);
      const expectOnePerUrl = (recs: Rec[]): void => expect(new Set(recs.map((r) => r.url)).size).toBe(recs.length);

      const r1 = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4', '--max-pages', '10']));
      expect(r1.code).toBe(0);
      expect(site.documents()).toHaveLength(10);
      const exported = path.join(tmp, 'budget-export.json');
      expect((await exportRun(['--state', db, '--report', `json:${exported}`])).code).toBe(0);
      expect((JSON.parse(fs.readFileSync(exported, 'utf8')) as { summary: { endReason: string } }).summary.endReason).toBe('max-pages');
      const budget1 = read().filter((r) => r.skipped === 'budget').length;
      expect(budget1).toBeGreaterThan(0);
      expectOnePerUrl(read());

      // Pages visited before count against the new budget; URLs skipped for the budget do not.
      const r2 = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4', '--max-pages', '30']));
      expect(r2.code).toBe(0);
      expect(r2.stderr).toContain(`resuming: ${budget1} URLs skipped for the budget before are queued again`);
      expect(site.documents()).toHaveLength(30);
      expect(new Set(site.documents().map((d) => d.path)).size).toBe(30);
      expect(read().filter((r) => r.skipped === null)).toHaveLength(30);
      expectOnePerUrl(read());

      const r3 = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4', '--json']));
      expect(r3.code).toBe(0);
      const counts = docCounts(site);
      expect([...counts.keys()].sort()).toEqual(ALL);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      const recs = read();
      expect(recs.map((r) => new URL(r.url).pathname).sort()).toEqual(ALL);
      expect(recs.every((r) => r.skipped === null)).toBe(true);
      const summary = JSON.parse(r3.stdout) as { pages: number; ok: number };
      expect([summary.pages, summary.ok]).toEqual([SIZE, SIZE]);

      // Nothing left to do: a fourth run requests nothing.
      const r4 = await exited(start(site, ['--state', db, '--out', out]));
      expect(r4.code).toBe(0);
      expect(site.documents()).toHaveLength(SIZE);
      expect(lines(out)).toHaveLength(SIZE);
    }), CASE_MS);
});

describe.concurrent('a resume that stopped after it reopened the budget', () => {
  it('refused after the state file reopened the budget-skipped URLs (--metrics port taken): the next resume still keeps one record per URL in --out', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const db = path.join(tmp, 'reopen-stopped.db');
      const out = path.join(tmp, 'reopen-stopped.jsonl');
      type Rec = { url: string; skipped: string | null };
      const read = (): Rec[] => lines(out).map((l) => JSON.parse(l) as Rec);
      const r1 = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4', '--max-pages', '10']));
      expect(r1.code).toBe(0);
      const budget1 = read().filter((r) => r.skipped === 'budget').length;
      expect(budget1).toBeGreaterThan(0);

      // The larger budget reopens the skipped URLs in the state file; then the run is refused
      // before it rewrote --out (as a kill -9 at that moment would leave it).
      const taken = net.createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = (taken.address() as net.AddressInfo).port;
      try {
        const r2 = await exited(start(site, ['--state', db, '--out', out, '--max-pages', '30', '--metrics', `127.0.0.1:${port}`]));
        expect(r2.code).toBe(2);
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
      expect(site.documents()).toHaveLength(10);

      const r3 = await exited(start(site, ['--state', db, '--out', out, '--concurrency', '4']));
      expect(r3.code).toBe(0);
      const recs = read();
      expect(recs.map((r) => new URL(r.url).pathname).sort()).toEqual(ALL);
      expect(recs.filter((r) => r.skipped !== null)).toEqual([]);
      const counts = docCounts(site);
      expect([...counts.keys()].sort()).toEqual(ALL);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
    }), CASE_MS);
});

describe.concurrent('refusals', () => {
  it('a second process on the same state file is refused (exit 2, one line) while the first runs', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const db = path.join(tmp, 'locked.db');
      const out = path.join(tmp, 'locked.jsonl');
      const first = start(site, ['--state', db, '--concurrency', '1', '--out', out]);
      const firstDone = exited(first);
      // The first process holds the file once it has recorded a page (whatever the machine's load).
      await waitForLines(out, 1);
      const second = await exited(start(site, ['--state', db]));
      process.kill(-first.pid!, 'SIGKILL');
      await firstDone;
      expect(second.code).toBe(2);
      expect(second.stderr.trim().split('\n')).toHaveLength(1);
      expect(second.stderr).toMatch(/in use by another spacrawl process/);
    }), CASE_MS);

  it('resuming with a different scope is refused unless --force', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const db = path.join(tmp, 'scope.db');
      const r1 = await exited(start(site, ['--state', db, '--max-pages', '3']));
      expect(r1.code).toBe(0);
      // The refusal comes before any crawling: in-process, no process or browser needed.
      const r2 = await runInProcess(['crawl', `${site.origin}/`, '--no-soft404', '--click', 'off', '-q', '--state', db, '--scope', 'domain']);
      expect(r2.code).toBe(2);
      expect(r2.stderr.trim().split('\n')).toHaveLength(1);
      expect(r2.stderr).toMatch(/different crawl.*scope.*--force/);
      const r3 = await exited(start(site, ['--state', db, '--scope', 'domain', '--force', '--max-pages', '3']));
      expect(r3.code).toBe(0);
    }), CASE_MS);

  it('a corrupt or unwritable state file is exit 2 with one line', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      // Refused before any crawling: in-process, no process or browser needed.
      const crawl = (db: string) => runInProcess(['crawl', `${site.origin}/`, '--no-soft404', '--click', 'off', '-q', '--state', db]);
      const bad = path.join(tmp, 'corrupt.db');
      fs.writeFileSync(bad, 'this is not a database, just text that is long enough to look like a header of something '.repeat(20));
      const r1 = await crawl(bad);
      expect(r1.code).toBe(2);
      expect(r1.stderr.trim().split('\n')).toHaveLength(1);
      const r2 = await crawl(path.join(tmp, 'no-such-folder', 'x.db'));
      expect(r2.code).toBe(2);
      expect(r2.stderr.trim().split('\n')).toHaveLength(1);
      expect(site.log).toHaveLength(0);
    }), CASE_MS);

  it('export writes the stored records of a crawl without crawling', () =>
    twoAtOnce(async () => {
      const site = await newSite();
      const db = path.join(tmp, 'export.db');
      const t0 = Date.now();
      const r1 = await exited(start(site, ['--state', db, '--max-pages', '5']));
      const wall = Date.now() - t0;
      expect(r1.code).toBe(0);
      const before = site.log.length;
      const jsonl = path.join(tmp, 'export.jsonl');
      const json = path.join(tmp, 'export.json');
      const r = await exportRun(['--state', db, '--report', `jsonl:${jsonl}`, '--report', `json:${json}`]);
      expect(r.code).toBe(0);
      expect(site.log.length).toBe(before);
      const recs = lines(jsonl).map((l) => JSON.parse(l) as { skipped: string | null });
      expect(recs.filter((x) => x.skipped === null)).toHaveLength(5);
      const report = JSON.parse(fs.readFileSync(json, 'utf8')) as { schemaVersion: number; summary: { pages: number; elapsedMs: number }; pages: unknown[] };
      expect(report.schemaVersion).toBe(1);
      expect(report.summary.pages).toBe(5);
      expect(report.pages).toHaveLength(recs.length);
      // The crawl's own time (open to close of the state file), not the export's; an export adds none.
      expect(report.summary.elapsedMs).toBeGreaterThan(0);
      expect(report.summary.elapsedMs).toBeLessThan(wall);
      const again = await exportRun(['--state', db, '--report', `json:${json}`]);
      expect(again.code).toBe(0);
      expect((JSON.parse(fs.readFileSync(json, 'utf8')) as { summary: { elapsedMs: number } }).summary.elapsedMs).toBe(report.summary.elapsedMs);
    }), CASE_MS);
});
