import os from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/sequencer.js';
import { PROCESS_TESTS, UNIT_TESTS } from './test/tiers.mjs';

export { PROCESS_TESTS, UNIT_TESTS };

/**
 * Three tiers (`test/tiers.mjs` says which file is in which), run by `vitest run` (`npm test`), or one at a time
 * with `--project`:
 *
 * - `unit`: no browser and no child process (URL rules, option declarations, stores' contract over memory and
 *   SQLite and a local redis-server, report formats, the diff). Runs first, files in parallel; seconds on 2 cores
 *   (`npm run test:unit`).
 * - `browser`: real Chromium against fixture servers on 127.0.0.1, and CLI runs in-process.
 * - `process`: what needs a real process: `bin/run.js` spawned (exit codes, signals, kill -9 and resume,
 *   distributed workers).
 *
 * `browser` and `process` run together after `unit`, one file per worker and as many workers as cores (2 on CI):
 * most of their time is waiting (fixture latencies, politeness gaps, settle windows, other processes), so two
 * files side by side use a 2-core machine that one file leaves half idle. Files share no port (servers listen on
 * port 0), no folder (each makes its own temporary one) and no global state. `browser` files share their worker's
 * module cache (isolate: false), so the worker's one Chromium (`test/helpers/browser.ts`) serves every file it
 * runs; `process` files are isolated.
 *
 * test/unit/layers.test.ts checks that no `unit` file launches a browser or a process.
 */
const IGNORED = ['test/e2e/**', 'node_modules/**', 'dist/**'];

export default defineConfig({
  test: {
    // `npm run test:times` (scripts/test-times.mjs) sets TEST_TIMES_OUT: each file's and test's time, as JSON.
    reporters: process.env.TEST_TIMES_OUT ? ['default', './scripts/times-reporter.mjs'] : ['default'],
    // As many workers as cores, at least 2: vitest's default for `run` is one less than the cores, so a 2-core
    // machine ran every file one after the other, while most of a browser test's time is waiting.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // The longest files of the browser and process tiers start first (test/tiers.mjs LONGEST_FIRST).
    sequence: { sequencer: LongestFirst },
    // One temporary folder for the whole run, removed at its end (see test/global-tmp.ts).
    globalSetup: ['./test/global-tmp.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        // Unit files share their worker's module cache (isolate: false): importing the sources again for each of
        // the ~27 files was two thirds of the tier's time (import 24 s of 64 s on a loaded 2-core machine, 9 s
        // without). Unit tests keep no state in modules they share; a test that needs it resets it.
        test: { name: 'unit', include: [...UNIT_TESTS], exclude: IGNORED, isolate: false, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/**/*.test.ts'],
          exclude: [...IGNORED, ...UNIT_TESTS, ...PROCESS_TESTS],
          isolate: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: { name: 'process', include: [...PROCESS_TESTS], exclude: IGNORED, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
