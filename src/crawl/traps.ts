/** Limits of the crawler-trap rules. */
export interface TrapOptions {
  /** Most distinct query strings visited on one path, and most dates of one calendar path (see {@link calendarPath}). @default 100 */
  maxQueryVariants: number;
  /** Most path segments. @default 30 */
  maxPathSegments: number;
}

/**
 * Spots URL spaces that never end (calendars with endless `?month=` or `/2024/01/` paths, session
 * ids in paths, relative-link loops that grow `/a/b/a/b/…`). A URL is a trap when its path has
 * more than `maxPathSegments` segments, when a run of segments repeats three times in a row, when
 * its path already had `maxQueryVariants` distinct query strings, or when its calendar path
 * (the path with its date taken out, see {@link calendarPath}) already had `maxQueryVariants`
 * distinct dates: a calendar whose every month links to the next and the previous one goes on
 * for ever, one path per month.
 */
export class TrapDetector {
  private readonly variants = new Map<string, Set<string>>();
  private readonly dates = new Map<string, Set<string>>();

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
    const calendar = calendarPath(segs);
    if (calendar) {
      const key = `${u.origin}${calendar}`;
      let set = this.dates.get(key);
      if (!set) {
        set = new Set();
        this.dates.set(key, set);
      }
      if (!set.has(u.pathname)) {
        if (set.size >= this.opts.maxQueryVariants) return `more than ${this.opts.maxQueryVariants} dates on ${calendar}`;
        set.add(u.pathname);
      }
    }
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

/**
 * The summary's note for URLs skipped as a trap for `reason` (a {@link TrapDetector.check}
 * reason), with the flag that lets a crawl visit them when the limit hit is a count
 * (`--max-query-variants`: query-routed sites such as `?path=/story/…` or `index.php?title=…`
 * have more than the default of distinct pages on one path).
 */
export function trapNote(reason: string): string {
  const counted = /^more than \d+ (query variants|dates) on /.test(reason);
  return `URLs skipped as a crawl trap (${reason})${counted ? '; --max-query-variants N visits more' : ''}`;
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

/** A year (1000–2999) as a path segment. */
const YEAR = /^[12]\d{3}$/;
/** A month (1–12) or a day (1–31) as a path segment, with or without a leading zero. */
const MONTH = /^(?:0?[1-9]|1[0-2])$/;
const DAY = /^(?:0?[1-9]|[12]\d|3[01])$/;
/** A date in one segment: `2024-01`, `2024-01-15`, `2024_01`. */
const DATE = /^[12]\d{3}[-_](?:0?[1-9]|1[0-2])(?:[-_](?:0?[1-9]|[12]\d|3[01]))?$/;

/**
 * The calendar path of a URL's path segments, or `null` when it names no date: the path with its
 * date replaced by `{date}`. A date is a year segment followed by a month segment (and a day
 * segment, if one follows: `/events/2024/01/15`), or one segment such as `2024-01-15`. The pages
 * of one calendar (`/cal/2024/01`, `/cal/2024/02`, …) share it; a blog's posts
 * (`/2024/01/a-post`) each have their own, as the rest of the path differs.
 */
export function calendarPath(segs: readonly string[]): string | null {
  for (let i = 0; i < segs.length; i++) {
    if (DATE.test(segs[i]!)) return `/${[...segs.slice(0, i), '{date}', ...segs.slice(i + 1)].join('/')}`;
    if (YEAR.test(segs[i]!) && i + 1 < segs.length && MONTH.test(segs[i + 1]!)) {
      const end = i + 2 < segs.length && DAY.test(segs[i + 2]!) ? i + 3 : i + 2;
      return `/${[...segs.slice(0, i), '{date}', ...segs.slice(end)].join('/')}`;
    }
  }
  return null;
}
