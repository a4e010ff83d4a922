import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**', 'dist/**'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // Browser tests are CPU-bound on a 2-core CI machine: one file at a time keeps timings honest.
    fileParallelism: false,
  },
});
