/**
 * Process exit codes (DESIGN.md, "Exit codes"). Scripts may rely on these values.
 */
export const ExitCode = {
  /** The crawl finished and no failing rule matched. */
  Ok: 0,
  /** The crawl finished and a failing rule matched (a page with an error or status >= 400), or no seed could be crawled. */
  Findings: 1,
  /** Bad usage or input found before crawling: invalid URL or flag, unwritable output, no browser. */
  Usage: 2,
  /** Aborted by an infrastructure failure (browser that cannot be relaunched, state store); partial output flushed. */
  Infrastructure: 3,
  /** Interrupted by SIGINT; partial output flushed. */
  Sigint: 130,
  /** Interrupted by SIGTERM; partial output flushed. */
  Sigterm: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];
