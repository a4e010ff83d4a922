/**
 * Bounded memos of pure string functions. A crawl meets the same link strings on page after page
 * (a site's navigation: the 67 links of every TypeDoc page, read in the page, in the server's
 * HTML and after each click), and each was parsed with WHATWG `URL` and normalized again every
 * time.
 * @module
 */

/** Entries a {@link StringMemo} keeps before it starts over (~1-2 MB of short URL strings). */
export const MEMO_ENTRIES = 8_192;

/**
 * Results of a pure function of one string, kept for at most `limit` distinct inputs: when full,
 * the memo is emptied and fills again (no order is kept: a lookup is one `Map.get`). Only values
 * are kept: a call that throws is not remembered and throws again next time.
 */
export class StringMemo<V> {
  private readonly values = new Map<string, V>();

  /** @param limit - most entries kept (see {@link MEMO_ENTRIES}) */
  constructor(private readonly limit = MEMO_ENTRIES) {}

  /** `compute(key)`, from the memo when it was computed before. @throws what `compute` throws */
  get(key: string, compute: (key: string) => V): V {
    const hit = this.values.get(key);
    if (hit !== undefined || this.values.has(key)) return hit as V;
    const value = compute(key);
    if (this.values.size >= this.limit) this.values.clear();
    this.values.set(key, value);
    return value;
  }

  /** Entries held. */
  get size(): number {
    return this.values.size;
  }
}

/** One {@link StringMemo} per key (of the options that shape a function's results), made on first use. */
export class StringMemos<V> {
  private readonly memos = new Map<string, StringMemo<V>>();

  /** The memo for `key`. */
  for(key: string): StringMemo<V> {
    let memo = this.memos.get(key);
    if (!memo) {
      memo = new StringMemo<V>();
      this.memos.set(key, memo);
    }
    return memo;
  }
}
