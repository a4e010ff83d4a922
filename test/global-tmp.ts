/**
 * The test run's temporary folder (vitest `globalSetup`): every worker, every process a test
 * spawns and every browser they launch write their temporary files under one fresh folder
 * (`TMPDIR`), removed when the run ends. A browser its test run cannot close itself (a worker's
 * shared Chromium when the worker is stopped, a crawl killed with SIGKILL) leaves its profile
 * folder there, not in the machine's temporary folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Make the run's folder and point `TMPDIR` at it (the workers and what they spawn inherit it).
 * @returns the teardown: `TMPDIR` as it was, the folder removed with all it holds
 */
export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-test-run-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
