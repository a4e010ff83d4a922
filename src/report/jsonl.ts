import fs from 'node:fs';
import type { PageRecord } from './record.js';
import { describeFsError } from './fs-error.js';

/** Thrown when an output file cannot be opened for writing (the CLI maps it to exit code 2). */
export class OutputError extends Error {
  readonly code = 'bad-output';
  constructor(message: string) {
    super(message);
    this.name = 'OutputError';
  }
}

/**
 * Writes PageRecords as JSON Lines, one synchronous write per record, so that a crawl killed
 * at any moment leaves only whole lines behind.
 */
export class JsonlWriter {
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
   * newline, as `kill -9` mid-write can leave) is cut off.
   * @returns the `url` of every whole record in the file (empty when it does not exist)
   */
  static recover(file: string): Set<string> {
    const urls = new Set<string>();
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return urls;
    }
    const end = text.lastIndexOf('\n') + 1;
    if (end < text.length) fs.truncateSync(file, Buffer.byteLength(text.slice(0, end)));
    for (const line of text.slice(0, end).split('\n')) {
      if (!line) continue;
      try {
        const u = (JSON.parse(line) as { url?: unknown }).url;
        if (typeof u === 'string') urls.add(u);
      } catch {
        // not a record of ours: left as it is
      }
    }
    return urls;
  }

  /** Append one record as one line. */
  write(r: PageRecord): void {
    if (this.fd === null) return;
    fs.writeSync(this.fd, `${JSON.stringify(r)}\n`);
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
