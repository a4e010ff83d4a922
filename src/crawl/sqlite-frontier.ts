/**
 * The durable {@link Frontier}: URLs, their states and the crawl's records live in one SQLite
 * file (`--state FILE`), so a crawl stopped by Ctrl-C, a crash or `kill -9` resumes where it
 * stopped.
 *
 * Model (the durable-frontier pattern): every canonical URL is one row of `urls`, in state
 * `queued`, `leased`, `done`, `failed` or `skipped`; the primary key makes deduplication
 * durable. Claiming ({@link SqliteFrontier.next}) is one atomic statement that commits before
 * the page is visited and gives the claim a fresh random token and an expiry; completion
 * ({@link SqliteFrontier.complete}) is one transaction that writes the record and the links
 * found only while the token still owns the lease (fencing). Delivery is at least once: a
 * page in flight when the process died is visited again on resume.
 *
 * A process holds the file exclusively for as long as it is open (SQLite's own
 * `locking_mode=EXCLUSIVE` lock, which the OS drops when the process dies); so whoever gets
 * the lock knows the previous owner is gone and puts every lease back in the queue at once.
 * @module
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { blankRecord, upgradeRecord, type PageRecord, type RecordError, type SkipReason } from '../model/record.js';
import type { EndReason } from '../model/summary.js';
import { StaleLeaseError, type Frontier, type FrontierCounts, type FrontierEntry, type Lease } from './frontier.js';
import { keyDiff, normalizeKey, stableStringify, type CrawlKey } from './crawl-key.js';
import { InfrastructureError, UsageError } from '../model/errors.js';

export type { CrawlKey } from './crawl-key.js';

/** Version of the state file's tables; a file with a higher version is refused. */
export const STATE_SCHEMA_VERSION = 1;


/** Options of {@link SqliteFrontier.open}. */
export interface SqliteFrontierOptions {
  /**
   * What identifies the crawl: stored on first open; a later open with a different value is
   * refused ({@link CrawlMismatchError}) unless `force`.
   */
  crawlKey: CrawlKey;
  /**
   * Open even when the stored crawl key differs; the new key replaces the stored one.
   * @default false
   */
  force?: boolean;
  /**
   * Open a stored crawl as it is (for `export`): the crawl key is neither compared nor replaced.
   * @default false
   */
  keepKey?: boolean;
  /**
   * Lease expiry (ms): a claim not completed or renewed within this time may be claimed again,
   * and its token can no longer complete or renew it.
   * @default 600000
   */
  leaseTtlMs?: number;
}

/**
 * The state file cannot be used: it is not a SQLite database, is corrupt, cannot be created
 * or written (read-only file or folder), is a SQLite database of something else, or was
 * written by a newer spacrawl. The message is one line naming the file and the problem; the
 * CLI exits 2.
 */
export class StateFileError extends UsageError {
  readonly code = 'bad-state';
  /** The state file's path as given to {@link SqliteFrontier.open}. */
  readonly file: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`state file ${file} ${problem}`, options);
    this.name = 'StateFileError';
    this.file = file;
  }
}

/** Another process (or another open store in this one) holds the state file; the CLI exits 2. */
export class StateLockedError extends UsageError {
  readonly code = 'state-locked';
  /** The state file's path as given to {@link SqliteFrontier.open}. */
  readonly file: string;
  constructor(file: string, options?: { cause?: unknown }) {
    super(`${file} is in use by another spacrawl process`, options);
    this.name = 'StateLockedError';
    this.file = file;
  }
}

/**
 * The state file belongs to a different crawl (other seeds, scope …) and `force` was not
 * given. The message says what differs and mentions `--force`; the CLI exits 2.
 */
export class CrawlMismatchError extends UsageError {
  readonly code = 'crawl-mismatch';
  /** The state file's path as given to {@link SqliteFrontier.open}. */
  readonly file: string;
  /** Names of the crawl-key fields that differ (`seeds`, `scope` …). */
  readonly fields: string[];
  constructor(file: string, fields: string[], details: string) {
    super(`state file ${file} belongs to a different crawl: ${details}; run with --force to use it anyway`);
    this.name = 'CrawlMismatchError';
    this.file = file;
    this.fields = fields;
  }
}

/**
 * A database error while the crawl runs (after a successful open): the disk filled up, the
 * file was damaged, the store was used after `close()` … It wraps the SQLite error (`cause`)
 * and must stop the crawl (the CLI exits 3); it is never turned into an empty queue.
 */
export class StateStoreError extends InfrastructureError {
  override readonly code = 'state-store';
  /** The SQLite result code (`SQLITE_FULL`, `SQLITE_CORRUPT` …), or `null` for other errors. */
  readonly sqliteCode: string | null;
  constructor(file: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`state database ${file}: ${oneLine(message)}`, { cause });
    this.name = 'StateStoreError';
    this.sqliteCode = sqliteCode(cause);
  }
}

type UrlState = 'queued' | 'leased' | 'done' | 'failed' | 'skipped';

interface EntryRow {
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
}

interface RecordRow {
  seq: number;
  url: string;
  json: string | null;
  requestedUrl: string | null;
  depth: number | null;
  referrer: string | null;
  skipReason: string | null;
  skipError: string | null;
  duplicateOf: string | null;
}

interface InsertParams {
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
  state: UrlState;
  skipReason: string | null;
  skipError: string | null;
  duplicateOf: string | null;
  seq: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS urls (
  url TEXT PRIMARY KEY,               -- canonical URL: the frontier key
  requested_url TEXT NOT NULL,        -- what goes on the wire
  depth INTEGER,                      -- NULL only for URLs marked done without being added
  referrer TEXT,
  state TEXT NOT NULL CHECK (state IN ('queued','leased','done','failed','skipped')),
  skip_reason TEXT,                   -- with state 'skipped'
  skip_error TEXT CHECK (skip_error IS NULL OR json_valid(skip_error)),
  duplicate_of TEXT,                  -- with skip_reason 'duplicate': the URL it repeats
  token TEXT,                         -- with state 'leased': the fencing token
  lease_expires INTEGER,              -- with state 'leased': ms since the epoch
  seq INTEGER NOT NULL,               -- insertion order (first-come within a depth)
  CHECK (depth IS NOT NULL OR state = 'done')
);
CREATE INDEX IF NOT EXISTS urls_claim ON urls (state, depth, seq);
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  json TEXT                           -- the PageRecord; NULL for a skipped URL (built from urls)
);
`;

/** Records read per query by {@link SqliteFrontier.records}. */
const RECORD_PAGE = 256;

/**
 * A {@link Frontier} kept in an SQLite file, for crawls that must survive Ctrl-C, crashes and
 * `kill -9`. Open it with {@link SqliteFrontier.open}; the process holds the file exclusively
 * until {@link SqliteFrontier.close}.
 *
 * Every method after `open` throws {@link StateStoreError} for a database error (and
 * `StaleLeaseError` where documented). All statements are short and synchronous; none does
 * network I/O.
 */
export class SqliteFrontier implements Frontier {
  private closed = false;
  /** When this process opened the file (ms since the epoch). */
  private readonly openedAt = Date.now();
  /** Next value of `urls.seq` (this process is the only writer). */
  private seq: number;
  private readonly stmts: ReturnType<typeof prepare>;
  private readonly addTx: (entries: readonly FrontierEntry[]) => FrontierEntry[];
  private readonly completeTx: (lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]) => FrontierEntry[];
  private readonly drainTx: (reason: SkipReason) => FrontierEntry[];
  private readonly reopenTx: (maxDepth: number) => string[];

  private constructor(
    private readonly db: Database.Database,
    /** The state file's path as given to {@link SqliteFrontier.open}. */
    readonly file: string,
    /** Lease expiry (ms). */
    readonly leaseTtlMs: number,
    /** Add this open's time to the stored crawl time at close (`false` for `export`). */
    private readonly timed: boolean,
  ) {
    this.stmts = prepare(db);
    this.seq = (this.stmts.maxSeq.get() ?? 0) + 1;

    this.addTx = db.transaction((entries: readonly FrontierEntry[]) => this.insert(entries));
    this.completeTx = db.transaction((lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]) => {
      const failed = record.error !== null || (record.status !== null && record.status >= 400);
      const info = this.stmts.finish.run({
        url: lease.entry.url,
        token: lease.token,
        now: Date.now(),
        state: failed ? 'failed' : 'done',
      });
      if (info.changes === 0) throw new StaleLeaseError(lease.entry.url);
      this.stmts.insertRecord.run({ url: lease.entry.url, json: JSON.stringify(record) });
      return this.insert(discovered);
    });
    this.drainTx = db.transaction((reason: SkipReason) => {
      const rows = this.stmts.queuedRows.all();
      const out: FrontierEntry[] = [];
      for (const r of rows) {
        this.stmts.skipQueued.run({ url: r.url, reason });
        this.stmts.insertRecord.run({ url: r.url, json: null });
        out.push(toEntry(r));
      }
      return out;
    });
    this.reopenTx = db.transaction((maxDepth: number) => {
      const urls = this.stmts.budgetSkipped.all({ maxDepth }).map((r) => r.url);
      this.stmts.dropBudgetRecords.run({ maxDepth });
      this.stmts.requeueBudget.run({ maxDepth });
      return urls;
    });
  }

  /**
   * Open (or create) a state file and take it for this process.
   *
   * Creates the file (not its folder) when missing; switches it to WAL mode with
   * `synchronous=NORMAL`; runs `PRAGMA quick_check`; takes SQLite's exclusive lock (held until
   * {@link SqliteFrontier.close} or the end of the process); stores the crawl key on first
   * open, compares it on later ones; and puts every leased URL back in the queue (their
   * owner is gone, or it would still hold the lock), so a resume after `kill -9` does not wait
   * for leases to expire.
   * @param file - path of the state file
   * @param opts - the crawl key, `force`, the lease expiry
   * @throws StateFileError when the file is not a SQLite database, is corrupt, cannot be
   * created or written, holds something else, or was written by a newer spacrawl
   * @throws StateLockedError when another process holds the file
   * @throws CrawlMismatchError when the file belongs to a different crawl and `force` is not set
   * @throws RangeError when `leaseTtlMs` is not a positive number
   */
  static open(file: string, opts: SqliteFrontierOptions): SqliteFrontier {
    const leaseTtlMs = opts.leaseTtlMs ?? 600_000;
    if (!(Number.isFinite(leaseTtlMs) && leaseTtlMs > 0)) throw new RangeError(`leaseTtlMs must be a positive number of milliseconds, got ${leaseTtlMs}`);
    const key = normalizeKey(opts.crawlKey);

    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(file);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) throw new StateFileError(file, 'is a folder, not a file');
    const dir = path.dirname(path.resolve(file));
    if (!st && !fs.existsSync(dir)) throw new StateFileError(file, 'cannot be created: its folder does not exist');
    // SQLite would fall back to read-only (or fail to lock) and report it less clearly.
    if (st && !writable(file)) throw new StateFileError(file, 'cannot be written (read-only file)');
    if (!writable(dir)) {
      throw new StateFileError(file, `cannot be ${st ? 'written' : 'created'} (read-only folder: SQLite keeps a -wal file beside it)`);
    }

    let db: Database.Database;
    try {
      db = new Database(file, { timeout: 0 });
    } catch (err) {
      throw openError(file, err);
    }
    try {
      // Exclusive mode before WAL is first used: the WAL index then lives in this process's
      // memory (no -shm file) and every lock taken is kept until close.
      db.pragma('locking_mode = EXCLUSIVE');
      // Read-only checks first, so a file that is not ours is left exactly as it was.
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new StateFileError(file, `is corrupt (quick_check: ${oneLine(String(check))})`);
      const hasMeta = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").pluck().get() === 1;
      const tables = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().get() ?? 0;
      const getMeta = (k: string): string | undefined =>
        hasMeta ? db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get(k) : undefined;
      const schema = getMeta('schema');
      if (schema === undefined && tables > 0) throw new StateFileError(file, 'is a SQLite database but not a spacrawl state file');
      if (schema !== undefined) {
        const v = Number(schema);
        if (!Number.isInteger(v) || v < 1) throw new StateFileError(file, `has an unknown state schema (${oneLine(schema)})`);
        if (v > STATE_SCHEMA_VERSION) {
          throw new StateFileError(file, `was written by a newer spacrawl (state schema ${v}; this version reads up to ${STATE_SCHEMA_VERSION})`);
        }
      }

      const mode = db.pragma('journal_mode = WAL', { simple: true });
      db.pragma('synchronous = NORMAL');
      db.transaction(() => {
        db.exec(SCHEMA);
        const setMeta = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
        const stored = hasMeta ? getMeta('crawl_key') : undefined;
        if (stored !== undefined && !opts.force && !opts.keepKey) {
          const diff = keyDiff(parseKey(file, stored), key);
          if (diff) throw new CrawlMismatchError(file, diff.fields, diff.details);
        }
        if (schema === undefined) {
          setMeta.run('schema', String(STATE_SCHEMA_VERSION));
          setMeta.run('created_at', new Date().toISOString());
        }
        if (!opts.keepKey || stored === undefined) setMeta.run('crawl_key', stableStringify(key));
        // A write on every open: proves the file is writable and takes the exclusive lock.
        setMeta.run('opened_at', new Date().toISOString());
        // Whoever held these leases is gone (we hold the lock): back to the queue at once.
        db.exec("UPDATE urls SET state = 'queued', token = NULL, lease_expires = NULL WHERE state = 'leased'");
      }).immediate();

      if (String(mode).toLowerCase() !== 'wal' && String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') {
        throw new StateFileError(file, 'cannot be switched to WAL mode (is it on a file system without locking?)');
      }
      return new SqliteFrontier(db, file, leaseTtlMs, !opts.keepKey);
    } catch (err) {
      try {
        db.close();
      } catch {
        // the original error is the one to report
      }
      throw openError(file, err);
    }
  }

  /** Run a database step; every SQLite (or other non-fencing) error becomes a StateStoreError. */
  private guard<T>(fn: () => T): T {
    try {
      if (this.closed) throw new Error('the state database is closed');
      return fn();
    } catch (err) {
      if (err instanceof StaleLeaseError || err instanceof StateStoreError) throw err;
      throw new StateStoreError(this.file, err);
    }
  }

  /** Insert entries (inside a transaction); returns the new ones in input order. */
  private insert(entries: readonly FrontierEntry[]): FrontierEntry[] {
    const fresh: FrontierEntry[] = [];
    for (const e of entries) {
      const params: InsertParams = {
        url: e.url,
        requestedUrl: e.requestedUrl,
        depth: e.depth,
        referrer: e.referrer,
        state: e.skip ? 'skipped' : 'queued',
        skipReason: e.skip ?? null,
        skipError: e.skip && e.skipError ? JSON.stringify(e.skipError) : null,
        duplicateOf: e.skip ? (e.duplicateOf ?? null) : null,
        seq: this.seq,
      };
      if (this.stmts.insertUrl.run(params).changes === 0) continue;
      this.seq++;
      if (e.skip) this.stmts.insertRecord.run({ url: e.url, json: null });
      fresh.push(e);
    }
    return fresh;
  }

  /**
   * Offer URLs in one transaction. Each canonical URL not stored before is inserted: queued,
   * or — with `skip` — stored as `skipped` with its reason and error, and given a record
   * (see {@link SqliteFrontier.records}). URLs already stored, in any state, are ignored.
   * @returns the entries that were new, in the order given (the same objects)
   * @throws StateStoreError on a database error (nothing is written)
   */
  async add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    if (entries.length === 0) return [];
    return this.guard(() => this.addTx(entries));
  }

  /**
   * Claim the next URL in one atomic statement that commits before it returns: the queued URL
   * of lowest depth, first-come within a depth — or a leased one whose lease expired — gets a
   * fresh random token and expires `leaseTtlMs` from now.
   * @returns the lease, or `null` when nothing is claimable right now (URLs may be in flight)
   * @throws StateStoreError on a database error
   */
  async next(): Promise<Lease | null> {
    return this.guard(() => {
      const now = Date.now();
      const token = randomUUID();
      const row = this.stmts.claim.get({ token, now, expires: now + this.leaseTtlMs });
      return row ? { entry: toEntry(row), token } : null;
    });
  }

  /**
   * Finish a lease in one transaction: if `lease.token` still owns the URL and the lease has
   * not expired, store `record`, mark the URL `done` (`failed` when the record has an `error`
   * or a status >= 400; both count as done) and add `discovered` as {@link SqliteFrontier.add}
   * does.
   * @returns the discovered entries that were new, in the order given
   * @throws StaleLeaseError when the token no longer owns the URL or the lease expired
   * (nothing is written)
   * @throws StateStoreError on a database error (nothing is written)
   */
  async complete(lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    return this.guard(() => this.completeTx(lease, record, discovered));
  }

  /**
   * Extend a lease: it now expires `leaseTtlMs` from now.
   * @throws StaleLeaseError when the token no longer owns the URL or the lease already expired
   * @throws StateStoreError on a database error
   */
  async renew(lease: Lease): Promise<void> {
    this.guard(() => {
      const now = Date.now();
      const info = this.stmts.renew.run({ url: lease.entry.url, token: lease.token, now, expires: now + this.leaseTtlMs });
      if (info.changes === 0) throw new StaleLeaseError(lease.entry.url);
    });
  }

  /**
   * Give a leased URL back to the queue unvisited (e.g. on cancellation); it keeps its place
   * (it is claimed again before later URLs of its depth).
   * @throws StaleLeaseError when the token no longer owns the URL
   * @throws StateStoreError on a database error
   */
  async release(lease: Lease): Promise<void> {
    this.guard(() => {
      const info = this.stmts.release.run({ url: lease.entry.url, token: lease.token });
      if (info.changes === 0) throw new StaleLeaseError(lease.entry.url);
    });
  }

  /**
   * Mark a URL reached another way (the final URL of a redirect) as done, without a record.
   * @returns `true` if the URL was unknown or only queued (it is now done), `false` if it was
   * leased (even with an expired lease), done, failed or skipped
   * @throws StateStoreError on a database error
   */
  async markDone(url: string): Promise<boolean> {
    return this.guard(() => this.stmts.markDone.run({ url, seq: this.seq++ }).changes > 0);
  }

  /**
   * Take every queued URL out of the queue in one transaction, e.g. when a budget is spent.
   * They are stored as `skipped` for `reason` and get a record each (what the crawler emits
   * for them), so export and resume see them. Leased URLs are not touched.
   * @param reason - the skip reason to store (default `budget`)
   * @returns the drained entries, breadth-first
   * @throws StateStoreError on a database error (nothing is written)
   */
  async drain(reason: SkipReason = 'budget'): Promise<FrontierEntry[]> {
    return this.guard(() => this.drainTx(reason));
  }

  /**
   * Pages navigated in every run of this crawl so far: completed visits, whatever their outcome
   * (URLs decided without a visit, such as robots.txt or budget skips, do not count). The
   * crawler starts its `--max-pages` count from it on a resume.
   * @throws StateStoreError on a database error
   */
  async visited(): Promise<number> {
    return this.guard(() => this.stmts.visited.get()?.n ?? 0);
  }

  /**
   * For a resume with a larger budget: put the URLs an earlier run skipped for its budget
   * (`skipped: "budget"`) back in the queue, in their old order, and delete their records, so
   * that raising `--max-pages` or `--max-depth` goes on where the earlier run stopped. Nothing is
   * reopened while the pages visited so far already reach `maxPages`; URLs deeper than
   * `maxDepth` stay skipped. One transaction.
   * @param budget - `maxPages`: navigations in all, earlier runs included; `maxDepth`: deepest
   *   link distance visited (`Infinity` for none)
   * @returns the canonical URLs queued again (empty when there were none)
   * @throws StateStoreError on a database error (nothing is changed)
   */
  async reopenBudget(budget: { maxPages: number; maxDepth: number }): Promise<string[]> {
    if ((await this.visited()) >= budget.maxPages) return [];
    const maxDepth = Number.isFinite(budget.maxDepth) ? budget.maxDepth : Number.MAX_SAFE_INTEGER;
    return this.guard(() => this.reopenTx(maxDepth));
  }

  /**
   * Sizes of the states: `queued` (queued, plus leased with an expired lease: claimable),
   * `inFlight` (leased, unexpired), `done` (done, failed and skipped).
   * @throws StateStoreError on a database error
   */
  async counts(): Promise<FrontierCounts> {
    return this.guard(() => {
      const row = this.stmts.counts.get({ now: Date.now() });
      return { queued: row?.queued ?? 0, inFlight: row?.inFlight ?? 0, done: row?.done ?? 0 };
    });
  }

  /**
   * Every stored record, oldest first: each completed page's record as given to
   * {@link SqliteFrontier.complete}, and for each skipped URL (added with `skip`, or drained)
   * a `blankRecord` with `skipped`, `error` and `duplicateOf` set (as the crawler emits it) —
   * in the order they were stored. Read in
   * pages of a few hundred rows, so other calls may be made between items.
   * @throws StateStoreError on a database error or an unreadable stored record
   */
  async *records(): AsyncGenerator<PageRecord, void, undefined> {
    let after = 0;
    for (;;) {
      const rows = this.guard(() => this.stmts.recordsPage.all({ after, limit: RECORD_PAGE }));
      if (rows.length === 0) return;
      for (const row of rows) {
        after = row.seq;
        yield this.guard(() => toRecord(row));
      }
      if (rows.length < RECORD_PAGE) return;
    }
  }

  /**
   * Wall time (ms) of every crawl run on this file that closed it: from open to close, summed.
   * A run that was killed (`kill -9`) adds nothing. Export reports it as the crawl's elapsed time.
   * @throws StateStoreError on a database error
   */
  crawlTimeMs(): number {
    return this.guard(() => Number(this.stmts.getMeta.get('crawl_ms') ?? 0));
  }

  /**
   * Keep why this run ended (meta `end_reason`); the last run's reason is the stored crawl's.
   * @throws StateStoreError on a database error
   */
  async recordEnd(reason: EndReason): Promise<void> {
    this.guard(() => this.stmts.setMeta.run('end_reason', reason));
  }

  /**
   * Why the stored crawl stopped, for `export`: the last run's reason, except that URLs still
   * queued (a killed run records none) mean `interrupted`.
   * @throws StateStoreError on a database error
   */
  async endReason(): Promise<EndReason> {
    const stored = this.guard(() => this.stmts.getMeta.get('end_reason')) as EndReason | undefined;
    const { queued } = await this.counts();
    if (queued > 0 && (stored === undefined || stored === 'done')) return 'interrupted';
    return stored ?? 'done';
  }

  /**
   * Put every lease back in the queue (this process holds them all) and close the database,
   * which drops the lock; a crawling open adds its time to the stored crawl time. Calling it again
   * does nothing.
   * @throws StateStoreError on a database error (the database is closed anyway)
   */
  async close(): Promise<void> {
    if (this.closed) return;
    let failure: unknown = null;
    try {
      this.stmts.releaseAll.run();
      if (this.timed) this.stmts.addCrawlTime.run({ ms: Date.now() - this.openedAt });
    } catch (err) {
      failure = err;
    }
    this.closed = true;
    try {
      this.db.close();
    } catch (err) {
      failure ??= err;
    }
    if (failure !== null) throw new StateStoreError(this.file, failure);
  }
}

/** The prepared statements (typed). */
function prepare(db: Database.Database) {
  return {
    maxSeq: db.prepare<[], number>('SELECT COALESCE(MAX(seq), 0) FROM urls').pluck(),
    getMeta: db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck(),
    setMeta: db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    addCrawlTime: db.prepare<[{ ms: number }]>(
      `INSERT INTO meta (key, value) VALUES ('crawl_ms', @ms)
       ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + @ms`,
    ),
    insertUrl: db.prepare<[InsertParams]>(
      // Not INSERT OR IGNORE: that would also drop rows breaking other constraints, silently.
      `INSERT INTO urls (url, requested_url, depth, referrer, state, skip_reason, skip_error, duplicate_of, seq)
       VALUES (@url, @requestedUrl, @depth, @referrer, @state, @skipReason, @skipError, @duplicateOf, @seq)
       ON CONFLICT (url) DO NOTHING`,
    ),
    insertRecord: db.prepare<[{ url: string; json: string | null }]>('INSERT INTO records (url, json) VALUES (@url, @json)'),
    claim: db.prepare<[{ token: string; now: number; expires: number }], EntryRow>(
      `UPDATE urls SET state = 'leased', token = @token, lease_expires = @expires
       WHERE url = (
         SELECT url FROM (
           SELECT * FROM (SELECT url, depth, seq FROM urls WHERE state = 'queued' ORDER BY depth, seq LIMIT 1)
           UNION ALL
           SELECT * FROM (SELECT url, depth, seq FROM urls WHERE state = 'leased' AND lease_expires <= @now ORDER BY depth, seq LIMIT 1)
         ) ORDER BY depth, seq LIMIT 1
       )
       RETURNING url, requested_url AS requestedUrl, depth, referrer`,
    ),
    finish: db.prepare<[{ url: string; token: string; now: number; state: UrlState }]>(
      `UPDATE urls SET state = @state, token = NULL, lease_expires = NULL
       WHERE url = @url AND state = 'leased' AND token = @token AND lease_expires > @now`,
    ),
    renew: db.prepare<[{ url: string; token: string; now: number; expires: number }]>(
      `UPDATE urls SET lease_expires = @expires
       WHERE url = @url AND state = 'leased' AND token = @token AND lease_expires > @now`,
    ),
    release: db.prepare<[{ url: string; token: string }]>(
      `UPDATE urls SET state = 'queued', token = NULL, lease_expires = NULL
       WHERE url = @url AND state = 'leased' AND token = @token`,
    ),
    releaseAll: db.prepare("UPDATE urls SET state = 'queued', token = NULL, lease_expires = NULL WHERE state = 'leased'"),
    markDone: db.prepare<[{ url: string; seq: number }]>(
      `INSERT INTO urls (url, requested_url, depth, referrer, state, seq) VALUES (@url, @url, NULL, NULL, 'done', @seq)
       ON CONFLICT (url) DO UPDATE SET state = 'done' WHERE urls.state = 'queued'`,
    ),
    queuedRows: db.prepare<[], EntryRow>(
      `SELECT url, requested_url AS requestedUrl, depth, referrer FROM urls WHERE state = 'queued' ORDER BY depth, seq`,
    ),
    skipQueued: db.prepare<[{ url: string; reason: string }]>(
      `UPDATE urls SET state = 'skipped', skip_reason = @reason, skip_error = NULL, duplicate_of = NULL WHERE url = @url AND state = 'queued'`,
    ),
    visited: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM records WHERE json IS NOT NULL'),
    budgetSkipped: db.prepare<[{ maxDepth: number }], { url: string }>(
      `SELECT url FROM urls WHERE state = 'skipped' AND skip_reason = 'budget' AND depth <= @maxDepth ORDER BY depth, seq`,
    ),
    dropBudgetRecords: db.prepare<[{ maxDepth: number }]>(
      `DELETE FROM records WHERE json IS NULL AND url IN
         (SELECT url FROM urls WHERE state = 'skipped' AND skip_reason = 'budget' AND depth <= @maxDepth)`,
    ),
    requeueBudget: db.prepare<[{ maxDepth: number }]>(
      `UPDATE urls SET state = 'queued', skip_reason = NULL, skip_error = NULL, duplicate_of = NULL
       WHERE state = 'skipped' AND skip_reason = 'budget' AND depth <= @maxDepth`,
    ),
    counts: db.prepare<[{ now: number }], { queued: number; inFlight: number; done: number }>(
      `SELECT
         (SELECT COUNT(*) FROM urls WHERE state = 'queued')
           + (SELECT COUNT(*) FROM urls WHERE state = 'leased' AND lease_expires <= @now) AS queued,
         (SELECT COUNT(*) FROM urls WHERE state = 'leased' AND lease_expires > @now) AS inFlight,
         (SELECT COUNT(*) FROM urls WHERE state IN ('done', 'failed', 'skipped')) AS done`,
    ),
    recordsPage: db.prepare<[{ after: number; limit: number }], RecordRow>(
      `SELECT r.seq, r.url, r.json, u.requested_url AS requestedUrl, u.depth, u.referrer,
              u.skip_reason AS skipReason, u.skip_error AS skipError, u.duplicate_of AS duplicateOf
       FROM records r LEFT JOIN urls u ON u.url = r.url
       WHERE r.seq > @after ORDER BY r.seq LIMIT @limit`,
    ),
  };
}

function toEntry(r: EntryRow): FrontierEntry {
  return { url: r.url, requestedUrl: r.requestedUrl, depth: r.depth, referrer: r.referrer };
}

/** A stored record row as a PageRecord (a skipped URL's record is built from its `urls` row). */
function toRecord(row: RecordRow): PageRecord {
  if (row.json !== null) return upgradeRecord(JSON.parse(row.json) as PageRecord);
  if (row.skipReason === null) throw new Error(`the record of ${row.url} is missing (no page record, no skip reason)`);
  const r = blankRecord(row.url, row.requestedUrl, row.depth ?? 0, row.referrer);
  r.skipped = row.skipReason as SkipReason;
  r.error = row.skipError === null ? null : (JSON.parse(row.skipError) as RecordError);
  r.duplicateOf = row.duplicateOf;
  return r;
}

/** The SQLite result code of an error (`SQLITE_BUSY` …), or `null`. */
function sqliteCode(err: unknown): string | null {
  if (err instanceof Database.SqliteError) return err.code;
  if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('SQLITE_')) return err.code;
  return null;
}

/** The error to throw for a failure while opening. */
function openError(file: string, err: unknown): Error {
  if (err instanceof StateFileError || err instanceof StateLockedError || err instanceof CrawlMismatchError) return err;
  const code = sqliteCode(err) ?? '';
  const msg = err instanceof Error ? oneLine(err.message) : oneLine(String(err));
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_')) {
    return new StateLockedError(file, { cause: err });
  }
  if (code === 'SQLITE_NOTADB') return new StateFileError(file, 'is not a SQLite database', { cause: err });
  if (code.startsWith('SQLITE_CORRUPT')) return new StateFileError(file, `is corrupt (${msg})`, { cause: err });
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return new StateFileError(file, 'cannot be written (read-only file or folder)', { cause: err });
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new StateFileError(file, 'cannot be opened or created (no permission on the file or its folder?)', { cause: err });
  }
  if (code === 'SQLITE_IOERR_LOCK' || code === 'SQLITE_IOERR_RDLOCK' || code === 'SQLITE_IOERR_CHECKRESERVEDLOCK') {
    return new StateFileError(file, 'cannot be locked (read-only file, or a file system without locking)', { cause: err });
  }
  if (code === 'SQLITE_FULL') return new StateFileError(file, 'cannot be written: the disk is full', { cause: err });
  return new StateFileError(file, `cannot be used (${code ? `${code}: ` : ''}${msg})`, { cause: err });
}

/** `true` if this process may write `p` (always `true` for root). */
function writable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function parseKey(file: string, stored: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(stored);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new StateFileError(file, 'has an unreadable crawl key');
}
