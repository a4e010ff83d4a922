import type { VisitResult } from '../browser/visit.js';

/** Main-document statuses worth retrying: transient by definition (RFC 9110 §15.5.9, §15.6; RFC 6585 §4; RFC 8470 §5.2). */
export const RETRYABLE_STATUS: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Chromium network errors (`net::ERR_*`, see Chromium's `net/base/net_error_list.h`) that the
 * same request meets again on every attempt: the browser refuses the URL or the port, a
 * redirect is invalid or loops, or the server's certificate is rejected. Retrying them only
 * delays the report.
 */
const TERMINAL_NETWORK_ERROR = /^ERR_(UNSAFE_PORT|INVALID_URL|DISALLOWED_URL_SCHEME|UNKNOWN_URL_SCHEME|BLOCKED_BY_[A-Z_]+|INVALID_REDIRECT|UNSAFE_REDIRECT|TOO_MANY_REDIRECTS|CERT_[A-Z_]+|SSL_VERSION_OR_CIPHER_MISMATCH|BAD_SSL_CLIENT_AUTH_CERT|CONTENT_DECODING_FAILED)$/;

/** Attempts after which a visit whose browser calls did not answer (`unresponsive`) is recorded as it is. */
export const UNRESPONSIVE_ATTEMPTS = 2;

/**
 * Should a visit be retried after `attempt` attempts (1 = the first)? Yes for a network error
 * (also one that lost the document's body after a good answer: a connection reset, a
 * `Content-Length` never filled), a navigation timeout with no main-document response, and the statuses in
 * {@link RETRYABLE_STATUS}; and once for a visit whose own browser calls did not answer
 * (`unresponsive`): a starved browser answers the next time, a page whose main thread hangs
 * does not (it is then recorded as it is). No for terminal statuses (404, 410, other 4xx), for
 * network errors that repeat on every attempt (a refused port such as `ERR_UNSAFE_PORT`, a
 * redirect loop, a rejected certificate, a body that cannot be decoded), and for pages whose document arrived but which then
 * crashed or looped on dialogs. The caller applies `--retries` on top.
 */
export function isRetryable(res: VisitResult, attempt = 1): boolean {
  if (res.interrupted) return false;
  if (res.error?.code === 'unresponsive') return attempt < UNRESPONSIVE_ATTEMPTS;
  // A network error, also one that lost the document's body after a good answer (a connection
  // reset, a length it never filled), unless it repeats on every attempt.
  if (res.error?.code === 'network' && (res.status === null || res.status < 400)) return !TERMINAL_NETWORK_ERROR.test(res.error.message);
  if (res.status !== null) return RETRYABLE_STATUS.has(res.status) && (res.error === null || res.nonHtml);
  if (!res.error) return false;
  return res.error.code === 'timeout' || res.error.code === 'navigation-failed';
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
