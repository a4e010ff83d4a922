/**
 * Reading a state file without owning it, for `spacrawl status --state`: a read-only SQLite
 * connection in WAL mode, which sees the last committed state while a crawl in another process
 * goes on writing (the crawl owns the file through its owner lock, not by locking readers out).
 * @module
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { storedEndReason, type CrawlProgress } from '../policy.js';
import { BUSY_MS, openError, ownerAlive, storedSchema, StateFileError } from './file.js';

/** A state file's progress, as `spacrawl status --state` shows it. */
export interface StateFileStatus extends CrawlProgress {
  /** The state file's path as given. */
  file: string;
  /** URLs skipped, by skip reason (`robots`, `budget` …). */
  skippedBy: Record<string, number>;
  /** Pages navigated in every run so far (what a resumed `--max-pages` counts). */
  visited: number;
  /** The stored crawl key: seeds, scope, URL rules. */
  crawlKey: Record<string, unknown> | null;
}

interface StateRow {
  state: string;
  skipReason: string | null;
  live: number;
  n: number;
}

/**
 * Read where the crawl of a state file stands, also while a crawl in another process writes it.
 * Opens the file read-only (it is never changed, and never created), in one read transaction
 * (the counts are of one moment); waits up to a second for a lock held for a moment.
 * A URL leased by a crawl that is no longer running counts as queued (a resume visits it again).
 * @param file - path of the state file
 * @param now - the current time (ms since the epoch), for lease expiry and the running time
 * @throws StateFileError when the file is missing, is not a SQLite database, is corrupt, is not a
 * spacrawl state file, or was written by a newer spacrawl
 * @throws StateLockedError when it stays locked longer than that (a checkpoint that does not end)
 */
export function readStateFile(file: string, now = Date.now()): StateFileStatus {
  if (!fs.existsSync(file)) throw new StateFileError(file, 'does not exist');
  if (fs.statSync(file).isDirectory()) throw new StateFileError(file, 'is a folder, not a file');
  const running = ownerAlive(file);
  const sidecars = [`${file}-wal`, `${file}-shm`];
  const hadSidecars = sidecars.some((f) => fs.existsSync(f));
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_MS });
  } catch (err) {
    throw openError(file, err);
  }
  try {
    return db.transaction(() => {
      if (storedSchema(db, file) === undefined) throw new StateFileError(file, 'is empty: not a spacrawl state file');
      const meta = new Map(db.prepare<[], { key: string; value: string }>('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]));
      const rows = db
        .prepare<[{ now: number }], StateRow>(
          `SELECT state, skip_reason AS skipReason, (state = 'leased' AND lease_expires > @now) AS live, COUNT(*) AS n
           FROM urls GROUP BY state, skip_reason, live`,
        )
        .all({ now });
      const visited = db.prepare<[], number>('SELECT COUNT(*) FROM records WHERE json IS NOT NULL').pluck().get() ?? 0;
      const s: StateFileStatus = {
        file,
        queued: 0,
        inFlight: 0,
        done: 0,
        failed: 0,
        skipped: 0,
        skippedBy: {},
        visited,
        startedAt: meta.get('created_at') ?? null,
        endedAt: null,
        elapsedMs: Number(meta.get('crawl_ms') ?? 0),
        running,
        endReason: null,
        seeds: [],
        crawlKey: null,
      };
      for (const r of rows) {
        if (r.state === 'queued' || r.state === 'held' || (r.state === 'leased' && !(running && r.live))) s.queued += r.n;
        else if (r.state === 'leased') s.inFlight += r.n;
        else if (r.state === 'done') s.done += r.n;
        else if (r.state === 'failed') s.failed += r.n;
        else if (r.state === 'skipped') {
          s.skipped += r.n;
          const reason = r.skipReason ?? 'unknown';
          s.skippedBy[reason] = (s.skippedBy[reason] ?? 0) + r.n;
        }
      }
      // URLs marked done without a visit (a redirect's final URL) are not counted: done = visits that were not failed.
      s.done = visited - s.failed;
      const opened = Date.parse(meta.get('opened_at') ?? '');
      if (running && Number.isFinite(opened)) s.elapsedMs += Math.max(0, now - opened);
      if (!running) {
        // A run that was killed kept no end: the reason and time kept are an earlier run's.
        const ended = meta.get('ended_at');
        const clean = ended === undefined || !(Date.parse(ended) < opened);
        s.endReason = storedEndReason(clean ? meta.get('end_reason') : undefined, s.queued);
        s.endedAt = clean ? (ended ?? null) : null;
      }
      s.crawlKey = parseKey(meta.get('crawl_key'));
      const seeds = s.crawlKey?.seeds;
      s.seeds = Array.isArray(seeds) ? seeds.filter((x): x is string => typeof x === 'string') : [];
      return s;
    })();
  } catch (err) {
    throw openError(file, err);
  } finally {
    db.close();
    // A read-only connection cannot remove the WAL files it had to create; when no crawl uses the
    // file and they hold nothing (an empty -wal), they are this reading's and go.
    if (!running && !hadSidecars) removeEmptyWal(file, sidecars);
  }
}

/** Remove `FILE-wal` (when empty) and `FILE-shm`, unless a crawl opened the file meanwhile. Never throws. */
function removeEmptyWal(file: string, [wal, shm]: string[]): void {
  try {
    if (fs.statSync(wal!).size !== 0 || ownerAlive(file)) return;
    fs.rmSync(wal!, { force: true });
    fs.rmSync(shm!, { force: true });
  } catch {
    // left as SQLite left them
  }
}

function parseKey(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
