/**
 * The SQL of the durable frontier: the state file's tables and every statement the store runs,
 * prepared and typed. Each statement is one atomic step; `frontier.ts` groups them into
 * transactions.
 * @module
 */
import type Database from 'better-sqlite3';
import type { FrontierEntry } from '../frontier.js';

/** Version of the state file's tables; a file with a higher version is refused. */
export const STATE_SCHEMA_VERSION = 1;

/** The state of a URL's row in `urls`. */
export type UrlState = 'queued' | 'leased' | 'done' | 'failed' | 'skipped';

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

/** The state file's tables (created when missing). */
export const SCHEMA = `
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
  markDone: Stmt<[{ url: string; seq: number }]>;
  queuedRows: Stmt<[], EntryRow>;
  skipQueued: Stmt<[{ url: string; reason: string }]>;
  visited: Stmt<[], { n: number }>;
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
      `INSERT INTO urls (url, requested_url, depth, referrer, state, skip_reason, skip_error, duplicate_of, seq)
       VALUES (@url, @requestedUrl, @depth, @referrer, @state, @skipReason, @skipError, @duplicateOf, @seq)
       ON CONFLICT (url) DO NOTHING`,
    ),
    insertRecord: db.prepare<[{ url: string; json: string | null }]>('INSERT INTO records (url, json) VALUES (@url, @json)'),
    claimable: db.prepare<[{ now: number }], { url: string; state: UrlState }>(
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

/** A `urls` row as a frontier entry. */
export function toEntry(r: EntryRow): FrontierEntry {
  return { url: r.url, requestedUrl: r.requestedUrl, depth: r.depth, referrer: r.referrer };
}

