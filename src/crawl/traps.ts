/** Limits of the crawler-trap rules. */
export interface TrapOptions {
  /** Most distinct query strings visited on one path. @default 100 */
  maxQueryVariants: number;
  /** Most path segments. @default 30 */
  maxPathSegments: number;
}

/**
 * Spots URL spaces that never end (calendars with endless `?month=`, session ids in paths,
 * relative-link loops that grow `/a/b/a/b/…`). A URL is a trap when its path has more than
 * `maxPathSegments` segments, when a run of segments repeats three times in a row, or when its
 * path already had `maxQueryVariants` distinct query strings.
 */
export class TrapDetector {
  private readonly variants = new Map<string, Set<string>>();

  constructor(private readonly opts: TrapOptions = { maxQueryVariants: 100, maxPathSegments: 30 }) {}

  /**
   * Check (and count) one canonical URL.
   * @returns a short reason when it is a trap, else `null`
   */
  check(url: string): string | null {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    const segs = u.pathname.split('/').filter(Boolean);
    if (segs.length > this.opts.maxPathSegments) return `path deeper than ${this.opts.maxPathSegments} segments`;
    if (repeats(segs)) return 'repeating path segments';
    if (u.search) {
      const key = `${u.origin}${u.pathname}`;
      let set = this.variants.get(key);
      if (!set) {
        set = new Set();
        this.variants.set(key, set);
      }
      if (!set.has(u.search)) {
        if (set.size >= this.opts.maxQueryVariants) return `more than ${this.opts.maxQueryVariants} query variants on ${u.pathname}`;
        set.add(u.search);
      }
    }
    return null;
  }
}

/** `true` when some run of 1–5 segments occurs three times back to back (`/a/b/a/b/a/b`). */
function repeats(segs: string[]): boolean {
  for (let len = 1; len <= 5; len++) {
    for (let i = 0; i + 3 * len <= segs.length; i++) {
      let same = true;
      for (let k = 0; k < len && same; k++) {
        same = segs[i + k] === segs[i + len + k] && segs[i + k] === segs[i + 2 * len + k];
      }
      if (same) return true;
    }
  }
  return false;
}
