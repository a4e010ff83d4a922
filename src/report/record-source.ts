import type { PageRecord } from '../model/record.js';

/**
 * The records of a crawl, readable more than once: every iteration starts again at the first
 * record. An array is one; so is a JSON Lines file read back line by line ({@link
 * JsonlRecordSource}), which keeps one record in memory at a time. Batch reports and the audit
 * read their records in several passes through this, never all at once.
 */
export type RecordSource = Iterable<PageRecord>;

/**
 * A source that can be read again: `src` itself unless it is a one-shot iterator (a generator,
 * whose second iteration would be empty), which is read once into an array.
 */
export function reReadable(src: Iterable<PageRecord>): RecordSource {
  const it = src[Symbol.iterator]();
  if ((it as unknown) !== src) return src;
  const all: PageRecord[] = [];
  for (let n = it.next(); !n.done; n = it.next()) all.push(n.value);
  return all;
}
