import fs from 'node:fs';
import type { PageRecord } from '../model/record.js';
import { describeFsError } from '../util/files.js';
import { UsageError } from '../model/errors.js';
import type { Reporter } from './reporter.js';

/** Thrown when an output file cannot be opened for writing (the CLI maps it to exit code 2). */
export class OutputError extends UsageError {
  readonly code = 'bad-output';
  constructor(message: string) {
    super(message);
    this.name = 'OutputError';
  }
}

/**
 * Writes PageRecords as JSON Lines, one synchronous write per record, so that a crawl killed
 * at any moment leaves only whole lines behind. As a {@link Reporter} it writes every record of
 * the stream and closes the file when the stream ends.
 */
export class JsonlWriter implements Reporter {
  private fd: number | null;

  /**
   * Open (and truncate, unless `append`) `file` for writing.
   * @throws OutputError with a one-line message if the file cannot be opened
   */
  constructor(
    readonly file: string,
    append = false,
  ) {
    try {
      this.fd = fs.openSync(file, append ? 'a' : 'w');
    } catch (err) {
      throw new OutputError(`cannot write ${file}: ${describeFsError(err)}`);
    }
  }

  /**
   * Prepare a JSON Lines file for appending after a crash: a torn last line (no trailing
   * newline, as `kill -9` mid-write can leave) is cut off, and the records `drop` names are taken
   * out (URLs a resume queues again, which get a new record). The file is rewritten only when
   * something is dropped, through a temporary file renamed over it.
   * @param file - the `--out` file
   * @param drop - `true` for a `url` whose records to remove (default: none)
   * @returns the `url` of every whole record left in the file (empty when it does not exist)
   * @throws OutputError when the file cannot be rewritten
   */
  static recover(file: string, drop: (url: string) => boolean = () => false): Set<string> {
    const urls = new Set<string>();
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return urls;
    }
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) fs.truncateSync(file, Buffer.byteLength(text.slice(0, end)));
    const kept: string[] = [];
    let dropped = 0;
    for (const line of text.slice(0, end).split('\n')) {
      if (!line) continue;
      let u: unknown;
      try {
        u = (JSON.parse(line) as { url?: unknown }).url;
      } catch {
        // not a record of ours: left as it is
      }
      if (typeof u === 'string' && drop(u)) {
        dropped++;
        continue;
      }
      if (typeof u === 'string') urls.add(u);
      kept.push(line);
    }
    if (dropped > 0) {
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.writeFileSync(tmp, kept.map((l) => `${l}\n`).join(''));
        fs.renameSync(tmp, file);
      } catch (err) {
        fs.rmSync(tmp, { force: true });
        throw new OutputError(`cannot rewrite ${file}: ${describeFsError(err)}`);
      }
    }
    return urls;
  }

  /**
   * Append one record as one line.
   * @throws OutputError with a one-line message when the file no longer takes it (a full disk, a
   *   file that refuses writes); the lines written before stay as they are
   */
  write(r: PageRecord): void {
    if (this.fd === null) return;
    const line = Buffer.from(`${JSON.stringify(r)}\n`, 'utf8');
    try {
      for (let off = 0; off < line.length; ) off += fs.writeSync(this.fd, line, off);
    } catch (err) {
      throw new OutputError(`cannot write ${this.file}: ${describeFsError(err)}`);
    }
  }

  /** {@link write}, as a reporter of the record stream. */
  onRecord(r: PageRecord): void {
    this.write(r);
  }

  /** {@link close}: the stream has ended. */
  onRecordsEnd(): void {
    this.close();
  }

  /** Flush to disk and close. Safe to call twice. */
  close(): void {
    if (this.fd === null) return;
    try {
      fs.fsyncSync(this.fd);
    } catch {
      // not every file supports fsync (pipes); the data is written either way
    }
    fs.closeSync(this.fd);
    this.fd = null;
  }
}
