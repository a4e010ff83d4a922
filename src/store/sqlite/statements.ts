/**
 * The SQL of the durable frontier: the state file's tables and every statement the store runs,
 * prepared and typed. Each statement is one atomic step; `frontier.ts` groups them into
 * transactions.
 * @module
 */
import type Database from 'better-sqlite3';
import type { FrontierEntry } from '../frontier.js';

/**
 * Version of the state file's tables; a file with a higher version is refused, one with a lower
 * version is brought up to it when opened ({@link MIGRATIONS}). 2: URLs held past `--max-depth`
 * (state `held`), and which visit claimed a URL marked done (`claimed_by`).
 */
export const STATE_SCHEMA_VERSION = 2;

/** The state of a URL's row in `urls`. */
export type UrlState = 'queued' | 'leased' | 'done' | 'failed' | 'skipped' | 'held';

/** A row of `urls` as a frontier entry. */
export interface EntryRow {
  url: string;
  requestedUrl: string;
  depth: number;
  referrer: string | null;
}

/** A row of `records` with its URL's `urls` row (a skipped URL's record is built from it). */
export interface RecordRow {
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

/** The parameters of `insertUrl`. */
export interface InsertParams {
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

/**
 * The `urls` table under `name` (the state file's keeps `urls`; a migration builds a new one
 * beside the old).
 */
export function urlsTable(name: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${name} (
  url TEXT PRIMARY KEY,               -- canonical URL: the frontier key
  requested_url TEXT NOT NULL,        -- what goes on the wire
  depth INTEGER,                      -- NULL only for URLs marked done without being added
  referrer TEXT,
  -- held: past --max-depth, waiting for its decision (schema 2)
  state TEXT NOT NULL CHECK (state IN ('queued','leased','done','failed','skipped','held')),
  skip_reason TEXT,                   -- with state 'skipped'
  skip_error TEXT CHECK (skip_error IS NULL OR json_valid(skip_error)),
  duplicate_of TEXT,                  -- with skip_reason 'duplicate': the URL it repeats
  token TEXT,                         -- with state 'leased': the fencing token
  lease_expires INTEGER,              -- with state 'leased': ms since the epoch
  seq INTEGER NOT NULL,               -- insertion order (first-come within a depth)
  claimed_by TEXT,                    -- done by a claim (markDone): the URL whose visit carries its page (schema 2)
  CHECK (depth IS NOT NULL OR state = 'done')
);`;
}

/** The state file's tables (created when missing). */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
${urlsTable('urls')}
CREATE INDEX IF NOT EXISTS urls_claim ON urls (state, depth, seq);
CREATE TABLE IF NOT EXISTS records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  json TEXT                           -- the PageRecord; NULL for a skipped URL (built from urls)
);
`;

/**
 * What brings a state file of an older schema to {@link STATE_SCHEMA_VERSION}, by the version it
 * starts from (run in order, in the open's transaction).
 * - 1 → 2: `urls.state` may be `held`; SQLite cannot change a CHECK constraint in place, so the
 *   table is copied into one that allows it.
 */
export const MIGRATIONS: Readonly<Record<number, string>> = {
  1: `
${urlsTable('urls_v2')}
INSERT INTO urls_v2 (url, requested_url, depth, referrer, state, skip_reason, skip_error, duplicate_of, token, lease_expires, seq)
  SELECT url, requested_url, depth, referrer, state, skip_reason, skip_error, duplicate_of, token, lease_expires, seq FROM urls;
DROP TABLE urls;
ALTER TABLE urls_v2 RENAME TO urls;
CREATE INDEX IF NOT EXISTS urls_claim ON urls (state, depth, seq);
`,
};


type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;

/** The prepared statements, with their parameters and rows. */
export interface Statements {
  maxSeq: Stmt<[], number>;
  getMeta: Stmt<[string], string>;
  setMeta: Stmt<[string, string]>;
  addCrawlTime: Stmt<[{ ms: number }]>;
  insertUrl: Stmt<[InsertParams]>;
  insertRecord: Stmt<[{ url: string; json: string | null }]>;
  claimable: Stmt<[{ now: number }], { url: string; state: UrlState }>;
  claim: Stmt<[{ url: string; token: string; expires: number }], EntryRow>;
  finish: Stmt<[{ url: string; token: string; now: number; state: UrlState }]>;
  renew: Stmt<[{ url: string; token: string; now: number; expires: number }]>;
  release: Stmt<[{ url: string; token: string }]>;
  releaseAll: Stmt<unknown[]>;
  markDone: Stmt<[{ url: string; seq: number; owner: string | null }]>;
  lowestActive: Stmt<[], number | null>;
  anyHeld: Stmt<[], number>;
  heldBelow: Stmt<[{ below: number }], EntryRow>;
  skipHeld: Stmt<[{ url: string }]>;
  queuedRows: Stmt<[], EntryRow>;
  skipQueued: Stmt<[{ url: string; reason: string }]>;
  visited: Stmt<[], { n: number }>;
  undecided: Stmt<[{ url: string }], number>;
  budgetSkipped: Stmt<[{ maxDepth: number }], { url: string }>;
  dropBudgetRecords: Stmt<[{ maxDepth: number }]>;
  requeueBudget: Stmt<[{ maxDepth: number }]>;
  counts: Stmt<[{ now: number }], { queued: number; inFlight: number; done: number }>;
  recordsPage: Stmt<[{ after: number; limit: number }], RecordRow>;
}

/** Prepare every statement of the store on `db` (its tables must exist). */
export function prepare(db: Database.Database): Statements {
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
      // A known URL changes only while it waits (queued or held), to a smaller depth, from an
      // entry without skip; a queued one is never held again (Frontier.add).
      `INSERT INTO urls (url, requested_url, depth, referrer, state, skip_reason, skip_error, duplicate_of, seq)
       VALUES (@url, @requestedUrl, @depth, @referrer, @state, @skipReason, @skipError, @duplicateOf, @seq)
       ON CONFLICT (url) DO UPDATE SET requested_url = excluded.requested_url, depth = excluded.depth,
         referrer = excluded.referrer, state = excluded.state, seq = excluded.seq
       WHERE urls.state IN ('queued', 'held') AND excluded.state IN ('queued', 'held') AND excluded.depth < urls.depth
         AND NOT (urls.state = 'queued' AND excluded.state = 'held')`,
    ),
    insertRecord: db.prepare<[{ url: string; json: string | null }]>('INSERT INTO records (url, json) VALUES (@url, @json)'),
    claimable: db.prepare<[{ now: number }], { url: string; state: UrlState }>(
      // The first queued URL, or the first leased URL whose lease expired.
      `SELECT url, state FROM (
         SELECT * FROM (SELECT url, depth, seq, state FROM urls WHERE state = 'queued' ORDER BY depth, seq LIMIT 1)
         UNION ALL
         SELECT * FROM (SELECT url, depth, seq, state FROM urls WHERE state = 'leased' AND lease_expires <= @now ORDER BY depth, seq LIMIT 1)
       ) ORDER BY depth, seq LIMIT 1`,
    ),
    claim: db.prepare<[{ url: string; token: string; expires: number }], EntryRow>(
      `UPDATE urls SET state = 'leased', token = @token, lease_expires = @expires WHERE url = @url
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
    markDone: db.prepare<[{ url: string; seq: number; owner: string | null }]>(
      `INSERT INTO urls (url, requested_url, depth, referrer, state, seq, claimed_by) VALUES (@url, @url, NULL, NULL, 'done', @seq, @owner)
       ON CONFLICT (url) DO UPDATE SET state = 'done', claimed_by = @owner WHERE urls.state IN ('queued', 'held')`,
    ),
    // One MIN per state, so that each reads one entry of the claim index.
    lowestActive: db.prepare<[], number | null>(
      `SELECT MIN(d) FROM (SELECT MIN(depth) AS d FROM urls WHERE state = 'queued' UNION ALL SELECT MIN(depth) FROM urls WHERE state = 'leased')`,
    ).pluck(),
    anyHeld: db.prepare<[], number>(`SELECT EXISTS (SELECT 1 FROM urls WHERE state = 'held')`).pluck(),
    heldBelow: db.prepare<[{ below: number }], EntryRow>(
      `SELECT url, requested_url AS requestedUrl, depth, referrer FROM urls WHERE state = 'held' AND depth < @below ORDER BY depth, seq`,
    ),
    skipHeld: db.prepare<[{ url: string }]>(`UPDATE urls SET state = 'skipped', skip_reason = 'budget' WHERE url = @url AND state = 'held'`),
    queuedRows: db.prepare<[], EntryRow>(
      `SELECT url, requested_url AS requestedUrl, depth, referrer FROM urls WHERE state = 'queued' ORDER BY depth, seq`,
    ),
    skipQueued: db.prepare<[{ url: string; reason: string }]>(
      `UPDATE urls SET state = 'skipped', skip_reason = @reason, skip_error = NULL, duplicate_of = NULL WHERE url = @url AND state = 'queued'`,
    ),
    visited: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM records WHERE json IS NOT NULL'),
    // Waiting for its decision: such a URL has no record (reopenBudget deleted its skip record).
    undecided: db.prepare<[{ url: string }], number>(
      `SELECT EXISTS (SELECT 1 FROM urls WHERE url = @url AND state IN ('queued', 'held', 'leased'))`,
    ).pluck(),
    budgetSkipped: db.prepare<[{ maxDepth: number }], { url: string }>(
      `SELECT url FROM urls WHERE state = 'skipped' AND skip_reason = 'budget' AND depth <= @maxDepth ORDER BY depth, seq`,
    ),
    dropBudgetRecords: db.prepare<[{ maxDepth: number }]>(
      `DELETE FROM records WHERE json IS NULL AND url IN
         (SELECT url FROM urls WHERE state = 'skipped' AND skip_reason = 'budget' AND depth <= @maxDepth)`,
    ),
    requeueBudget: db.prepare<[{ maxDepth: number }]>(
      `UPDATE urls SET state = 'queued', skip_reason = NULL, skip_error = NULL, duplicate_of = NULL
       WHERE ((state = 'skipped' AND skip_reason = 'budget') OR state = 'held') AND depth <= @maxDepth`,
    ),
    counts: db.prepare<[{ now: number }], { queued: number; inFlight: number; done: number }>(
      `SELECT
         (SELECT COUNT(*) FROM urls WHERE state IN ('queued', 'held'))
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

/** A `urls` row as a frontier entry. */
export function toEntry(r: EntryRow): FrontierEntry {
  return { url: r.url, requestedUrl: r.requestedUrl, depth: r.depth, referrer: r.referrer };
}

