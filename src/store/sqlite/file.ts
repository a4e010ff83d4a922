/**
 * The state file itself: the checks made before SQLite touches it, opening it (owner lock,
 * WAL, integrity and schema checks, the crawl's identity, leases of a dead owner back to the
 * queue), and the errors that name it.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UsageError } from '../../model/errors.js';
import { CrawlMismatchError, joinCrawl, oneLine, StoreError, type CrawlKey } from '../policy.js';
import { MIGRATIONS, SCHEMA, STATE_SCHEMA_VERSION } from './statements.js';

/**
 * The state file cannot be used: it is not a SQLite database, is corrupt, cannot be created
 * or written (read-only file or folder), is a SQLite database of something else, or was
 * written by a newer spacrawl. The message is one line naming the file and the problem; the
 * CLI exits 2.
 */
export class StateFileError extends UsageError {
  readonly code = 'bad-state';
  /** The state file's path as given to `SqliteFrontier.open`. */
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
  /** The state file's path as given to `SqliteFrontier.open`. */
  readonly file: string;
  constructor(file: string, options?: { cause?: unknown }) {
    super(`${file} is in use by another spacrawl process`, options);
    this.name = 'StateLockedError';
    this.file = file;
  }
}

/**
 * A database error while the crawl runs (after a successful open): the disk filled up, the
 * file was damaged, the store was used after `close()` … It wraps the SQLite error (`cause`)
 * and must stop the crawl (the CLI exits 3); it is never turned into an empty queue.
 */
export class StateStoreError extends StoreError {
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

/** How {@link openStateFile} treats the crawl key (see `SqliteFrontierOptions`). */
export interface StateFileOptions {
  crawlKey: CrawlKey;
  force?: boolean;
  keepKey?: boolean;
}

/**
 * Open (or create) a state file and take it for this process: refuse a path SQLite would
 * handle less clearly (a folder, a missing folder, a read-only file or folder), take the
 * owner lock ({@link ownerLockPath}), run `PRAGMA quick_check`, refuse a database that is not a
 * spacrawl state file or is newer, switch to WAL with `synchronous=NORMAL`, create the tables
 * (or bring an older file's up to this schema: `MIGRATIONS`), join the crawl (`joinCrawl`) and put every leased URL back in the queue (their owner is gone,
 * or it would still hold the lock) — all in one transaction.
 *
 * The state file itself is opened in SQLite's normal locking mode, so readers in other
 * processes (`spacrawl status --state`, {@link readStateFile}) can read it in WAL mode while the
 * crawl writes; only one process at a time owns it for writing, through the owner lock.
 * @param use - what to make of the open database and its owner lock (both held until closed);
 * a failure of `use` closes them, as any other failure while opening
 * @returns what `use` returned
 * @throws StateFileError, StateLockedError, CrawlMismatchError (see `SqliteFrontier.open`)
 */
export function openStateFile<T>(file: string, opts: StateFileOptions, use: (db: Database.Database, lock: Database.Database) => T): T {
  checkPath(file);
  const lockExisted = fs.existsSync(ownerLockPath(file));
  const lock = takeOwnerLock(file);
  let db: Database.Database;
  try {
    // A busy timeout for the moments a reader (status) holds a WAL lock; writers are kept out
    // by the owner lock, not by this.
    db = new Database(file, { timeout: BUSY_MS });
  } catch (err) {
    lock.close();
    throw openError(file, err);
  }
  try {
    // Read-only checks first, so a file that is not ours is left exactly as it was.
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new StateFileError(file, `is corrupt (quick_check: ${oneLine(String(check))})`);
    const schema = storedSchema(db, file);

    const mode = db.pragma('journal_mode = WAL', { simple: true });
    db.pragma('synchronous = NORMAL');
    db.transaction(() => {
      db.exec(SCHEMA);
      const getMeta = db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck();
      const setMeta = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
      const insertMeta = db.prepare<[string, string]>('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
      joinCrawl(
        {
          get: (k) => getMeta.get(k),
          setIfAbsent: (k, v) => insertMeta.run(k, v).changes > 0,
          set: (k, v) => void setMeta.run(k, v),
        },
        {
          given: opts.crawlKey,
          keep: opts.keepKey ?? false,
          force: opts.force ?? false,
          where: { file },
          unreadable: () => new StateFileError(file, 'has an unreadable crawl key'),
        },
      );
      if (schema === undefined) {
        setMeta.run('schema', String(STATE_SCHEMA_VERSION));
        setMeta.run('created_at', new Date().toISOString());
      } else if (Number(schema) < STATE_SCHEMA_VERSION) {
        for (let v = Number(schema); v < STATE_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
        setMeta.run('schema', String(STATE_SCHEMA_VERSION));
      }
      // A write on every open: proves the file is writable (the owner lock keeps other writers out).
      setMeta.run('opened_at', new Date().toISOString());
      // Whoever held these leases is gone (we hold the lock): back to the queue at once.
      db.exec("UPDATE urls SET state = 'queued', token = NULL, lease_expires = NULL WHERE state = 'leased'");
      // And so are the claims of those visits (a redirect target whose page their records were to
      // carry): a target queued before it was claimed waits again, one known only by the claim is
      // forgotten; the visit, done again, claims it again.
      db.exec(`DELETE FROM urls WHERE state = 'done' AND depth IS NULL AND claimed_by IN (SELECT url FROM urls WHERE state = 'queued');
        UPDATE urls SET state = 'queued', claimed_by = NULL WHERE state = 'done' AND claimed_by IN (SELECT url FROM urls WHERE state = 'queued');`);
    }).immediate();

    if (String(mode).toLowerCase() !== 'wal' && String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') {
      throw new StateFileError(file, 'cannot be switched to WAL mode (is it on a file system without locking?)');
    }
    return use(db, lock);
  } catch (err) {
    for (const d of [db, lock]) {
      try {
        d.close();
      } catch {
        // the original error is the one to report
      }
    }
    // A file that is not ours is left as it was: no lock file beside it either.
    if (!lockExisted) fs.rmSync(ownerLockPath(file), { force: true });
    throw openError(file, err);
  }
}

/**
 * The state schema version stored in an open database, after checking that it is a spacrawl
 * state file this version can read.
 * @returns the version, or `undefined` for an empty database (a new state file)
 * @throws StateFileError when the database holds something else, or was written by a newer spacrawl
 */
export function storedSchema(db: Database.Database, file: string): string | undefined {
  const hasMeta = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'").pluck().get() === 1;
  const tables = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().get() ?? 0;
  const schema = hasMeta ? db.prepare<[string], string>('SELECT value FROM meta WHERE key = ?').pluck().get('schema') : undefined;
  if (schema === undefined && tables > 0) throw new StateFileError(file, 'is a SQLite database but not a spacrawl state file');
  if (schema !== undefined) {
    const v = Number(schema);
    if (!Number.isInteger(v) || v < 1) throw new StateFileError(file, `has an unknown state schema (${oneLine(schema)})`);
    if (v > STATE_SCHEMA_VERSION) {
      throw new StateFileError(file, `was written by a newer spacrawl (state schema ${v}; this version reads up to ${STATE_SCHEMA_VERSION})`);
    }
  }
  return schema;
}

/** How long a SQLite call waits for a lock another connection holds for a moment (ms). */
export const BUSY_MS = 1_000;

/**
 * The owner lock of a state file: a small SQLite file beside it (`FILE-lock`) that the owning
 * process holds in SQLite's exclusive locking mode from open to close. The operating system
 * drops the lock when the process dies (also on `kill -9`), so whoever gets it knows the last
 * owner is gone. Kept as a file of its own so that the state file stays readable by other
 * processes while a crawl writes it.
 */
export function ownerLockPath(file: string): string {
  return `${file}-lock`;
}

/**
 * Take the owner lock of `file` (see {@link ownerLockPath}), waiting up to {@link BUSY_MS} for a
 * reader's probe to end.
 * @returns the lock's connection: closing it drops the lock
 * @throws StateLockedError when another process (or another store in this one) holds it
 * @throws StateFileError when the lock file cannot be created or used
 */
function takeOwnerLock(file: string): Database.Database {
  let lock: Database.Database | null = null;
  try {
    lock = new Database(ownerLockPath(file), { timeout: BUSY_MS });
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.pragma('journal_mode = MEMORY');
    // The first write takes the exclusive lock; in exclusive locking mode it is kept until close.
    lock.exec('CREATE TABLE IF NOT EXISTS owner (id INTEGER PRIMARY KEY, pid INTEGER, opened_at TEXT)');
    lock.prepare('INSERT OR REPLACE INTO owner (id, pid, opened_at) VALUES (1, ?, ?)').run(process.pid, new Date().toISOString());
    return lock;
  } catch (err) {
    try {
      lock?.close();
    } catch {
      // the original error is the one to report
    }
    const e = openError(file, err);
    if (e instanceof StateLockedError) throw e;
    throw new StateFileError(file, `cannot be locked: its lock file ${ownerLockPath(file)} cannot be used (${oneLine(err instanceof Error ? err.message : String(err))})`, { cause: err });
  }
}

/**
 * Whether a process owns `file` right now (a crawl is running on it): its owner lock is held.
 * Reads only; never creates the lock file. A probe holds a shared lock for a moment, which an
 * opening crawl waits out.
 */
export function ownerAlive(file: string): boolean {
  const lockFile = ownerLockPath(file);
  if (!fs.existsSync(lockFile)) return false;
  let probe: Database.Database | null = null;
  try {
    probe = new Database(lockFile, { readonly: true, fileMustExist: true, timeout: 0 });
    probe.prepare('SELECT COUNT(*) FROM sqlite_schema').get();
    return false;
  } catch (err) {
    const code = sqliteCode(err) ?? '';
    return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
  } finally {
    probe?.close();
  }
}

/** Refuse what SQLite would fall back to read-only for (or fail to lock) and report less clearly. */
function checkPath(file: string): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file);
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) throw new StateFileError(file, 'is a folder, not a file');
  const dir = path.dirname(path.resolve(file));
  if (!st && !fs.existsSync(dir)) throw new StateFileError(file, 'cannot be created: its folder does not exist');
  if (st && !writable(file)) throw new StateFileError(file, 'cannot be written (read-only file)');
  if (!writable(dir)) {
    throw new StateFileError(file, `cannot be ${st ? 'written' : 'created'} (read-only folder: SQLite keeps a -wal file beside it)`);
  }
}

/** The SQLite result code of an error (`SQLITE_BUSY` …), or `null`. */
function sqliteCode(err: unknown): string | null {
  if (err instanceof Database.SqliteError) return err.code;
  if (err instanceof Error && 'code' in err && typeof err.code === 'string' && err.code.startsWith('SQLITE_')) return err.code;
  return null;
}

/** The error to throw for a failure while opening (a {@link StateFileError} or {@link StateLockedError} for SQLite's errors). */
export function openError(file: string, err: unknown): Error {
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
