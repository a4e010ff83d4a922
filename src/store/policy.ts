/**
 * The policy every frontier store shares, written once: what identifies a crawl and how a
 * durable or shared store is joined ({@link joinCrawl}), the error classes a store throws
 * ({@link CrawlMismatchError}, {@link StoreError}) and the {@link guard} that turns a backend's
 * own errors into them, lease-expiry validation, the record of a URL decided without a visit
 * ({@link skipRecord}), how stored records are read back ({@link readStoredRecord},
 * {@link pagedRecords}) and the outcome state a completed URL is stored with
 * ({@link outcomeState}), what a stored crawl's progress and end reason are ({@link CrawlProgress},
 * {@link storedEndReason}) and what a resume with a larger budget reopens ({@link reopenDepth}).
 * The stores keep only their atomic core (SQL statements, Lua scripts).
 * @module
 */
import { InfrastructureError, UsageError } from '../model/errors.js';
import { blankRecord, isErrorPage, upgradeRecord, type PageRecord, type SkipReason } from '../model/record.js';
import type { EndReason } from '../model/summary.js';
import { StaleLeaseError, type FrontierEntry, type ResumeBudget } from './frontier.js';

export type { ResumeBudget } from './frontier.js';

// --- crawl identity ------------------------------------------------------------------------------

/** What identifies a crawl: a state file or a shared crawl is resumed only by the same crawl (unless forced). */
export interface CrawlKey {
  /** Seed URLs (compared as a set: order and repeats do not matter). */
  seeds: string[];
  /** Scope mode (`host`, `subdomains`, `domain`) or any string describing the scope. */
  scope: string;
  /** Anything else that must match on resume (include/exclude patterns …); compared as JSON. */
  [k: string]: unknown;
}

/** The crawl key in comparable form: seeds as a sorted set, object keys sorted. */
export function normalizeKey(k: CrawlKey): Record<string, unknown> {
  return { ...k, seeds: [...new Set(k.seeds)].sort() };
}

/** JSON with object keys sorted at every level (so equal keys give equal strings). */
export function stableStringify(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}

/** What differs between the stored and the given crawl key, or `null` if they match. */
export function keyDiff(stored: Record<string, unknown>, now: Record<string, unknown>): { fields: string[]; details: string } | null {
  const fields: string[] = [];
  const parts: string[] = [];
  const names = [...new Set([...Object.keys(stored), ...Object.keys(now)])].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const name of names) {
    const a = stored[name];
    const b = now[name];
    if (stableStringify(a) === stableStringify(b)) continue;
    fields.push(name);
    parts.push(`${name} differ${name.endsWith('s') ? '' : 's'} (stored: ${show(a)}; now: ${show(b)})`);
  }
  return fields.length ? { fields, details: parts.join(', ') } : null;
}

function rank(name: string): number {
  return name === 'seeds' ? 0 : name === 'scope' ? 1 : 2;
}

function show(v: unknown): string {
  let s: string;
  if (v === undefined) s = '(none)';
  else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) s = v.length ? v.join(' ') : '(none)';
  else if (typeof v === 'string') s = v;
  else s = JSON.stringify(v);
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/** Where a crawl is stored, as messages name it: a state file (as given) or a crawl id in Redis. */
export type StoreWhere = { file: string } | { crawlId: string };

/**
 * The state file or the shared crawl belongs to a different crawl (other seeds, scope …) and
 * `force` was not given. The message says what differs and how to go on (`--force`); the CLI
 * exits 2.
 */
export class CrawlMismatchError extends UsageError {
  readonly code = 'crawl-mismatch';
  /** The store holding the other crawl. */
  readonly where: StoreWhere;
  /** Names of the crawl-key fields that differ (`seeds`, `scope` …). */
  readonly fields: string[];
  constructor(where: StoreWhere, fields: string[], details: string) {
    super(
      'file' in where
        ? `state file ${where.file} belongs to a different crawl: ${details}; run with --force to use it anyway`
        : `crawl ${where.crawlId} in Redis is a different crawl: ${details}; use another --crawl-id, or --force to replace its settings`,
    );
    this.name = 'CrawlMismatchError';
    this.where = where;
    this.fields = fields;
  }
}

/** A store's metadata as {@link joinCrawl} sees it (SQLite's `meta` table): string values by name. */
export interface MetaStore {
  get(key: string): string | undefined;
  /** Store `value` unless `key` has one. @returns `true` when it was stored */
  setIfAbsent(key: string, value: string): boolean;
  set(key: string, value: string): void;
}

/** {@link MetaStore} over a network (Redis's `meta` hash): every call is a round trip. */
export interface AsyncMetaStore {
  get(key: string): Promise<string | undefined>;
  setIfAbsent(key: string, value: string): Promise<boolean>;
  set(key: string, value: string): Promise<void>;
}

/** How a store is joined by {@link joinCrawl}. */
export interface JoinOptions {
  /** The crawl being started or resumed; `null` joins the stored crawl as it is. */
  given: CrawlKey | null;
  /** With `given`: take the stored key as it is when there is one (no compare, no replace: `export`). */
  keep?: boolean;
  /** Join even when the stored key differs; the given key replaces it. */
  force?: boolean;
  /** The store, for {@link CrawlMismatchError}'s message. */
  where: StoreWhere;
  /** The error to throw when the stored key is not a JSON object. */
  unreadable: () => Error;
}

/** One metadata operation of the identity protocol (it is written once, run sync or async). */
type MetaOp = { op: 'get'; key: string } | { op: 'setIfAbsent' | 'set'; key: string; value: string };
type Steps<T> = Generator<MetaOp, T, unknown>;

function* get(key: string): Steps<string | undefined> {
  return (yield { op: 'get', key }) as string | undefined;
}
function* setIfAbsent(key: string, value: string): Steps<boolean> {
  return (yield { op: 'setIfAbsent', key, value }) as boolean;
}

/** The field of a crawl's meta store that holds its crawl key: a crawl exists while it is set. */
export const KEY_FIELD = 'crawl_key';

/** A stored crawl key, or `null` when it is not a JSON object. */
function readKey(stored: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(stored);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return null;
}

function fail(err: Error): never {
  throw err;
}

/**
 * The identity protocol: the first store of a crawl keeps its key; later ones compare theirs
 * with it (seeds as a set, every other field as JSON). `setIfAbsent` first, so of two workers
 * starting one shared crawl at once exactly one stores its key and the other compares with it.
 */
function* identity(o: JoinOptions): Steps<Record<string, unknown> | null> {
  if (o.given === null) {
    const stored = yield* get(KEY_FIELD);
    if (stored === undefined) return null;
    return readKey(stored) ?? fail(o.unreadable());
  }
  if (o.keep && (yield* get(KEY_FIELD)) !== undefined) return null; // left as it is, unread
  const key = normalizeKey(o.given);
  const text = stableStringify(key);
  if (yield* setIfAbsent(KEY_FIELD, text)) return key;
  const stored = readKey((yield* get(KEY_FIELD)) ?? 'null');
  if (stored === null && !o.force) throw o.unreadable();
  const diff = stored === null ? null : keyDiff(stored, key);
  if (diff && !o.force) throw new CrawlMismatchError(o.where, diff.fields, diff.details);
  if (stored === null || diff) yield { op: 'set', key: KEY_FIELD, value: text };
  return key;
}

/**
 * Join a crawl in a synchronous store (inside the caller's transaction): store the given key
 * on first use, compare with the stored one later.
 * @returns the given key (normalized) when it was stored or matched; the stored key when
 * `given` is `null`; `null` when `given` is `null` and no crawl is stored, or with `keep` when
 * a key is stored (it is left as it is, unread)
 * @throws CrawlMismatchError when the stored key differs and `force` is not set
 * @throws the error of `unreadable()` when the stored key is not a JSON object
 */
export function joinCrawl(meta: MetaStore, o: JoinOptions): Record<string, unknown> | null {
  const steps = identity(o);
  for (let r = steps.next(); ; ) {
    if (r.done) return r.value;
    const op = r.value;
    r = steps.next(op.op === 'get' ? meta.get(op.key) : op.op === 'setIfAbsent' ? meta.setIfAbsent(op.key, op.value) : meta.set(op.key, op.value));
  }
}

/** {@link joinCrawl} over a network store (each step a round trip; errors of the store propagate). */
export async function joinCrawlAsync(meta: AsyncMetaStore, o: JoinOptions): Promise<Record<string, unknown> | null> {
  const steps = identity(o);
  for (let r = steps.next(); ; ) {
    if (r.done) return r.value;
    const op = r.value;
    r = steps.next(op.op === 'get' ? await meta.get(op.key) : op.op === 'setIfAbsent' ? await meta.setIfAbsent(op.key, op.value) : await meta.set(op.key, op.value));
  }
}

// --- failures ------------------------------------------------------------------------------------

/**
 * A store failed while the crawl runs (the database or Redis): it must stop the crawl (the CLI
 * exits 3) and is never turned into an empty queue. Each backend has its subclass (with its
 * own `code`): `StateStoreError`, `RedisStoreError`.
 */
export abstract class StoreError extends InfrastructureError {}

/**
 * Run one store step; any error other than a {@link StaleLeaseError} or a {@link StoreError}
 * becomes `wrap(err)`. For a synchronous step (SQLite) and for one that returns a promise
 * (Redis) alike.
 */
export function guard<T>(step: () => T, wrap: (err: unknown) => StoreError): T {
  const rethrow = (err: unknown): never => {
    if (err instanceof StaleLeaseError || err instanceof StoreError) throw err;
    throw wrap(err);
  };
  try {
    const out = step();
    return (out instanceof Promise ? out.catch(rethrow) : out) as T;
  } catch (err) {
    return rethrow(err);
  }
}

/**
 * A lease expiry given to a store, or its default.
 * @throws RangeError when it is not a positive number of milliseconds
 */
export function leaseTtl(ms: number | undefined, defaultMs: number): number {
  const v = ms ?? defaultMs;
  if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`leaseTtlMs must be a positive number of milliseconds, got ${v}`);
  return v;
}

/** One line of an error message (for messages naming a store's failure). */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

// --- records -------------------------------------------------------------------------------------

/** A frontier entry decided without a visit. */
export type SkippedEntry = FrontierEntry & { skip: SkipReason };

/**
 * The record of a URL decided without a visit (robots, budget, duplicate, trap …): a
 * `blankRecord` with `skipped`, `error` (`skipError`) and `duplicateOf` set. What the crawler
 * emits for such a URL and what a durable store gives back for it.
 */
export function skipRecord(e: SkippedEntry): PageRecord {
  const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
  // An unreachable host's URL is recorded as a network failure, not as a skip (SkipReason).
  r.skipped = e.skip === 'unreachable' ? null : e.skip;
  r.error = e.skipError ?? null;
  r.duplicateOf = e.duplicateOf ?? null;
  return r;
}

/**
 * A page record as a store kept it (its JSON text, or that text parsed), with the fields added
 * since it was written set to their defaults (`upgradeRecord`).
 * @throws SyntaxError when the text is not JSON
 */
export function readStoredRecord(stored: string | object): PageRecord {
  return upgradeRecord((typeof stored === 'string' ? JSON.parse(stored) : stored) as PageRecord);
}

/**
 * The state a completed URL is stored in: `failed` for an error page (an `error`, or a status
 * >= 400: `isErrorPage`, DESIGN.md "Counting"), else `done`. Both count as done.
 */
export function outcomeState(record: PageRecord): 'done' | 'failed' {
  return isErrorPage(record) ? 'failed' : 'done';
}

/** Records read per query or round trip by {@link pagedRecords}. */
export const RECORD_PAGE = 256;

/**
 * Every stored record, oldest first, read a page at a time so that other calls may be made
 * between items; a page shorter than `limit` is the last.
 * @param fetchPage - the rows after `last` (the last row read, `undefined` at first), which is
 * also the `offset`-th row; at most `limit` of them
 * @param toRecord - a row as a record, or `null` for a row that stands for no record any more (it
 * may throw for an unreadable row)
 */
export async function* pagedRecords<Row>(
  fetchPage: (from: { last: Row | undefined; offset: number; limit: number }) => readonly Row[] | Promise<readonly Row[]>,
  toRecord: (row: Row) => PageRecord | null,
  limit = RECORD_PAGE,
): AsyncGenerator<PageRecord, void, undefined> {
  let last: Row | undefined;
  let offset = 0;
  for (;;) {
    const rows = await fetchPage({ last, offset, limit });
    for (const row of rows) {
      last = row;
      offset++;
      const r = toRecord(row);
      if (r !== null) yield r;
    }
    if (rows.length < limit) return;
  }
}

// --- a crawl's time and end, and resuming past a budget --------------------------------------------

/**
 * Where a stored crawl stands, as `spacrawl status` shows it for a state file and for a shared
 * crawl alike. Counts are of canonical URLs in the frontier.
 */
export interface CrawlProgress {
  /**
   * URLs waiting for a visit (with leases that expired, or whose owner is gone: they are visited
   * again), or, held past `--max-depth`, for their decision.
   */
  queued: number;
  /** URLs leased by a live crawl right now. */
  inFlight: number;
  /** Pages visited without error and with a status below 400 (`outcomeState` `done`). */
  done: number;
  /** Pages visited with an error or a status >= 400 (`outcomeState` `failed`). */
  failed: number;
  /** URLs decided without a visit (robots, scope, budget, duplicate, trap, logout). */
  skipped: number;
  /** When the crawl was first started (ISO 8601), or `null` when the store does not say. */
  startedAt: string | null;
  /** When the last run ended (ISO 8601); `null` while running or when no run ended cleanly. */
  endedAt: string | null;
  /**
   * Crawl time (ms): the summed wall time of every run that ended cleanly (a killed run adds
   * nothing), plus the running one's time so far.
   */
  elapsedMs: number;
  /** A crawl is running on the store now (a process owns the state file; a worker's heartbeat is live). */
  running: boolean;
  /** Why the crawl ended (see {@link storedEndReason}); `null` while running. */
  endReason: EndReason | null;
  /** The crawl's seed URLs (from its stored crawl key). */
  seeds: string[];
}

/**
 * Why a stored crawl ended, from the reason its last run kept: URLs still queued make a run that
 * kept none (it was killed) or that said `done` (another run or worker stopped early) count as
 * `interrupted`. The rule `export` and `status` use for a state file and a shared crawl alike.
 * @param stored - the reason the last run kept (`recordEnd`), if any
 * @param queued - URLs still waiting for a visit (leases of a dead owner included)
 */
export function storedEndReason(stored: string | null | undefined, queued: number): EndReason {
  const known: readonly EndReason[] = ['done', 'max-pages', 'max-time', 'interrupted'];
  const reason = known.includes(stored as EndReason) ? (stored as EndReason) : undefined;
  if (queued > 0 && (reason === undefined || reason === 'done')) return 'interrupted';
  return reason ?? 'done';
}

/**
 * What a resume with a larger budget reopens, for every durable or shared store: the URLs an
 * earlier run skipped for its budget (`skipped: "budget"`) or held past its `--max-depth` go back
 * in the queue, in their old order, and the skip records are dropped — unless the pages visited
 * so far already reach `maxPages` (nothing is reopened); URLs deeper than `maxDepth` stay as they are.
 * @param visited - pages navigated so far (SQLite: completed visits; Redis: URLs claimed)
 * @returns the deepest depth to reopen, or `null` when nothing is reopened
 */
export function reopenDepth(visited: number, budget: ResumeBudget): number | null {
  if (visited >= budget.maxPages) return null;
  return Number.isFinite(budget.maxDepth) ? budget.maxDepth : Number.MAX_SAFE_INTEGER;
}
