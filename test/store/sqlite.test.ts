import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StaleLeaseError, type Lease } from '../../src/store/frontier.js';
import { CrawlMismatchError, type CrawlKey } from '../../src/store/policy.js';
import { SqliteFrontier, StateFileError, StateLockedError, StateStoreError } from '../../src/store/sqlite/frontier.js';
import { allRecords, drainLeases, entry, pageRecord } from './helpers.js';

// What only the SQLite store does: durable transactions, reopening, the crawl identity of a
// state file, exclusive use across processes (kill -9 included) and unusable state files. The
// Frontier contract it shares with the other stores is in frontier-contract.test.ts.

const ROOT = path.resolve(import.meta.dirname, '../..');
const KEY: CrawlKey = { seeds: ['http://site.test/'], scope: 'host' };
const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
/** `nobody`: file modes bind it, unlike root. */
const NOBODY = 65534;

let tmp: string;
/** The SQLite frontier transpiled to plain JS, for child processes (`node -e` cannot load TS). */
let childModule: string;
const open: SqliteFrontier[] = [];
const children: ChildProcess[] = [];

beforeAll(() => {
  // State files and the children's build live in a folder every user can reach: the read-only
  // cases open them as `nobody`, wherever the checkout is (`mktemp -d` gives a private one).
  tmp = worldReachableDir('spacrawl-sqlite-');
  childModule = transpileForChildren(path.join(tmp, 'build'));
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const f of open.splice(0)) await f.close().catch(() => {});
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A new folder (mode 755) under a temporary folder that every user can reach. */
function worldReachableDir(prefix: string): string {
  for (const base of [os.tmpdir(), '/tmp', '/var/tmp']) {
    if (!searchableByAll(base)) continue;
    const dir = fs.mkdtempSync(path.join(base, prefix));
    fs.chmodSync(dir, 0o755);
    return dir;
  }
  throw new Error(`no temporary folder every user can reach (tried ${os.tmpdir()}, /tmp, /var/tmp)`);
}

/** `true` when `dir` and every folder above it may be entered by any user. */
function searchableByAll(dir: string): boolean {
  try {
    for (let d = fs.realpathSync(dir); ; d = path.dirname(d)) {
      if ((fs.statSync(d).mode & 0o001) === 0) return false;
      if (path.dirname(d) === d) return true;
    }
  } catch {
    return false;
  }
}

/** Transpile `src/store/sqlite/frontier.ts` and the project modules it imports into `outDir`. */
function transpileForChildren(outDir: string): string {
  const todo = ['src/store/sqlite/frontier.ts'];
  const seen = new Set<string>();
  while (todo.length > 0) {
    const rel = todo.pop()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const src = fs.readFileSync(path.join(ROOT, rel), 'utf8');
    const out = ts.transpileModule(src, {
      fileName: rel,
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    const dest = path.join(outDir, rel.replace(/\.ts$/, '.js'));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, out.outputText);
    for (const m of src.matchAll(/from\s+'(\.{1,2}\/[^']+)\.js'/g)) {
      todo.push(path.posix.normalize(path.posix.join(path.posix.dirname(rel), `${m[1]!}.ts`)));
    }
  }
  fs.writeFileSync(path.join(outDir, 'package.json'), '{"type":"module"}\n');
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(outDir, 'node_modules'));
  execModeTree(outDir);
  return path.join(outDir, 'src/store/sqlite/frontier.js');
}

/** Make a tree readable by everyone (children may run as `nobody`). */
function execModeTree(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) execModeTree(p);
    else if (e.isFile()) fs.chmodSync(p, 0o644);
  }
}

let fileNo = 0;
/** A fresh state-file path in its own world-writable folder. */
function stateFile(): string {
  const dir = path.join(tmp, `s${++fileNo}`);
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o777);
  return path.join(dir, 'state.db');
}

function openF(file: string, opts: Partial<Parameters<typeof SqliteFrontier.open>[1]> = {}): SqliteFrontier {
  const f = SqliteFrontier.open(file, { crawlKey: KEY, ...opts });
  open.push(f);
  return f;
}

async function closeF(f: SqliteFrontier): Promise<void> {
  await f.close();
  open.splice(open.indexOf(f), 1);
}

/** Rows of `urls` read through a separate plain connection (the store must be closed or its process gone). */
function rawRows(file: string): { url: string; state: string; token: string | null; lease_expires: number | null }[] {
  const db = new Database(file, { readonly: true, timeout: 0 });
  try {
    return db
      .prepare<[], { url: string; state: string; token: string | null; lease_expires: number | null }>(
        'SELECT url, state, token, lease_expires FROM urls ORDER BY seq',
      )
      .all();
  } finally {
    db.close();
  }
}

interface ChildResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run `node --input-type=module -e code` and collect its output. */
function runChild(code: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(c);
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.on('error', reject);
    c.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/**
 * A child that opens `file` with the SQLite frontier and prints the outcome as JSON. With `uid`
 * it loads its modules and SQLite's native addon first, then drops to that user and group (no
 * supplementary groups) before opening: the modules may sit where that user cannot go (a
 * checkout in a private folder), the state file may not.
 */
function childOpenCode(file: string, uid?: number): string {
  const drop =
    uid === undefined
      ? ''
      : `
    const Database = createRequire(${JSON.stringify(childModule)})('better-sqlite3');
    new Database(':memory:').close();
    process.setgroups([]);
    process.setgid(${uid});
    process.setuid(${uid});`;
  return `
    import { createRequire } from 'node:module';
    import { SqliteFrontier } from ${JSON.stringify(childModule)};${drop}
    try {
      const f = SqliteFrontier.open(${JSON.stringify(file)}, { crawlKey: ${JSON.stringify(KEY)} });
      await f.close();
      console.log(JSON.stringify({ ok: true }));
    } catch (e) {
      console.log(JSON.stringify({ ok: false, name: e.name, code: e.code, message: e.message }));
    }`;
}

interface OpenOutcome {
  ok: boolean;
  name?: string;
  code?: string;
  message?: string;
}

function parseOutcome(r: ChildResult): OpenOutcome {
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as OpenOutcome;
  } catch {
    throw new Error(`child printed no outcome (status ${r.status}); stderr: ${r.stderr}`);
  }
}

describe('SqliteFrontier: queue', () => {
  it('commits a claim before it returns: a copy of the files taken right after next() shows it leased', async () => {
    const file = stateFile();
    const f = openF(file);
    await f.add([entry('/a', 0), entry('/b', 0)]);
    const lease = (await f.next())!;
    // A crash right now leaves exactly what is on disk: copy the database and its WAL.
    const copy = path.join(path.dirname(file), 'copy.db');
    fs.copyFileSync(file, copy);
    if (fs.existsSync(`${file}-wal`)) fs.copyFileSync(`${file}-wal`, `${copy}-wal`);
    const rows = rawRows(copy);
    expect(rows.find((r) => r.url === lease.entry.url)).toMatchObject({ state: 'leased', token: lease.token });
    expect(rows.find((r) => r.url === lease.entry.url)!.lease_expires).toBeGreaterThan(Date.now());
    expect(rows.find((r) => r.url === 'http://site.test/b')?.state).toBe('queued');
    // A reader on the live file sees the committed claim (WAL), while a second owner is shut
    // out by the owner lock, even in-process.
    expect(rawRows(file).find((r) => r.url === lease.entry.url)).toMatchObject({ state: 'leased', token: lease.token });
    expect(() => openF(file)).toThrow(StateLockedError);
  });

  it('reopenBudget queues the budget-skipped URLs again up to maxDepth, only while visits are below maxPages; visited counts visits only', async () => {
    const f = openF(stateFile());
    // /a is visited; /b, /c (depth 1) and /d (depth 2) are drained as budget; /r is a robots skip.
    await f.add([entry('/a', 0), entry('/b', 1), entry('/c', 1), entry('/d', 2), entry('/r', 1, null, { skip: 'robots' })]);
    const a = (await f.next())!;
    await f.complete(a, pageRecord(a.entry), []);
    expect((await f.drain()).map((e) => new URL(e.url).pathname)).toEqual(['/b', '/c', '/d']);
    expect(await f.visited()).toBe(1);
    expect(await f.reopenBudget({ maxPages: 1, maxDepth: Infinity })).toEqual([]);
    expect(await f.reopenBudget({ maxPages: 10, maxDepth: 1 })).toEqual(['http://site.test/b', 'http://site.test/c']);
    expect(await drainLeases(f)).toEqual(['/b', '/c']);
    expect(await f.visited()).toBe(3);
    const recs = await allRecords(f);
    expect(recs.map((r) => [new URL(r.url).pathname, r.skipped])).toEqual([
      ['/r', 'robots'],
      ['/a', null],
      ['/d', 'budget'],
      ['/b', null],
      ['/c', null],
    ]);
    expect(await f.reopenBudget({ maxPages: 10, maxDepth: Infinity })).toEqual(['http://site.test/d']);
    expect(await f.counts()).toEqual({ queued: 1, inFlight: 0, done: 4 });
  });
});

describe('SqliteFrontier: schema', () => {
  it('a state file of schema 1 is brought up to schema 2 when opened: its URLs, states, order and records are kept, and URLs can be held', async () => {
    const file = stateFile();
    let f = openF(file);
    await f.add([entry('/a', 0), entry('/b', 1), entry('/r', 1, null, { skip: 'robots' })]);
    const a = (await f.next())!;
    await f.complete(a, pageRecord(a.entry), [entry('/c', 1, a.entry.url)]);
    await closeF(f);
    // Turn it into the file spacrawl wrote before schema 2: `urls.state` could not be 'held'.
    const db = new Database(file);
    db.exec(`
      CREATE TABLE urls_v1 (
        url TEXT PRIMARY KEY, requested_url TEXT NOT NULL, depth INTEGER, referrer TEXT,
        state TEXT NOT NULL CHECK (state IN ('queued','leased','done','failed','skipped')),
        skip_reason TEXT, skip_error TEXT CHECK (skip_error IS NULL OR json_valid(skip_error)), duplicate_of TEXT,
        token TEXT, lease_expires INTEGER, seq INTEGER NOT NULL, CHECK (depth IS NOT NULL OR state = 'done'));
      INSERT INTO urls_v1 SELECT url, requested_url, depth, referrer, state, skip_reason, skip_error, duplicate_of, token, lease_expires, seq FROM urls;
      DROP TABLE urls;
      ALTER TABLE urls_v1 RENAME TO urls;
      CREATE INDEX urls_claim ON urls (state, depth, seq);
      UPDATE meta SET value = '1' WHERE key = 'schema';`);
    expect(() => db.prepare("UPDATE urls SET state = 'held' WHERE url = 'http://site.test/b'").run()).toThrow(/CHECK constraint/);
    db.close();

    f = openF(file);
    const check = new Database(file, { readonly: true });
    try {
      expect(check.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get()).toBe('2');
      expect(check.prepare("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'index' AND name = 'urls_claim'").pluck().get()).toBe(1);
    } finally {
      check.close();
    }
    expect(await f.counts()).toEqual({ queued: 2, inFlight: 0, done: 2 });
    expect(await f.add([entry('/h', 2, 'http://site.test/b', { held: true })])).toHaveLength(1);
    expect(await drainLeases(f)).toEqual(['/b', '/c']);
    expect(await f.decideHeld()).toEqual([entry('/h', 2, 'http://site.test/b')]);
    expect((await allRecords(f)).map((r) => `${new URL(r.url).pathname}:${r.skipped ?? 'page'}`)).toEqual(['/r:robots', '/a:page', '/b:page', '/c:page', '/h:budget']);
  });
});

describe('SqliteFrontier: leases and fencing', () => {
  it('a database error inside complete writes nothing and surfaces as StateStoreError', async () => {
    const f = openF(stateFile());
    await f.add([entry('/a', 0)]);
    const a = (await f.next())!;
    const bad = { ...entry('/bad', 1, a.entry.url), requestedUrl: null as unknown as string }; // violates NOT NULL
    await expect(f.complete(a, pageRecord(a.entry), [entry('/ok', 1, a.entry.url), bad])).rejects.toMatchObject({
      name: 'StateStoreError',
      code: 'state-store',
      sqliteCode: 'SQLITE_CONSTRAINT_NOTNULL',
    });
    expect(await allRecords(f)).toEqual([]);
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 1, done: 0 });
    // The lease still holds: the retry succeeds and the first link was not half-added.
    expect(await f.complete(a, pageRecord(a.entry), [entry('/ok', 1, a.entry.url)])).toHaveLength(1);
  });
});

describe('SqliteFrontier: records', () => {
  it('a record stored by an older spacrawl (without today\'s fields) is read back with their defaults', async () => {
    const file = stateFile();
    const f = openF(file);
    await f.add([entry('/', 0)]);
    const home = (await f.next())!;
    const rec = pageRecord(home.entry);
    await f.complete(home, rec, []);
    await f.close();
    // Take the field out of the stored JSON, as a state file of an earlier version holds it.
    const db = new Database(file);
    const row = db.prepare('SELECT rowid AS id, json FROM records WHERE json IS NOT NULL').get() as { id: number; json: string };
    const old = JSON.parse(row.json) as Record<string, unknown>;
    delete old.redirect;
    db.prepare('UPDATE records SET json = ? WHERE rowid = ?').run(JSON.stringify(old), row.id);
    db.close();
    const again = openF(file);
    const recs = await allRecords(again);
    expect(recs).toEqual([rec]);
    expect(recs[0]!.redirect).toBe(false);
  });


});

describe('SqliteFrontier: persistence and crawl identity', () => {
  it('a URL claimed by a visit that never completed (the process died) is unclaimed on reopening: queued again if it was, forgotten if only the claim knew it', async () => {
    const file = stateFile();
    let f = openF(file);
    await f.add([entry('/', 0)]);
    const home = (await f.next())!;
    await f.complete(home, pageRecord(home.entry), [entry('/old', 1, home.entry.url), entry('/slow', 1, home.entry.url)]);
    const old = (await f.next())!;
    expect(old.entry.url).toBe('http://site.test/old');
    // /old's visit was redirected to /slow (queued) and to /gone (unknown), claimed both, then the process died.
    expect(await f.markDone('http://site.test/slow', old.entry.url)).toBe(true);
    expect(await f.markDone('http://site.test/gone', old.entry.url)).toBe(true);
    // A claim whose visit completed stays.
    await f.add([entry('/kept-by', 1, home.entry.url)]);
    await closeF(f);
    f = openF(file);
    expect(await f.counts()).toEqual({ queued: 3, inFlight: 0, done: 1 });
    expect(await drainLeases(f)).toEqual(['/old', '/slow', '/kept-by']);
    expect(await f.markDone('http://site.test/gone', 'http://site.test/old')).toBe(true);
    await closeF(f);
    f = openF(file);
    const done = (await f.next())!;
    expect(done).toBeNull();
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 5 });
  });

  it('reopening after close keeps done and queued URLs and the records; leases go back to the queue', async () => {
    const file = stateFile();
    let f = openF(file);
    await f.add([entry('/a', 0), entry('/b', 0), entry('/c', 0), entry('/s', 0, null, { skip: 'trap' })]);
    const a = (await f.next())!;
    await f.complete(a, pageRecord(a.entry), [entry('/d', 1, a.entry.url)]);
    const b = (await f.next())!;
    expect(b.entry.url).toBe('http://site.test/b');
    await closeF(f); // b was in flight: back to the queue

    f = openF(file);
    expect(await f.counts()).toEqual({ queued: 3, inFlight: 0, done: 2 });
    expect(await f.add([entry('/a', 0), entry('/d', 1)])).toEqual([]);
    expect((await allRecords(f)).map((r) => new URL(r.url).pathname)).toEqual(['/s', '/a']);
    expect(await drainLeases(f)).toEqual(['/b', '/c', '/d']);
    await closeF(f);

    f = openF(file);
    expect(await f.counts()).toEqual({ queued: 0, inFlight: 0, done: 5 });
    expect((await allRecords(f)).map((r) => new URL(r.url).pathname)).toEqual(['/s', '/a', '/b', '/c', '/d']);
    // New URLs keep their first-come order after the reopen.
    await f.add([entry('/e', 2), entry('/f', 2)]);
    expect(await drainLeases(f)).toEqual(['/e', '/f']);
  });

  it('refuses another crawl (seeds or scope) unless forced; seed order does not matter', async () => {
    const file = stateFile();
    await closeF(openF(file, { crawlKey: { seeds: ['http://a.test/', 'http://b.test/'], scope: 'host', include: ['/docs/*'] } }));
    await closeF(openF(file, { crawlKey: { seeds: ['http://b.test/', 'http://a.test/', 'http://a.test/'], scope: 'host', include: ['/docs/*'] } }));

    let err: unknown;
    try {
      openF(file, { crawlKey: { seeds: ['http://c.test/'], scope: 'domain', include: ['/docs/*'] } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CrawlMismatchError);
    const m = err as CrawlMismatchError;
    expect(m.code).toBe('crawl-mismatch');
    expect(m.fields).toEqual(['seeds', 'scope']);
    expect(m.where).toEqual({ file });
    expect(m.message).toContain('http://c.test/');
    expect(m.message).toContain('--force');
    expect(m.message).toContain(file);
    expect(m.message).not.toContain('\n');

    expect(() => openF(file, { crawlKey: { seeds: ['http://a.test/', 'http://b.test/'], scope: 'host' } })).toThrow(/include differs/);

    // --force: opens, and the new key becomes the stored one.
    const other: CrawlKey = { seeds: ['http://c.test/'], scope: 'domain' };
    await closeF(openF(file, { crawlKey: other, force: true }));
    await closeF(openF(file, { crawlKey: other }));
    expect(() => openF(file, { crawlKey: { seeds: ['http://a.test/', 'http://b.test/'], scope: 'host' } })).toThrow(CrawlMismatchError);
  });

  it('wraps database errors after open in StateStoreError', async () => {
    const f = openF(stateFile());
    await f.add([entry('/a', 0)]);
    await closeF(f);
    for (const p of [f.next(), f.add([entry('/b', 0)]), f.counts(), f.markDone('http://site.test/a'), f.drain()]) {
      await expect(p).rejects.toMatchObject({ name: 'StateStoreError', code: 'state-store' });
    }
    await expect(allRecords(f)).rejects.toBeInstanceOf(StateStoreError);
    await f.close(); // a second close does nothing
  });
});

describe('SqliteFrontier: exclusive use across processes', () => {
  it('refuses a second process while the first holds the file, and lets it in after close', async () => {
    const file = stateFile();
    const f = openF(file);
    await f.add([entry('/a', 0)]);

    const refused = parseOutcome(await runChild(childOpenCode(file)));
    expect(refused).toEqual({
      ok: false,
      name: 'StateLockedError',
      code: 'state-locked',
      message: `${file} is in use by another spacrawl process`,
    });
    // A second store in the same process is refused too.
    expect(() => openF(file)).toThrow(StateLockedError);

    await closeF(f);
    expect(parseOutcome(await runChild(childOpenCode(file)))).toEqual({ ok: true });
  });

  it('a process killed with SIGKILL while holding leases: its claims were committed, the next open releases them at once', async () => {
    const file = stateFile();
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
        import { SqliteFrontier } from ${JSON.stringify(childModule)};
        const f = SqliteFrontier.open(${JSON.stringify(file)}, { crawlKey: ${JSON.stringify(KEY)}, leaseTtlMs: 3600000 });
        const e = (p, depth) => ({ url: 'http://site.test' + p, requestedUrl: 'http://site.test' + p, depth, referrer: null });
        await f.add([e('/a', 0), e('/b', 0), e('/c', 1)]);
        const l1 = await f.next();
        const l2 = await f.next();
        console.log('READY ' + JSON.stringify([l1.token, l2.token]));
        setInterval(() => {}, 1000); // "visiting" forever
        `,
      ],
      { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(holder);
    let stderr = '';
    holder.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const tokens = await new Promise<string[]>((resolve, reject) => {
      let out = '';
      holder.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /READY (.*)\n/.exec(out);
        if (m) resolve(JSON.parse(m[1]!) as string[]);
      });
      holder.on('exit', (code) => reject(new Error(`holder exited (${code}): ${stderr}`)));
    });

    // While it lives, this process is refused, whatever the lease expiry.
    expect(() => openF(file)).toThrow(StateLockedError);
    // Readers are not refused: they see the committed claims while the holder lives.
    expect(rawRows(file).filter((r) => r.state === 'leased').map((r) => r.token).sort()).toEqual([...tokens].sort());

    const exited = new Promise((r) => holder.on('exit', r));
    holder.kill('SIGKILL');
    await exited;

    // The claims were committed before the "visit": the file shows both URLs leased.
    const rows = rawRows(file);
    expect(rows.map((r) => [new URL(r.url).pathname, r.state, r.token])).toEqual([
      ['/a', 'leased', tokens[0]],
      ['/b', 'leased', tokens[1]],
      ['/c', 'queued', null],
    ]);
    expect(rows[0]!.lease_expires).toBeGreaterThan(Date.now() + 3_000_000);

    // The next owner puts them back at once (no waiting for the hour-long expiry).
    const f = openF(file);
    expect(await f.counts()).toEqual({ queued: 3, inFlight: 0, done: 0 });
    const stale: Lease = { entry: entry('/a', 0), token: tokens[0]! };
    await expect(f.renew(stale)).rejects.toBeInstanceOf(StaleLeaseError);
    expect(await drainLeases(f)).toEqual(['/a', '/b', '/c']);
  });
});

describe('SqliteFrontier: unusable state files', () => {
  function openError(file: string): unknown {
    try {
      openF(file);
    } catch (e) {
      return e;
    }
    throw new Error('open did not fail');
  }

  function expectBadState(err: unknown, file: string, problem: RegExp): void {
    expect(err).toBeInstanceOf(StateFileError);
    const e = err as StateFileError;
    expect(e.code).toBe('bad-state');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(problem);
    expect(e.message).not.toContain('\n');
  }

  it('a file that is not a database is refused and left untouched', () => {
    const file = stateFile();
    const text = 'url,status\nhttp://site.test/,200\n'.repeat(50);
    fs.writeFileSync(file, text);
    expectBadState(openError(file), file, /is not a SQLite database/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
  });

  it('a corrupt database is refused', async () => {
    const file = stateFile();
    const f = openF(file);
    await f.add(Array.from({ length: 3000 }, (_, i) => entry(`/page/${i}/${'x'.repeat(40)}`, 1)));
    await closeF(f);
    const fd = fs.openSync(file, 'r+');
    const size = fs.fstatSync(fd).size;
    expect(size).toBeGreaterThan(20 * 4096);
    for (let page = 3; page * 4096 < size; page += 3) fs.writeSync(fd, Buffer.alloc(512, 0xa5), 0, 512, page * 4096 + 100);
    fs.closeSync(fd);
    expectBadState(openError(file), file, /corrupt/);
  });

  it('a folder, a missing folder, another SQLite database and a newer schema are refused', async () => {
    const dir = path.dirname(stateFile());
    expectBadState(openError(dir), dir, /is a folder/);
    const missing = path.join(dir, 'nope', 'state.db');
    expectBadState(openError(missing), missing, /folder does not exist/);

    const foreign = stateFile();
    const db = new Database(foreign);
    db.exec('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES (\'x\')');
    db.close();
    const foreignBytes = fs.readFileSync(foreign);
    expectBadState(openError(foreign), foreign, /not a spacrawl state file/);
    expect(fs.readFileSync(foreign).equals(foreignBytes)).toBe(true); // not even switched to WAL

    const newer = stateFile();
    await closeF(openF(newer));
    const db2 = new Database(newer);
    db2.prepare("UPDATE meta SET value = '99' WHERE key = 'schema'").run();
    db2.close();
    expectBadState(openError(newer), newer, /newer spacrawl/);
  });

  it('an empty file is a fine new state file', async () => {
    const file = stateFile();
    fs.writeFileSync(file, '');
    const f = openF(file);
    expect(await f.add([entry('/a', 0)])).toHaveLength(1);
  });

  // Root ignores file modes, so the read-only cases run in a child process as `nobody` when
  // these tests run as root (as they do in CI containers).
  async function openAsUnprivileged(file: string): Promise<OpenOutcome> {
    return parseOutcome(await runChild(childOpenCode(file, IS_ROOT ? NOBODY : undefined)));
  }

  it('a read-only file is refused with one line', async () => {
    const file = stateFile();
    await closeF(openF(file));
    fs.chmodSync(file, 0o444);
    const before = fs.readFileSync(file);
    const out = await openAsUnprivileged(file);
    expect(out).toMatchObject({ ok: false, name: 'StateFileError', code: 'bad-state' });
    expect(out.message).toBe(`state file ${file} cannot be written (read-only file)`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('a state file in a read-only folder, or a new one there, is refused with one line', async () => {
    const file = stateFile();
    await closeF(openF(file));
    fs.chmodSync(file, 0o666);
    const dir = path.dirname(file);
    fs.chmodSync(dir, 0o555);
    try {
      const existing = await openAsUnprivileged(file);
      expect(existing).toMatchObject({ ok: false, name: 'StateFileError', code: 'bad-state' });
      expect(existing.message).toBe(`state file ${file} cannot be written (read-only folder: SQLite keeps a -wal file beside it)`);
      const fresh = path.join(dir, 'new.db');
      const created = await openAsUnprivileged(fresh);
      expect(created).toMatchObject({ ok: false, name: 'StateFileError', code: 'bad-state' });
      expect(created.message).toBe(`state file ${fresh} cannot be created (read-only folder: SQLite keeps a -wal file beside it)`);
      expect(fs.existsSync(fresh)).toBe(false);
    } finally {
      fs.chmodSync(dir, 0o777);
    }
  });
});
