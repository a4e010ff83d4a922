import { defineConfig } from 'vitest/config';

/**
 * Three tiers, run in this order by `vitest run` (`npm test`), or one at a time with `--project`:
 *
 * - `unit`: no browser and no child process (URL rules, option declarations, stores' contract over memory and
 *   SQLite and a local redis-server, report formats, the diff). Files run in parallel; the tier must stay under
 *   30 s on 2 cores (`npm run test:unit`).
 * - `browser`: real Chromium against fixture servers on 127.0.0.1; one file at a time, one browser per file,
 *   because these tests are CPU-bound on a 2-core CI machine.
 * - `process`: runs `bin/run.js` or the CLI in-process end to end (exit codes, signals, resume across processes,
 *   distributed workers); one file at a time.
 *
 * A test file belongs to `browser` unless listed in `unit` or `process`; test/unit/layers.test.ts also checks that
 * no `unit` file launches a browser.
 */
export const UNIT_TESTS = [
  'test/unit/**/*.test.ts',
  'test/url/**/*.test.ts',
  'test/model/**/*.test.ts',
  'test/crawl/**/*.test.ts',
  'test/store/frontier-contract.test.ts',
  'test/store/redis.test.ts',
  'test/diff/diff.test.ts',
  'test/diff/formats.test.ts',
  'test/diff/source.test.ts',
  'test/diff/checks.test.ts',
  'test/report-formats.test.ts',
  'test/report/**/*.test.ts',
  'test/report-stream.test.ts',
  'test/robots-directives.test.ts',
  'test/soft404-text.test.ts',
];

export const PROCESS_TESTS = [
  'test/cli.test.ts',
  'test/progress.test.ts',
  'test/resume.test.ts',
  'test/redis.test.ts',
  'test/store/sqlite.test.ts',
  'test/diff/cli.test.ts',
  'test/diff/in-process.test.ts',
  'test/diff/crawl-pair.test.ts',
  'test/diff/visual-diff.test.ts',
  'test/diff/screenshot-dirs.test.ts',
  'test/diff/demo-diff.test.ts',
  'test/diff/map-origin.test.ts',
  'test/interrupt.test.ts',
  'test/action/action.test.ts',
  'test/login-cli.test.ts',
];

const IGNORED = ['test/e2e/**', 'node_modules/**', 'dist/**'];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // Unit files share their worker's module cache (isolate: false): importing the sources again for each of
        // the ~27 files was two thirds of the tier's time (import 24 s of 64 s on a loaded 2-core machine, 9 s
        // without). Unit tests keep no state in modules they share; a test that needs it resets it.
        test: { name: 'unit', include: UNIT_TESTS, exclude: IGNORED, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/**/*.test.ts'],
          exclude: [...IGNORED, ...UNIT_TESTS, ...PROCESS_TESTS],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'process',
          include: PROCESS_TESTS,
          exclude: IGNORED,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
