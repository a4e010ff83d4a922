import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { PageRecord } from '../model/record.js';
import { describeFsError } from '../util/files.js';
import { OutputError } from './jsonl.js';

/** Bytes read from the file at a time. */
const READ_BYTES = 256 * 1024;

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
    const buf = Buffer.allocUnsafe(READ_BYTES);
    const decoder = new StringDecoder('utf8');
    let rest = '';
    let lineNo = 0;
    try {
      for (;;) {
        const n = fs.readSync(fd, buf, 0, buf.length, null);
        if (n === 0) break;
        const text = rest + decoder.write(buf.subarray(0, n));
        let start = 0;
        for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
          const line = text.slice(start, nl);
          start = nl + 1;
          lineNo++;
          if (line.trim() === '') continue;
          yield this.parse(line, lineNo);
        }
        rest = text.slice(start);
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
