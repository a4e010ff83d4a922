import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { assertBuilt } from './helpers/cli.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPagedSite, pagedPath } from '../fixtures/sites/paged.js';
import type { FixtureServer } from '../fixtures/server.js';

// `spacrawl status --state FILE`: the progress of a durable crawl, read from its SQLite file,
// also while the crawl runs in another process. Real CLI processes, a real site, real files.

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin', 'run.js');
const SIZE = 40;
const ALL = Array.from({ length: SIZE }, (_, i) => pagedPath(i)).sort();
let site: FixtureServer;
let tmp: string;

beforeAll(async () => {
  assertBuilt(); // spawned runs execute dist/: built beforehand, never here
  site = await startPagedSite(SIZE, 400); // slow enough that a crawl outlives a status run started mid-crawl
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-status-'));
});
afterAll(async () => {
  await site.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function crawl(args: string[]): ChildProcess {
  return spawn(process.execPath, [BIN, 'crawl', `${site.origin}/`, '--no-soft404', '--click', 'off', '-q', ...args], { cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

/**
 * Run the CLI and wait for it without blocking this process: the fixture server lives here, and
 * a crawl running beside must keep getting its answers (a blocking spawnSync held back a page's
 * API answer past the settle cap on a busy machine, so that page was read without its links).
 */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: tmp, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

interface Status {
  file: string;
  queued: number;
  inFlight: number;
  done: number;
  failed: number;
  skipped: number;
  skippedBy: Record<string, number>;
  visited: number;
  startedAt: string | null;
  endedAt: string | null;
  elapsedMs: number;
  running: boolean;
  endReason: string | null;
  seeds: string[];
}

async function status(db: string): Promise<Status> {
  const r = await cli(['status', '--state', db, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const lines = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

async function until(cond: () => boolean, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('spacrawl status --state', () => {
  it('reads the state file while a crawl runs in another process, without disturbing it; after the end it says why and when', async () => {
    site.reset();
    const db = path.join(tmp, 'live.db');
    const out = path.join(tmp, 'live.jsonl');
    const child = crawl(['--state', db, '--out', out, '--concurrency', '2']);
    const done = exited(child);
    await until(() => lines(out).length >= 8);

    const live = await status(db);
    expect(child.exitCode).toBeNull(); // read while the crawl was still running
    expect(live.running).toBe(true);
    expect(live.endReason).toBeNull();
    expect(live.endedAt).toBeNull();
    expect(live.seeds).toEqual([`${site.origin}/`]);
    expect(live.done).toBeGreaterThanOrEqual(8); // committed before written to --out
    expect(live.done).toBeLessThan(SIZE);
    expect(live.failed).toBe(0);
    expect(live.visited).toBe(live.done);
    expect(live.inFlight).toBeGreaterThanOrEqual(0);
    expect(live.inFlight).toBeLessThanOrEqual(2);
    expect(live.queued + live.inFlight).toBeGreaterThan(0);
    expect(Date.parse(live.startedAt!)).toBeGreaterThan(0);
    expect(live.elapsedMs).toBeGreaterThan(0);
    // The human form, also while it runs.
    const human = await cli(['status', '--state', db]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`state file ${db}:`);
    expect(human.stdout).toContain(`seeds: ${site.origin}/`);

    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    // The crawl was not disturbed: every page once.
    expect(site.documents().map((d) => d.path).sort()).toEqual(ALL);
    const end = await status(db);
    expect(end).toMatchObject({ running: false, endReason: 'done', queued: 0, inFlight: 0, done: SIZE, failed: 0, skipped: 0, visited: SIZE, startedAt: live.startedAt });
    expect(Date.parse(end.endedAt!)).toBeGreaterThanOrEqual(Date.parse(end.startedAt!));
    expect(end.elapsedMs).toBeGreaterThan(0);
    // The reader changed nothing: the crawl resumes as finished.
    expect((await cli(['status', '--state', db, '--json'])).stdout).toBe((await cli(['status', '--state', db, '--json'])).stdout);
  });

  it('a crawl killed with SIGKILL: not running, interrupted, its leases counted as queued', async () => {
    site.reset();
    const db = path.join(tmp, 'killed.db');
    const out = path.join(tmp, 'killed.jsonl');
    const child = crawl(['--state', db, '--out', out, '--concurrency', '2']);
    const done = exited(child);
    await until(() => lines(out).length >= 5);
    process.kill(-child.pid!, 'SIGKILL');
    await done;
    const s = await status(db);
    expect(s.running).toBe(false);
    expect(s.endReason).toBe('interrupted');
    expect(s.endedAt).toBeNull();
    expect(s.inFlight).toBe(0);
    expect(s.queued).toBeGreaterThan(0);
    expect(s.done).toBe(s.visited);
    expect(s.done + s.queued).toBeLessThanOrEqual(SIZE);
  });

  it('a crawl that spent its --max-pages: max-pages, with the budget skips by reason', async () => {
    site.reset();
    const db = path.join(tmp, 'budget.db');
    const r = await exited(crawl(['--state', db, '--max-pages', '5', '--concurrency', '1']));
    expect(r.code, r.stderr).toBe(0);
    const s = await status(db);
    expect(s).toMatchObject({ running: false, endReason: 'max-pages', done: 5, visited: 5, queued: 0, inFlight: 0 });
    expect(s.skipped).toBeGreaterThan(0);
    expect(s.skippedBy).toEqual({ budget: s.skipped });
    const human = await cli(['status', '--state', db]);
    expect(human.stdout).toContain(`skipped (budget ${s.skipped})`);
    expect(human.stdout).toContain('ended (max-pages) at ');
    // Reading a file no crawl uses leaves no WAL files of its own beside it.
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('budget.db')).sort()).toEqual(['budget.db', 'budget.db-lock']);
  });

  it('bad input: one line, exit 2, and the file is left as it was', async () => {
    const missing = path.join(tmp, 'missing.db');
    const text = path.join(tmp, 'text.db');
    fs.writeFileSync(text, 'not a database at all, '.repeat(100));
    const foreign = path.join(tmp, 'foreign.db');
    const f = new Database(foreign);
    f.exec('CREATE TABLE songs (title TEXT)');
    f.close();
    const newer = path.join(tmp, 'newer.db');
    const n = new Database(newer);
    n.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '99')");
    n.close();
    const cases: [string[], RegExp][] = [
      [['--state', missing], /missing\.db does not exist/],
      [['--state', text], /text\.db is not a SQLite database/],
      [['--state', foreign], /foreign\.db is a SQLite database but not a spacrawl state file/],
      [['--state', newer], /newer\.db was written by a newer spacrawl \(state schema 99/],
      [['--state', tmp], /is a folder, not a file/],
      [[], /exactly one|--state|--redis/],
    ];
    for (const [args, message] of cases) {
      const before = args[1] && fs.existsSync(args[1]) && fs.statSync(args[1]).isFile() ? fs.readFileSync(args[1]) : null;
      const r = await cli(['status', ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      if (before) expect(fs.readFileSync(args[1]!).equals(before)).toBe(true);
    }
    expect(fs.existsSync(missing)).toBe(false);
  });
});
