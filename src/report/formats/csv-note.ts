/**
 * The CSV report's note, in a module of its own so that the crawl's log can say it without loading the CSV writer.
 * @module
 */

/**
 * What `pages.csv` leaves out, said on the log when one is written (a CSV file has no place for
 * a note that every reader skips).
 */
export const CSV_NOTE =
  "one row per page and redirect record; left out: skipped URLs (robots, budget, trap ...), non-HTML files, each page's links (linkDetails, externalLinks) and issues about URLs without a row (off-site links): pages.jsonl and report.json have them";
