/**
 * What happens during a crawl besides its records, for whoever watches it (the metrics
 * endpoint, structured logs): retries, logins, browser relaunches, recovered leases,
 * politeness waits, notices. Told through `CrawlOptions.onEvent`, in the order they happen;
 * a listener must not throw and must not block (it runs inside the crawl).
 * @module
 */
import type { PageRecord } from '../model/record.js';

/** One event of a running crawl. Times in ms; URLs canonical unless named otherwise. */
export type CrawlEvent =
  /** A URL was decided: its record (also streamed by `records()`). */
  | { type: 'record'; record: PageRecord }
  /**
   * A page will be visited again: `reason` is `status 503`, `network error`, `browser crash`,
   * `browser unresponsive` or `logged out`; `message` is the failed attempt's error message (as a
   * record's `error.message`), `null` when it had none (a retryable status).
   */
  | { type: 'retry'; url: string; attempt: number; reason: string; message: string | null }
  /** A login ran: the first (`relogin: false`) or a re-login after the session ended; `ok: false` when it failed (`message` says why). */
  | { type: 'login'; relogin: boolean; ok: boolean; message: string | null }
  /** A visit found the session logged out (by `rule`). */
  | { type: 'logged-out'; url: string; rule: string }
  /** The browser crashed and was relaunched. */
  | { type: 'relaunch' }
  /** A URL was claimed by taking over a lease whose holder let it expire (a dead or stuck worker's). */
  | { type: 'lease-recovered'; url: string }
  /** A navigation waited `ms` (at least 5) for its host's politeness gap or pause (`host` is `host:port`). */
  | { type: 'politeness-wait'; host: string; ms: number }
  /** The browser refused a request to a sign-out URL (`url` as requested). */
  | { type: 'logout-blocked'; url: string }
  /** Something worth a log line (the same text `onNotice` gets). */
  | { type: 'notice'; message: string };

/** The `type`s of {@link CrawlEvent}. */
export type CrawlEventType = CrawlEvent['type'];
