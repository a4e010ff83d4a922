/**
 * spacrawl's robots.txt product token, in a module that imports nothing, so that the option table
 * (`src/crawl/option-table.ts`) can show it in `--help` without loading the robots.txt parser.
 * @module
 */

/** The product token matched against robots.txt `User-agent` lines (DESIGN.md). */
export const ROBOTS_TOKEN = 'spacrawl';
