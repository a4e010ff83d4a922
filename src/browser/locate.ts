import fs from 'node:fs';
import path from 'node:path';
import { chromium } from './playwright.js';
import { UsageError } from '../model/errors.js';

/** Where a browser executable came from. */
export type BrowserSource = 'flag' | 'env' | 'playwright' | 'system';

/** A Chromium executable that exists on this machine. */
export interface LocatedBrowser {
  executablePath: string;
  source: BrowserSource;
}

/** Thrown when no usable Chromium is found; the CLI maps it to exit code 2. */
export class BrowserNotFoundError extends UsageError {
  readonly code = 'no-browser';
  constructor(message: string) {
    super(message);
    this.name = 'BrowserNotFoundError';
  }
}

/**
 * Chromium's headless shell (the build Playwright itself runs for headless Chromium), where
 * distributions install the binary: Debian's `chromium-headless-shell` package. Its `/usr/bin`
 * wrapper runs the binary without `exec`, so the binary is used directly: the browser is then
 * the process spacrawl launched (a relaunch after a crash, and signals, reach it). Measured here
 * against the full `chromium` at concurrency 4 (docs/bench.md): about a fifth less wall time,
 * CPU and memory on both shared real sites, and every tab draws frames, not only the front one.
 */
export const HEADLESS_SHELLS: readonly string[] = ['/usr/lib/chromium/chromium-headless-shell'];

/**
 * Whether `executablePath` is a Chromium headless shell (Debian's `chromium-headless-shell`,
 * Playwright's `chrome-headless-shell` or `headless_shell`), by its file name.
 */
export function isHeadlessShell(executablePath: string): boolean {
  return /headless[-_]shell/.test(path.basename(executablePath));
}

/** System Chromium names looked up on `PATH` and in the usual places, in this order (after {@link HEADLESS_SHELLS}). */
export const SYSTEM_BROWSERS: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function onPath(name: string, envPath: string | undefined): string | null {
  const dirs = (envPath ?? '').split(path.delimiter).filter(Boolean);
  for (const d of [...dirs, '/usr/bin', '/usr/local/bin', '/snap/bin']) {
    const f = path.join(d, name);
    if (isExecutable(f)) return f;
  }
  return null;
}

/**
 * Find a Chromium to drive, in this order: `explicitPath` (the `--browser-path` flag), the
 * `SPACRAWL_BROWSER` environment variable, Playwright's own Chromium when it is installed,
 * a system headless shell ({@link HEADLESS_SHELLS}), then a system Chromium (`chromium`,
 * `chromium-browser`, `google-chrome`).
 * Never downloads anything.
 * @param explicitPath - path given on the command line, if any
 * @param env - environment to read (`SPACRAWL_BROWSER`, `PATH`); defaults to `process.env`
 * @throws BrowserNotFoundError if an explicit path does not exist or nothing is found
 */
export function locateBrowser(explicitPath?: string | null, env: NodeJS.ProcessEnv = process.env): LocatedBrowser {
  if (explicitPath) {
    if (!isExecutable(explicitPath)) throw new BrowserNotFoundError(`--browser-path ${explicitPath} is not an executable file`);
    return { executablePath: explicitPath, source: 'flag' };
  }
  const fromEnv = env.SPACRAWL_BROWSER;
  if (fromEnv) {
    if (!isExecutable(fromEnv)) throw new BrowserNotFoundError(`SPACRAWL_BROWSER=${fromEnv} is not an executable file`);
    return { executablePath: fromEnv, source: 'env' };
  }
  try {
    const own = chromium.executablePath();
    if (own && isExecutable(own)) return { executablePath: own, source: 'playwright' };
  } catch {
    // Playwright does not know a Chromium for this platform: fall through to the system one.
  }
  for (const shell of HEADLESS_SHELLS) if (isExecutable(shell)) return { executablePath: shell, source: 'system' };
  for (const name of SYSTEM_BROWSERS) {
    const found = onPath(name, env.PATH);
    if (found) return { executablePath: found, source: 'system' };
  }
  throw new BrowserNotFoundError(
    'no Chromium found: install one (Debian/Ubuntu: apt-get install chromium; elsewhere: npx playwright install chromium), or pass --browser-path / set SPACRAWL_BROWSER',
  );
}
