import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BrowserNotFoundError, HEADLESS_SHELLS, isHeadlessShell, locateBrowser } from '../../src/browser/locate.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-locate-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** An executable file named `name` in the test's folder. */
function executable(name: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, '#!/bin/sh\n');
  fs.chmodSync(f, 0o755);
  return f;
}

describe('isHeadlessShell', () => {
  it('tells the headless shells by file name: Debian\'s, Playwright\'s, Chrome for Testing\'s', () => {
    for (const p of [...HEADLESS_SHELLS, '/usr/bin/chromium-headless-shell', '/root/.cache/ms-playwright/chromium_headless_shell-1200/chrome-linux/headless_shell', '/opt/chrome-headless-shell']) expect([p, isHeadlessShell(p)]).toEqual([p, true]);
    for (const p of ['/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/bin/google-chrome', '/opt/headless-shell-tools/chrome']) expect([p, isHeadlessShell(p)]).toEqual([p, false]);
  });
});

describe('locateBrowser', () => {
  it('takes --browser-path, then SPACRAWL_BROWSER, before anything it would find', () => {
    const flag = executable('from-flag');
    const env = executable('from-env');
    expect(locateBrowser(flag, { SPACRAWL_BROWSER: env, PATH: '' })).toEqual({ executablePath: flag, source: 'flag' });
    expect(locateBrowser(null, { SPACRAWL_BROWSER: env, PATH: '' })).toEqual({ executablePath: env, source: 'env' });
  });

  it('refuses a path that is not an executable file, naming where it came from', () => {
    const plain = path.join(dir, 'not-executable');
    fs.writeFileSync(plain, '');
    expect(() => locateBrowser(plain, {})).toThrow(new BrowserNotFoundError(`--browser-path ${plain} is not an executable file`));
    expect(() => locateBrowser(null, { SPACRAWL_BROWSER: dir })).toThrow(new BrowserNotFoundError(`SPACRAWL_BROWSER=${dir} is not an executable file`));
  });
});
