import fs from 'node:fs';
import type { PageRecord } from '../model/record.js';
import { describeFsError } from '../util/files.js';
import { OutputError } from './jsonl.js';

/**
 * Bytes read from the file at a time (the buffer grows for a longer line). The lines are cut
 * from this Buffer, outside V8's heap, and only one line at a time becomes a string: a decoded
 * chunk string would live while all its records are handled, outlive young-generation
 * collections and be promoted, so every pass over a long file left megabytes of garbage in the
 * old generation until the next full collection (the report phase's peak memory grew with the
 * number of records: bench, 20,000-page row).
 */
const READ_BYTES = 64 * 1024;

/** `\n`: in UTF-8 this byte is never part of a multi-byte character, so lines are cut on bytes. */
const NEWLINE = 0x0a;

/**
 * The records of a JSON Lines file (one `PageRecord` per line, as {@link JsonlWriter} writes
 * them), read again from the start at every iteration, one line at a time: memory holds one read
 * buffer and one record, however long the file. Blank lines and a torn last line (no newline:
 * a write cut short) are skipped; a line that is not a JSON object is an error.
 */
export class JsonlRecordSource implements Iterable<PageRecord> {
  /** @param file - the JSON Lines file (read when iterated, not now) */
  constructor(readonly file: string) {}

  /**
   * @throws OutputError when the file cannot be read, or a line is not a JSON object
   */
  *[Symbol.iterator](): Iterator<PageRecord> {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch (err) {
      throw new OutputError(`cannot read ${this.file}: ${describeFsError(err, 'read')}`);
    }
    let buf = Buffer.allocUnsafe(READ_BYTES);
    // buf[0, filled) holds bytes read and not yet handed out: the start of a line.
    let filled = 0;
    let lineNo = 0;
    try {
      for (;;) {
        if (filled === buf.length) {
          const bigger = Buffer.allocUnsafe(buf.length * 2);
          buf.copy(bigger, 0, 0, filled);
          buf = bigger;
        }
        const n = fs.readSync(fd, buf, filled, buf.length - filled, null);
        if (n === 0) break;
        const scanFrom = filled;
        filled += n;
        let start = 0;
        for (let nl = buf.indexOf(NEWLINE, scanFrom); nl >= 0 && nl < filled; nl = buf.indexOf(NEWLINE, start)) {
          const line = buf.toString('utf8', start, nl);
          start = nl + 1;
          lineNo++;
          if (line.trim() === '') continue;
          yield this.parse(line, lineNo);
        }
        if (start > 0) {
          buf.copy(buf, 0, start, filled);
          filled -= start;
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  private parse(line: string, lineNo: number): PageRecord {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      v = null;
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new OutputError(`${this.file}: line ${lineNo} is not a JSON record`);
    return v as PageRecord;
  }
}
