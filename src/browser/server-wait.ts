import type { Request } from 'playwright';

/**
 * How long a page waited for servers to answer: the union of the intervals from each request's
 * start to the first byte of its response (the main document, its redirects, and every request
 * of the page), so requests in parallel count once and requests in sequence add up.
 *
 * The times are the browser's network timings (Playwright's `Request.timing()`, taken by
 * Chromium's network stack), not the moments the crawler's process heard of them, and they
 * leave out what the page computed between requests: a renderer that waits for the CPU (its own
 * heavy scripts, or other pages of a crawl at high concurrency on few cores) does not make a
 * page slower by this measure. Bodies are not counted (a body the page reads late would count the
 * page's own pace), nor requests still unanswered when the page is read (a long poll is not a
 * slow page; such a page is `settled: false`).
 */
export class ServerWait {
  /** `[start, firstByte]` intervals, ms since epoch. */
  private readonly spans: [number, number][] = [];

  /**
   * Count a request whose response headers have arrived. Requests without network timing (a
   * memory-cache hit, a response the page made up) are left out.
   */
  add(request: Request): void {
    const t = request.timing();
    if (!(t.startTime > 0) || !(t.responseStart >= 0)) return;
    this.spans.push([t.startTime, t.startTime + t.responseStart]);
  }

  /** The union of the waits counted so far (ms, rounded). */
  totalMs(): number {
    return Math.round(unionLength(this.spans));
  }
}

/** Total length covered by a set of intervals (overlaps counted once). */
export function unionLength(spans: readonly (readonly [number, number])[]): number {
  const sorted = [...spans].filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const [s, e] of sorted) {
    if (s > end) {
      if (end > start) total += end - start;
      start = s;
      end = e;
    } else if (e > end) end = e;
  }
  if (end > start) total += end - start;
  return total;
}
