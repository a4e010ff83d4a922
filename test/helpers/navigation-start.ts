import type { PageRecord } from '../../src/model/record.js';

/**
 * A script for a fixture page's body that makes its title the time its navigation started (ms
 * since the epoch, `performance.timeOrigin`, floored): the browser's own clock, taken after the
 * crawler let the navigation go. Spacing tests read it instead of the time this process's server
 * got to the request, which the crawl's work in the same event loop can make late (a gap of
 * 525 ms logged as 433 in CI).
 */
export const NAVIGATION_START_TITLE = '<script>document.title = String(Math.floor(performance.timeOrigin))</script>';

/**
 * As {@link NAVIGATION_START_TITLE}, but the time the browser began fetching the document it
 * shows (`performance.timeOrigin + fetchStart` of the navigation entry, floored): after the
 * redirects it followed (taken after their gates opened), before the request was sent (so
 * before the crawler heard it). For pages a redirect from another host led to.
 */
export const DOCUMENT_FETCH_TITLE =
  "<script>document.title = String(Math.floor(performance.timeOrigin + performance.getEntriesByType('navigation')[0].fetchStart))</script>";

/** The navigation starts (ms since the epoch, ascending) of the pages, read from titles {@link NAVIGATION_START_TITLE} (or {@link DOCUMENT_FETCH_TITLE}) set. */
export function navigationStarts(records: PageRecord[]): number[] {
  return records
    .filter((r) => r.status === 200 && r.skipped === null)
    .map((r) => Number(r.title))
    .sort((a, b) => a - b);
}

/** The gaps (ms) between consecutive navigation starts. */
export const gapsOf = (starts: number[]): number[] => starts.slice(1).map((t, i) => t - starts[i]!);
