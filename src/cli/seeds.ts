import { isUnreachable, type PageRecord } from '../model/record.js';
import type { Reporter } from '../report/reporter.js';

/** The seed records of a record stream (depth 0, no referrer): a handful, whatever the crawl's size. */
export class SeedRecords implements Reporter {
  readonly list: PageRecord[] = [];

  onRecord(r: PageRecord): void {
    if (r.depth === 0 && r.referrer === null) this.list.push(r);
  }
}

/**
 * The closing line when no seed could be crawled, saying for each seed why: unreachable (not
 * even its robots.txt answered), skipped and why, or its error.
 */
export function noSeedLine(seeds: readonly PageRecord[]): string {
  const why = seeds.map((r) => {
    // No HTTP answer, not even to robots.txt: say that the host is unreachable, not only robots
    // (isUnreachable; an older run's record says it as a robots-unavailable skip).
    const unreachable =
      isUnreachable(r) && r.error
        ? /\((.*)\): nothing was requested$/.exec(r.error.message) ?? [r.error.message, r.error.message]
        : r.error?.code === 'robots-unavailable'
          ? /could not be fetched \((?!HTTP )(.*)\); the origin/.exec(r.error.message)
          : null;
    if (unreachable) return `${r.url} cannot be reached (${unreachable[1]}), not even its robots.txt${hint(unreachable[1] ?? '')}`;
    return r.skipped ? `${r.url} skipped (${r.skipped}${r.error ? `: ${r.error.message}` : ''})` : `${r.url} ${r.error ? r.error.message : 'not reached'}`;
  });
  return `spacrawl: no seed could be crawled${why.length ? `: ${why.join('; ')}` : ''}`;
}

/**
 * What to check for the two usual causes of an unreachable seed, from Node's error code in
 * `cause`: nothing listening on the port (`ECONNREFUSED`), a host name DNS does not know
 * (`ENOTFOUND`, `EAI_AGAIN`). Empty for any other cause.
 */
function hint(cause: string): string {
  if (/\bECONNREFUSED\b/.test(cause)) return ': is the server running, on that port?';
  if (/\b(ENOTFOUND|EAI_AGAIN)\b/.test(cause)) return ': is the host name right?';
  return '';
}
