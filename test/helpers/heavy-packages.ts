/**
 * Packages only a command's work needs: none of them may load for `--help` or a usage error
 * (test/startup.test.ts runs the bin; test/unit/startup-imports.test.ts reads the import graph).
 */
export const HEAVY_PACKAGES: readonly string[] = [
  'playwright',
  'playwright-core',
  '@axe-core/playwright',
  'axe-core',
  'better-sqlite3',
  'ioredis',
  'prom-client',
  'pixelmatch',
  'pngjs',
  // the report formats and the live terminal log
  'csv-stringify',
  'fast-xml-parser',
  'log-update',
];
