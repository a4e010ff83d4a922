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
 * A process owns the file for as long as it is open: it holds the file's owner lock (`FILE-lock`,
 * a SQLite file beside it kept in `locking_mode=EXCLUSIVE`, which the OS drops when the process
 * dies); so whoever gets the lock knows the previous owner is gone and puts every lease back in
 * the queue at once. Other processes may read the state file meanwhile (WAL readers:
 * `readStateFile`, `spacrawl status --state`).
 *
 * About 430 lines, one class on purpose: each method is one documented step of the Frontier
 * contract over the prepared statements (the SQL is in `statements.ts`, the file's checks in
 * `file.ts`), and the steps share the transactions built in the constructor.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { PageRecord, SkipReason } from '../../model/record.js';
import type { EndReason } from '../../model/summary.js';
import { StaleLeaseError, type Frontier, type FrontierCounts, type FrontierEntry, type Lease } from '../frontier.js';
import { guard, leaseTtl, outcomeState, pagedRecords, readStoredRecord, reopenDepth, skipRecord, storedEndReason, type CrawlKey, type ResumeBudget } from '../policy.js';
import { openStateFile, StateStoreError } from './file.js';
import { prepare, toEntry, type InsertParams, type RecordRow, type Statements } from './statements.js';

export { StateFileError, StateLockedError, StateStoreError } from './file.js';
export { STATE_SCHEMA_VERSION } from './statements.js';

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
 * A {@link Frontier} kept in an SQLite file, for crawls that must survive Ctrl-C, crashes and
 * `kill -9`. Open it with {@link SqliteFrontier.open}; the process owns the file (its owner lock)
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
  private readonly stmts: Statements;
  private readonly addTx: (entries: readonly FrontierEntry[]) => FrontierEntry[];
  private readonly completeTx: (lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]) => FrontierEntry[];
  private readonly drainTx: (reason: SkipReason) => FrontierEntry[];
  private readonly reopenTx: (maxDepth: number) => string[];
  private readonly claimTx: (now: number, token: string) => Lease | null;
  private readonly decideTx: () => FrontierEntry[];

  private constructor(
    private readonly db: Database.Database,
    /** The owner lock (`ownerLockPath`): held until close. */
    private readonly lock: Database.Database,
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
      const info = this.stmts.finish.run({ url: lease.entry.url, token: lease.token, now: Date.now(), state: outcomeState(record) });
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
    this.claimTx = db.transaction((now: number, token: string) => {
      const pick = this.stmts.claimable.get({ now });
      if (!pick) return null;
      const row = this.stmts.claim.get({ url: pick.url, token, expires: now + this.leaseTtlMs })!;
      const lease: Lease = { entry: toEntry(row), token };
      if (pick.state === 'leased') lease.recovered = true;
      return lease;
    });
    this.decideTx = db.transaction(() => {
      if (!this.stmts.anyHeld.get()) return [];
      const lowest = this.stmts.lowestActive.get() ?? null;
      const rows = this.stmts.heldBelow.all({ below: lowest === null ? Number.MAX_SAFE_INTEGER : lowest + 2 });
      for (const r of rows) {
        this.stmts.skipHeld.run({ url: r.url });
        this.stmts.insertRecord.run({ url: r.url, json: null });
      }
      return rows.map(toEntry);
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
   * `synchronous=NORMAL`; runs `PRAGMA quick_check`; takes the file's owner lock (held until
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
    const leaseTtlMs = leaseTtl(opts.leaseTtlMs, 600_000);
    return openStateFile(file, opts, (db, lock) => new SqliteFrontier(db, lock, file, leaseTtlMs, !opts.keepKey));
  }

  /** Run a database step; every SQLite (or other non-fencing) error becomes a StateStoreError. */
  private guard<T>(fn: () => T): T {
    return guard(
      () => {
        if (this.closed) throw new Error('the state database is closed');
        return fn();
      },
      (err) => new StateStoreError(this.file, err),
    );
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
        state: e.skip ? 'skipped' : e.held ? 'held' : 'queued',
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
   * `held` (with `held`), or — with `skip` — stored as `skipped` with its reason and error, and
   * given a record (see {@link SqliteFrontier.records}). A stored URL still queued or held takes
   * an entry that lowers its depth, as the {@link Frontier} contract says (its row's depth,
   * referrer, requested URL and `seq`); other entries for stored URLs are ignored.
   * @returns the entries taken (new or lowering), in the order given (the same objects)
   * @throws StateStoreError on a database error (nothing is written)
   */
  async add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    if (entries.length === 0) return [];
    return this.guard(() => this.addTx(entries));
  }

  /**
   * Claim the next URL in one transaction that commits before it returns: the queued URL
   * of lowest depth, first-come within a depth — or a leased one whose lease expired — gets a fresh random token and
   * expires `leaseTtlMs` from now.
   * @returns the lease (`recovered` when it was taken over from an expired lease), or `null`
   * when nothing is claimable right now (URLs may be in flight)
   * @throws StateStoreError on a database error
   */
  async next(): Promise<Lease | null> {
    return this.guard(() => this.claimTx(Date.now(), randomUUID()));
  }

  /**
   * Decide, in one transaction, the held URLs no queued or leased URL can report at a smaller
   * depth any more (see {@link Frontier.decideHeld}): each is stored as `skipped` for `budget`
   * and gets a record, like an entry added with `skip`.
   * @returns their entries, breadth-first
   * @throws StateStoreError on a database error (nothing is written)
   */
  async decideHeld(): Promise<FrontierEntry[]> {
    return this.guard(() => this.decideTx());
  }

  /**
   * Finish a lease in one transaction: if `lease.token` still owns the URL and the lease has
   * not expired, store `record`, mark the URL with its `outcomeState` (`failed` for an error
   * page, else `done`; both count as done) and add `discovered` as {@link SqliteFrontier.add}
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
   * @returns `true` if the URL was unknown, queued or held (it is now done), `false` if it was
   * leased (even with an expired lease), done, failed or skipped
   * @throws StateStoreError on a database error
   */
  async markDone(url: string, owner?: string): Promise<boolean> {
    return this.guard(() => this.stmts.markDone.run({ url, seq: this.seq++, owner: owner ?? null }).changes > 0);
  }

  /**
   * Take every queued URL out of the queue in one transaction, e.g. when a budget is spent.
   * They are stored as `skipped` for `reason` and get a record each (what the crawler emits
   * for them), so export and resume see them. Leased and held URLs are not touched.
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
   * Whether the crawl still waits to decide `url` (queued, held or leased): such a URL has no
   * stored record, so a record of it in `--out` is stale. An open that reopened budget-skipped
   * URLs ({@link SqliteFrontier.reopenBudget}) deleted their records here before `--out` was
   * rewritten; a run that stopped in between (killed, or refused: a `--metrics` port in use) left
   * the old records in `--out`, and only the state file still tells which they are.
   * Synchronous, for `JsonlWriter.recover`.
   * @throws StateStoreError on a database error
   */
  undecided(url: string): boolean {
    return this.guard(() => this.stmts.undecided.get({ url }) === 1);
  }

  /**
   * For a resume with a larger budget: put the URLs an earlier run skipped for its budget
   * (`skipped: "budget"`) or held past its `--max-depth` back in the queue, in their old order,
   * and delete the skip records, so that raising `--max-pages` or `--max-depth` goes on where the
   * earlier run stopped. Nothing is reopened while the pages visited so far already reach
   * `maxPages`; URLs deeper than `maxDepth` stay as they are. One transaction.
   * @param budget - `maxPages`: navigations in all, earlier runs included; `maxDepth`: deepest
   *   link distance visited (`Infinity` for none)
   * @returns the canonical URLs queued again that had a skip record (empty when there were none)
   * @throws StateStoreError on a database error (nothing is changed)
   */
  async reopenBudget(budget: ResumeBudget): Promise<string[]> {
    const maxDepth = reopenDepth(await this.visited(), budget);
    if (maxDepth === null) return [];
    return this.guard(() => this.reopenTx(maxDepth));
  }

  /**
   * Sizes of the states: `queued` (queued and held, plus leased with an expired lease: claimable),
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
   * its `skipRecord` (as the crawler emits it) — in the order they were stored. Read in pages
   * of a few hundred rows (`pagedRecords`), so other calls may be made between items.
   * @throws StateStoreError on a database error or an unreadable stored record
   */
  records(): AsyncGenerator<PageRecord, void, undefined> {
    return pagedRecords<RecordRow>(
      ({ last, limit }) => this.guard(() => this.stmts.recordsPage.all({ after: last?.seq ?? 0, limit })),
      (row) => this.guard(() => toRecord(row)),
    );
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
   * Keep why and when this run ended (meta `end_reason`, `ended_at`); the last run's are the
   * stored crawl's.
   * @throws StateStoreError on a database error
   */
  async recordEnd(reason: EndReason): Promise<void> {
    this.guard(() => {
      this.stmts.setMeta.run('end_reason', reason);
      this.stmts.setMeta.run('ended_at', new Date().toISOString());
    });
  }

  /**
   * Why the stored crawl stopped, for `export`: the last run's reason, except that URLs still
   * queued (a killed run records none) mean `interrupted`.
   * @throws StateStoreError on a database error
   */
  async endReason(): Promise<EndReason> {
    const stored = this.guard(() => this.stmts.getMeta.get('end_reason'));
    const { queued } = await this.counts();
    return storedEndReason(stored, queued);
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
    for (const d of [this.db, this.lock]) {
      try {
        d.close();
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== null) throw new StateStoreError(this.file, failure);
  }
}

/** A stored record row as a PageRecord (a skipped URL's record is built from its `urls` row). */
function toRecord(row: RecordRow): PageRecord {
  if (row.json !== null) return readStoredRecord(row.json);
  if (row.skipReason === null) throw new Error(`the record of ${row.url} is missing (no page record, no skip reason)`);
  return skipRecord({
    url: row.url,
    requestedUrl: row.requestedUrl!,
    depth: row.depth ?? 0,
    referrer: row.referrer,
    skip: row.skipReason as SkipReason,
    skipError: row.skipError === null ? null : JSON.parse(row.skipError),
    duplicateOf: row.duplicateOf,
  });
}
