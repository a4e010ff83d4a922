/**
 * The one place `diff` meets the state store: reading the records of a `--state` file. When
 * the stores move (to `src/store/`), only the import below changes.
 * @module
 */
import Database from 'better-sqlite3';
import type { PageRecord } from '../model/record.js';
import { SqliteFrontier } from '../store/sqlite/frontier.js';
import { DiffInputError } from './errors.js';

/** The records of an opened state file; {@link StoredRecords.records} may be called again. */
export interface StoredRecords {
  /** Every stored record, oldest first, each call from the start. */
  records(): AsyncIterable<PageRecord>;
  /** Release the file (the store holds its owner lock while open). */
  close(): Promise<void>;
}

/**
 * Open a state file for reading its records, as `export` does (the stored crawl key is kept).
 * A SQLite file without any table is refused before the store sees it, so that opening it
 * never turns someone's empty database into a state file.
 * @param file - absolute path of a file that starts with the SQLite header
 * @throws DiffInputError (`not-a-crawl`) for an empty or damaged SQLite file
 * @throws the store's own usage errors (a foreign SQLite database, a newer schema, a file in
 *   use by a crawl, a read-only file: `StateFileError`, `StateLockedError`), one line each
 */
export function openStateRecords(file: string): StoredRecords {
  let tables = -1;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      tables = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'").pluck().get() ?? 0;
    } finally {
      db.close();
    }
  } catch (err) {
    // Not a database at all: say so. Anything else (a lock held by a running crawl …) is
    // left to the store, whose messages name it.
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new DiffInputError('not-a-crawl', `${file} is not a crawl: a damaged SQLite file`, { cause: err });
    }
  }
  if (tables === 0) throw new DiffInputError('not-a-crawl', `${file} is not a crawl: an empty SQLite database`);
  const store = SqliteFrontier.open(file, { crawlKey: { seeds: [], scope: '' }, keepKey: true });
  return { records: () => store.records(), close: () => store.close() };
}
