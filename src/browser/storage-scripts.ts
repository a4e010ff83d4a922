/**
 * In-page functions that keep click discovery from changing what later pages render. A click
 * may store a choice in the origin's Web Storage (a theme, a filter, an open accordion, a
 * dismissed banner), and every later page of the origin in the crawl's shared context then
 * renders with it, unlike a person who arrives at that page, and differently depending on which
 * page was clicked first. On TypeDoc, the member filters and the settings accordion the first
 * pages' clicks opened stayed on for the rest of the crawl: every later page rendered its
 * protected, inherited and external members and the open settings panel, which no person
 * arriving there sees (five alternated crawls: 7.95 s and 6.64 renderer CPU-s in the mean,
 * against 7.54 s and 6.24 with the storage put back). So what the storage held before the
 * first click is kept, and put back after the last.
 *
 * Each function is sent to the page as its own text (`page.evaluate`): self-contained, no
 * imports, no helpers shared with others.
 * @module
 */

/** What {@link keepStorage} kept in the page. */
interface KeptStorage {
  /** `localStorage` before the first click (`null`: not readable, e.g. an opaque origin). */
  local: [string, string][] | null;
  /** `sessionStorage` before the first click. */
  session: [string, string][] | null;
  /**
   * `localStorage` keys another document of the origin changed meanwhile (its `storage` events;
   * another tab's page): theirs, not this page's clicks', so never put back. `null` for a clear.
   */
  others: Set<string | null>;
}

/**
 * Keep what the page's `localStorage` and `sessionStorage` hold now, for {@link restoreStorage}
 * after click discovery, and from now on note the `localStorage` keys other documents of the
 * origin change (HTML Living Standard, "The storage event"). Never throws.
 */
export function keepStorage(): void {
  const w = window as unknown as { __spacrawlKeptStorage?: KeptStorage };
  const entries = (area: () => Storage): [string, string][] | null => {
    try {
      const s = area();
      const out: [string, string][] = [];
      for (let i = 0; i < s.length; i++) {
        const k = s.key(i);
        if (k !== null) out.push([k, s.getItem(k) ?? '']);
      }
      return out;
    } catch {
      return null;
    }
  };
  const kept: KeptStorage = { local: entries(() => localStorage), session: entries(() => sessionStorage), others: new Set() };
  w.__spacrawlKeptStorage = kept;
  window.addEventListener('storage', (e) => {
    if (w.__spacrawlKeptStorage === kept && e.storageArea !== sessionStorage) kept.others.add(e.key);
  });
}

/**
 * Put `localStorage` and `sessionStorage` back as {@link keepStorage} found them: keys the
 * clicks added are removed, keys they changed or removed get their old value. `localStorage`
 * keys another document changed meanwhile are left as they are (all of them, after another
 * document cleared it). Never throws.
 * @returns how many keys were put back (0 when nothing was kept in this document)
 */
export function restoreStorage(): number {
  const w = window as unknown as { __spacrawlKeptStorage?: KeptStorage };
  const kept = w.__spacrawlKeptStorage;
  if (!kept) return 0;
  delete w.__spacrawlKeptStorage;
  const putBack = (area: () => Storage, before: [string, string][] | null, skip: Set<string | null>): number => {
    if (!before || skip.has(null)) return 0;
    let n = 0;
    try {
      const s = area();
      const old = new Map(before);
      const now: string[] = [];
      for (let i = 0; i < s.length; i++) {
        const k = s.key(i);
        if (k !== null) now.push(k);
      }
      for (const k of now) {
        if (!old.has(k) && !skip.has(k)) {
          s.removeItem(k);
          n++;
        }
      }
      for (const [k, v] of old) {
        if (s.getItem(k) !== v && !skip.has(k)) {
          s.setItem(k, v);
          n++;
        }
      }
    } catch {
      // not writable (an opaque origin, a full quota): left as it is
    }
    return n;
  };
  return putBack(() => localStorage, kept.local, kept.others) + putBack(() => sessionStorage, kept.session, new Set());
}
