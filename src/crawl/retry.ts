import type { VisitResult } from '../browser/visit.js';

/** Main-document statuses worth retrying: transient by definition (RFC 9110 §15.5.9, §15.6; RFC 6585 §4; RFC 8470 §5.2). */
export const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Should a visit be retried? Yes for a network error, a navigation timeout with no
 * main-document response, and the statuses in {@link RETRYABLE_STATUS}. No for terminal
 * statuses (404, 410, other 4xx) and for pages whose document arrived but which then hung,
 * crashed or looped on dialogs.
 */
export function isRetryable(res: VisitResult): boolean {
  if (res.interrupted) return false;
  if (res.status !== null) return RETRYABLE_STATUS.has(res.status) && (res.error === null || res.nonHtml);
  if (!res.error) return false;
  return res.error.code === 'network' || res.error.code === 'timeout' || res.error.code === 'navigation-failed';
}

/**
 * Parse a `Retry-After` value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
 * @param value - the header value
 * @param now - the time the response arrived (ms since epoch)
 * @returns milliseconds to wait from `now` (>= 0), or `null` when absent or unparsable
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/**
 * Exponential backoff with jitter: `baseMs * 2^(attempt-1)`, scaled by a random factor in
 * [0.75, 1.25), so retries of many URLs do not arrive together.
 * @param attempt - the attempt that just failed (1 = the first navigation)
 * @param baseMs - delay after the first failure (ms)
 */
export function backoffMs(attempt: number, baseMs = 1000, random: () => number = Math.random): number {
  return Math.round(baseMs * 2 ** Math.max(0, attempt - 1) * (0.75 + random() * 0.5));
}
