/**
 * One side of a diff: a re-readable source of records, opened from what a crawl leaves behind
 * (the JSON Lines of `--out`, a `--state` file, an `--output-dir` folder).
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { recordShapeProblem, upgradeRecord, type PageRecord } from '../model/record.js';
import type { EndReason } from '../model/summary.js';
import { DiffInputError } from './errors.js';
import { fieldsOfRaw } from './checks.js';

/** Records of one crawl, readable more than once (the diff reads each side in several passes). */
export interface RecordSource {
  /** Where the records come from (the path as given), for messages and reports. */
  readonly label: string;
  /** Every record, from the first, each time it is called; upgraded to today's schema. */
  records(): AsyncIterable<PageRecord>;
  /**
   * Lines skipped by the last complete pass because they were not records (a line torn by
   * `kill -9`, stray text); always 0 for other sources.
   */
  skippedLines(): number;
  /**
   * The record fields the last complete pass met in the records as written (see
   * `fieldsOfRaw`), before they were upgraded; `null` when unknown (a state file, or before a
   * pass). The diff tells from it which checks an older spacrawl did not make.
   */
  fieldsSeen?(): ReadonlySet<string> | null;
  /**
   * The crawl's screenshots folder (absolute), when known (see `findScreenshotsDir`): the one
   * the crawl's `report.json` names, or a `screenshots/` folder next to the records; `null`
   * otherwise (the diff's `--old-screenshots` / `--new-screenshots` give it).
   */
  readonly screenshotsDir: string | null;
  /**
   * The `--map-origin` pairs (OLD origin → NEW origin) this source's records are read through, when
   * any (see `mapSourceOrigins`): a refusal of two different sites can then say which pair matched nothing.
   */
  readonly originMap?: ReadonlyMap<string, string>;
  /** Optional checks the crawl's `report.json` says it ran (its summary's `checks`); absent or `[]` when unknown. */
  readonly declaredChecks?: readonly string[];
  /** Release what the source holds (a state file's lock). Safe to call twice. */
  close(): Promise<void>;
}

/** The first bytes of every SQLite 3 database file (sqlite.org/fileformat.html, 1.3). */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** File name of the JSON Lines report inside an `--output-dir` folder. */
export const REPORT_FOLDER_RECORDS = 'pages.jsonl';

/** Folder of the screenshots inside an `--output-dir` folder. */
export const REPORT_FOLDER_SCREENSHOTS = 'screenshots';

/** Non-empty lines read at most, at open, looking for a first record. */
const PROBE_LINES = 100;

/** What the crawl inputs are, for messages. */
const EXPECTED = 'expected the JSON Lines of --out, a --state file or an --output-dir folder';

/**
 * A record from one line of JSON Lines, or `null` when the line is not one (not JSON, not an
 * object, no string `url`, a field of another kind than spacrawl writes: `recordShapeProblem`).
 * Older schemas are upgraded (`upgradeRecord`).
 */
export function parseRecordLine(line: string): PageRecord | null {
  const raw = parseRawRecord(line);
  return raw ? upgradeRecord(raw) : null;
}

/** The record object of one line as written (not upgraded), or `null` when the line is not one (see {@link parseRecordLine}). */
function parseRawRecord(line: string): (Partial<PageRecord> & { url: string }) | null {
  if (!line.trim()) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const url = (raw as { url?: unknown }).url;
  if (typeof url !== 'string' || url === '') return null;
  // A field of another kind than spacrawl writes (an edited file, another program's): not a record.
  if (recordShapeProblem(raw as Record<string, unknown>) !== null) return null;
  return raw as Partial<PageRecord> & { url: string };
}

/** File name of the JSON report inside an `--output-dir` folder (its summary comes first). */
export const REPORT_FOLDER_JSON = 'report.json';

/** Bytes of `report.json` read at most, looking for the end of its summary. */
const MAX_SUMMARY_BYTES = 8 * 1024 * 1024;

/** What a crawl's `report.json` says about the crawl. */
export interface ReportSummary {
  /** The screenshots folder as the crawl recorded it (absolute), or `null`. */
  screenshotsDir: string | null;
  /** The optional checks it ran (`[]` for a report from before they were recorded). */
  checks: string[];
  /** The crawl's time (ms) and how it ended, as the report says; `null` when it does not. */
  crawl: { elapsedMs: number; endReason: EndReason } | null;
}

const END_REASONS: readonly string[] = ['done', 'max-pages', 'max-time', 'interrupted'] satisfies readonly EndReason[];

/**
 * The summary of the `report.json` in `dir` (an `--output-dir` folder), read from the file's
 * head: the json report writes `schemaVersion`, then `summary`, then `issues` and `pages`, so
 * only the part before `"issues"` is parsed. `null` when there is no such file, or it is not a
 * report of that shape.
 */
export function readReportSummary(dir: string): ReportSummary | null {
  let fd: number;
  try {
    fd = fs.openSync(path.join(dir, REPORT_FOLDER_JSON), 'r');
  } catch {
    return null;
  }
  try {
    const marker = ',\n  "issues": ';
    let head = '';
    const chunk = Buffer.alloc(64 * 1024);
    for (let pos = 0; pos < MAX_SUMMARY_BYTES; ) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, pos);
      if (n === 0) break;
      pos += n;
      head += chunk.subarray(0, n).toString('latin1');
      const end = head.indexOf(marker);
      if (end < 0) continue;
      const doc = JSON.parse(Buffer.from(`${head.slice(0, end)}\n}`, 'latin1').toString('utf8')) as { summary?: { screenshotsDir?: unknown; checks?: unknown; elapsedMs?: unknown; endReason?: unknown } };
      const sum = doc.summary;
      if (typeof sum !== 'object' || sum === null) return null;
      return {
        screenshotsDir: typeof sum.screenshotsDir === 'string' ? sum.screenshotsDir : null,
        checks: Array.isArray(sum.checks) ? sum.checks.filter((c): c is string => typeof c === 'string') : [],
        crawl:
          typeof sum.elapsedMs === 'number' && typeof sum.endReason === 'string' && END_REASONS.includes(sum.endReason)
            ? { elapsedMs: sum.elapsedMs, endReason: sum.endReason as EndReason }
            : null,
      };
    }
    return null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Where the screenshots of the records in `dir` are: the folder the crawl's `report.json`
 * names, when it exists (screenshots written outside `--output-dir` with `--screenshots`);
 * else a `screenshots/` folder in `dir` (an `--output-dir` folder, or one moved elsewhere as a
 * whole, e.g. a CI artifact); else `null`.
 *
 * A recorded folder that is the `screenshots/` of a report folder other than `dir` (the crawl
 * wrote them into its own `--output-dir`, and `dir` is a copy of that folder) is never used:
 * `dir`'s own `screenshots/` is, or none. `cp -r report baseline`, then a new crawl into
 * `report`, left the baseline's `report.json` naming `report/screenshots`, which now holds the
 * new crawl's shots: the baseline's own shots were never compared and no page ever changed.
 */
export function findScreenshotsDir(dir: string, report: ReportSummary | null): string | null {
  const isDir = (p: string): boolean => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const beside = path.join(dir, REPORT_FOLDER_SCREENSHOTS);
  if (report?.screenshotsDir) {
    const recorded = path.resolve(dir, report.screenshotsDir);
    const ownOfAnother =
      path.basename(recorded) === REPORT_FOLDER_SCREENSHOTS && path.dirname(recorded) !== path.resolve(dir) && fs.existsSync(path.join(path.dirname(recorded), REPORT_FOLDER_JSON));
    if (isDir(recorded) && !ownOfAnother) return recorded;
  }
  return isDir(beside) ? beside : null;
}

/** The non-empty lines of a text file, streamed. */
async function* lines(file: string): AsyncGenerator<string> {
  const rl = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  try {
    for await (const line of rl) if (line.trim()) yield line;
  } finally {
    rl.close();
  }
}

/** A JSON Lines file of records, read from disk on each pass. */
class JsonlSource implements RecordSource {
  private skipped = 0;
  private fields: ReadonlySet<string> | null = null;
  constructor(
    readonly label: string,
    private readonly file: string,
    readonly screenshotsDir: string | null,
    readonly declaredChecks: readonly string[],
  ) {}

  async *records(): AsyncGenerator<PageRecord> {
    let skipped = 0;
    const fields = new Set<string>();
    for await (const line of lines(this.file)) {
      const raw = parseRawRecord(line);
      if (raw) {
        fieldsOfRaw(raw, fields);
        yield upgradeRecord(raw);
      } else skipped++;
    }
    this.skipped = skipped;
    this.fields = fields;
  }

  skippedLines(): number {
    return this.skipped;
  }

  fieldsSeen(): ReadonlySet<string> | null {
    return this.fields;
  }

  async close(): Promise<void> {}
}

/**
 * Check that a JSON Lines file holds a crawl: a record among its first
 * {@link PROBE_LINES} non-empty lines, and no NUL byte in its first 4 KiB (a binary file).
 */
async function checkJsonl(label: string, file: string): Promise<void> {
  const fd = fs.openSync(file, 'r');
  const head = Buffer.alloc(4096);
  let n: number;
  try {
    n = fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  const notCrawl = (why: string): DiffInputError => new DiffInputError('not-a-crawl', `${label} is not a crawl: ${why} (${EXPECTED})`);
  if (n === 0) throw notCrawl('the file is empty');
  if (head.subarray(0, n).includes(0)) throw notCrawl('a binary file');
  let seen = 0;
  for await (const line of lines(file)) {
    if (parseRecordLine(line)) return;
    if (++seen >= PROBE_LINES) break;
  }
  throw notCrawl('no JSON record with a "url"');
}

/**
 * The line that says what `source`'s last complete pass skipped, e.g. `spacrawl: old.jsonl:
 * skipped 1 line that is not a record` (a line torn by a crash, a log line mixed in); `null`
 * when it skipped none.
 */
export function skippedLinesNote(source: RecordSource): string | null {
  const n = source.skippedLines();
  return n ? `spacrawl: ${source.label}: skipped ${n} line${n === 1 ? '' : 's'} that ${n === 1 ? 'is' : 'are'} not a record` : null;
}

/**
 * Open one side of a diff. What `input` is decides how it is read:
 * - a folder: the `pages.jsonl` an `--output-dir` crawl wrote there;
 * - a file starting with the SQLite header (`SQLite format 3\0`): a `--state` file, read with
 *   the store's `records()`;
 * - any other file: JSON Lines from `--out`, one record per line (lines that are not records
 *   are skipped and counted, see {@link RecordSource.skippedLines}).
 * Every record goes through `upgradeRecord`, so files of older spacrawl versions are read.
 * A state file can be open once at a time (the store locks it): to compare one with itself,
 * pass the same source as both sides.
 * @param input - path as given on the command line (relative to the working directory)
 * @throws DiffInputError `missing-input` when nothing is at `input` or a folder has no
 *   `pages.jsonl`; `not-a-crawl` when the file holds no record (empty, binary, other JSON, an
 *   empty SQLite database)
 * @throws the state store's usage errors for a state file it refuses (foreign SQLite database,
 *   newer schema, in use by a running crawl, read-only)
 */
export async function openRecordSource(input: string): Promise<RecordSource> {
  let file = path.resolve(input);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new DiffInputError('missing-input', `${input}: no such file or folder`);
  }
  if (st.isDirectory()) {
    file = path.join(file, REPORT_FOLDER_RECORDS);
    if (!fs.existsSync(file)) throw new DiffInputError('missing-input', `${input} is a folder without ${REPORT_FOLDER_RECORDS} (${EXPECTED})`);
  }
  const report = readReportSummary(path.dirname(file));
  const screenshotsDir = findScreenshotsDir(path.dirname(file), report);
  const declaredChecks = report?.checks ?? [];
  let head: Buffer;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      head = Buffer.alloc(SQLITE_HEADER.length);
      head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    throw new DiffInputError('missing-input', `${input} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  }
  if (head.equals(SQLITE_HEADER)) {
    // The state store (and SQLite) loads only for a state file: a JSON Lines side, or a path
    // that is no crawl, never needs it.
    const { openStateRecords } = await import('./state-store.js');
    const store = openStateRecords(file);
    let closed = false;
    return {
      label: input,
      screenshotsDir,
      declaredChecks,
      records: () => store.records(),
      skippedLines: () => 0,
      close: async () => {
        if (closed) return;
        closed = true;
        await store.close();
      },
    };
  }
  await checkJsonl(input, file);
  return new JsonlSource(input, file, screenshotsDir, declaredChecks);
}

/**
 * A source over records already in memory (for the library and tests): each pass yields them
 * again, upgraded to today's schema.
 * @param label - name shown in reports
 * @param records - the crawl's records, re-readable (an array, or a re-readable source: each pass iterates it again); older-schema objects are upgraded
 * @param screenshotsDir - the crawl's screenshots folder, if any
 */
export function memorySource(label: string, records: Iterable<Partial<PageRecord> & { url: string }>, screenshotsDir: string | null = null): RecordSource {
  let fields: ReadonlySet<string> | null = null;
  return {
    label,
    screenshotsDir,
    async *records() {
      const seen = new Set<string>();
      for (const r of records) {
        fieldsOfRaw(r, seen);
        yield upgradeRecord(r);
      }
      fields = seen;
    },
    fieldsSeen: () => fields,
    skippedLines: () => 0,
    close: async () => {},
  };
}
