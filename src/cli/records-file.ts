import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JsonlWriter } from '../report/jsonl.js';
import { JsonlRecordSource } from '../report/jsonl-source.js';
import type { ReportSpec } from '../report/formats.js';

/**
 * Where a CLI crawl keeps its records for the reports that read them back after the crawl (the
 * audit, the batch formats): the `--out` file itself when it holds exactly this run's records (a
 * regular file this run truncated, that no other report overwrites), else a spool file in a
 * private temporary folder (`spacrawl-records-PID-XXXXXX`), removed by {@link remove}. Either
 * way the CLI holds no record in memory. A crash (kill -9) leaves the spool folder behind; the
 * next run that spools removes the folders of processes that are gone.
 */
export class RecordsFile {
  /** The records, read back from the file (after the stream has ended). */
  readonly source: JsonlRecordSource;
  /** The spool's writer, or `null` when `--out` is read back. */
  readonly spool: JsonlWriter | null;
  private dir: string | null;

  private constructor(file: string, spool: JsonlWriter | null, dir: string | null) {
    this.source = new JsonlRecordSource(file);
    this.spool = spool;
    this.dir = dir;
  }

  /**
   * Call after `--out` was opened (truncated) for this run.
   * @param out - the `--out` file and whether this run appends to it (a resume), or `null`
   * @param reports - the reports that will be written (a `jsonl` report may be `--out` itself:
   *   it is then not written again)
   * @throws Error from `fs` when the spool folder cannot be created
   * @throws OutputError when the spool file cannot be opened
   */
  static open(out: { file: string; append: boolean } | null, reports: readonly ReportSpec[]): RecordsFile {
    const overwritten = (file: string): boolean => reports.some((s) => s.format !== 'jsonl' && s.path !== null && sameFile(s.path, file));
    if (out && !out.append && isRegularFile(out.file) && !overwritten(out.file)) return new RecordsFile(out.file, null, null);
    sweepStaleSpools();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
    const file = path.join(dir, 'records.jsonl');
    return new RecordsFile(file, new JsonlWriter(file), dir);
  }

  /** The file the records are read back from. */
  get file(): string {
    return this.source.file;
  }

  /** Close and delete the spool (nothing for `--out`). Safe to call twice. */
  remove(): void {
    this.spool?.close();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** Name of the spool folders in the system's temp folder, followed by the owning process's id. */
const SPOOL_PREFIX = 'spacrawl-records-';

/** `true` while process `pid` exists (also when it belongs to another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the spool folders that crashed runs left behind: this user's
 * `spacrawl-records-PID-…` folders whose process is gone. (A reused PID keeps a folder until
 * that process is gone too.) Failures are ignored: this is housekeeping.
 */
function sweepStaleSpools(): void {
  const tmp = os.tmpdir();
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = new RegExp(`^${SPOOL_PREFIX}(\\d+)-`).exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    const dir = path.join(tmp, name);
    try {
      if (uid !== undefined && fs.statSync(dir).uid !== uid) continue;
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // another run removed it, or it is not ours to remove
    }
  }
}

function isRegularFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `true` when two paths name one file (the same path, or the same inode, e.g. through a symlink). */
export function sameFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}
