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
