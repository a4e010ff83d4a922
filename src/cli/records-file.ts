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
 * private temporary folder, removed by {@link remove}. Either way the CLI holds no record in
 * memory; a crash (kill -9) can leave the spool folder behind in the system's temp folder.
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
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-records-'));
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
