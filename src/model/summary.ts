/**
 * The crawl's totals and why it ended: types shared by the crawl, the reports and the CLI. This
 * module imports nothing.
 * @module
 */

/** The crawl's totals, counted as DESIGN.md defines ("Counting, everywhere"). */
export interface CrawlSummary {
  schemaVersion: number;
  /** Records with `skipped: null` that carry a rendered document (redirect records are not pages). */
  pages: number;
  /** Redirect records: in-scope URLs that only forward to a page recorded under another URL. */
  redirects: number;
  /** Pages with a 2xx status. */
  ok: number;
  /** Pages with an `error` or a status >= 400. */
  errors: number;
  /** Records skipped because robots.txt disallowed them. */
  robotsSkipped: number;
  /**
   * Of `robotsSkipped`, the records whose origin's robots.txt answered with a 5xx (the origin is
   * treated as disallowed, RFC 9309 §2.3.1.4), not disallowed by a rule. A host that gave no
   * answer at all is not here: see `unreachable`.
   */
  robotsUnavailable: number;
  /**
   * Of `errors`, the URLs whose host could not be reached at all, not even for robots.txt (connection
   * refused, DNS failure, timeout): nothing was requested from them.
   */
  unreachable: number;
  /** Records skipped for any reason, by reason. */
  skipped: Record<string, number>;
  /** Distinct canonical URLs the crawl saw (records plus out-of-scope links). */
  uniqueUrls: number;
  /** Pages flagged as soft 404s (HTTP 200 rendering a "not found" screen). */
  soft404: number;
  /** Pages that reached the settle cap without going quiet. */
  unsettled: number;
  /** URLs seeded from sitemaps (`--sitemap`; 0 otherwise). */
  sitemapUrls: number;
  /** Pages found only through a sitemap: no crawled page links to them. */
  orphans: string[];
  /** Things worth knowing about how the crawl judged pages (e.g. soft-404 matching switched off). */
  notes: string[];
  /** URL parameters learned as not changing content, as `origin: name, …`. */
  learnedParams: string[];
  /** Wall time of the crawl (ms). */
  elapsedMs: number;
  /** Why the crawl ended. */
  endReason: EndReason;
  /** Logins of a crawl behind a login (`--login`); absent without one. */
  logins?: LoginTotals;
  /**
   * The optional checks this crawl ran, by flag (`a11y`, `vitals`, `check-external`,
   * `check-fragments`): a diff with a crawl that did not run one compares none of its findings.
   * Absent when none ran.
   */
  checks?: string[];
  /** Absolute path of the screenshots folder (`--screenshots`, or `--output-dir`'s `screenshots/`); absent without screenshots. */
  screenshotsDir?: string;
}

/** The logins of a crawl behind a login. */
export interface LoginTotals {
  /** Logins that succeeded, the first included. */
  logins: number;
  /** Logins after the session ended (re-logins). */
  relogins: number;
  /** Logins that failed (a step threw, or the page it ended on still looked logged out). */
  failedLogins: number;
  /** Visits that found the session logged out: not recorded, visited again. */
  loggedOutVisits: number;
  /** URLs recorded as they are although the working session is sent to the login page there (another role's pages). */
  restricted: number;
}

/** Why a crawl ended: the frontier ran dry, a budget ran out, or it was interrupted. */
export type EndReason = 'done' | 'max-pages' | 'max-time' | 'interrupted';

