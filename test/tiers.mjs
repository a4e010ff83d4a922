// Which test file runs in which vitest tier: read by vitest.config.ts, by scripts/test-times.mjs
// (`npm run test:times`) and by test/unit/layers.test.ts. A file belongs to `browser` unless it is
// listed in `unit` or `process`. Entries are a plain file or "dir/**/*.test.ts".

/** No browser and no child process: files run in parallel and share their worker's module cache. */
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

/**
 * What needs a real process: `bin/run.js` spawned (exit codes, signals, kill -9 and resume, several
 * workers, the bin's own start), or a process holding a file lock. CLI behaviour that needs none of
 * that runs in-process (`runInProcess` in test/helpers/cli.ts) in the browser tier.
 */
export const PROCESS_TESTS = [
  'test/cli.test.ts',
  'test/progress.test.ts',
  'test/resume.test.ts',
  'test/redis.test.ts',
  'test/store/sqlite.test.ts',
  'test/diff/in-process.test.ts',
  'test/action/action.test.ts',
  'test/login-cli.test.ts',
  'test/status-state.test.ts',
  'test/metrics.test.ts',
  'test/startup.test.ts',
  'test/interrupt.test.ts',
];

/**
 * The browser and process tiers' longest files, longest first (`npm run test:times` on a 2-core machine): they start
 * first (test/sequencer.ts), so that the two workers end together instead of one running a long file alone at the end.
 */
export const LONGEST_FIRST = [
  'test/redis.test.ts',
  'test/resume.test.ts',
  'test/login.test.ts',
  'test/explore.test.ts',
  'test/crawl-tree.test.ts',
  'test/login-cli.test.ts',
  'test/cli.test.ts',
  'test/politeness.test.ts',
  'test/diff/demo-diff.test.ts',
  'test/unresponsive.test.ts',
  'test/status-state.test.ts',
  'test/diff/visual-diff.test.ts',
  'test/history-routes.test.ts',
  'test/hash-routes.test.ts',
];

/**
 * `true` when `file` (a path from the checkout's root, `/`-separated) is named by `entry`.
 * @param {string} file
 * @param {string} entry
 * @returns {boolean}
 */
export function matchesEntry(file, entry) {
  const dir = entry.match(/^(.*\/)\*\*\/\*\.test\.ts$/);
  return dir ? file.startsWith(dir[1]) && file.endsWith('.test.ts') : file === entry;
}

/**
 * The tier of a test file: `e2e` for Playwright Test files, else `unit`, `process` or `browser`.
 * @param {string} file - path from the checkout's root
 * @returns {'unit' | 'browser' | 'process' | 'e2e'}
 */
export function tierOf(file) {
  if (file.startsWith('test/e2e/')) return 'e2e';
  if (UNIT_TESTS.some((e) => matchesEntry(file, e))) return 'unit';
  if (PROCESS_TESTS.some((e) => matchesEntry(file, e))) return 'process';
  return 'browser';
}
