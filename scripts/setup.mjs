#!/usr/bin/env node
// Makes a fresh clone runnable: installs npm packages, builds TypeScript, and makes sure a
// Chromium exists (as root on Debian/Ubuntu: apt-get installs the `chromium` and
// `chromium-headless-shell` packages).
// Every step is skipped when it is already done. Used by `npm run demo`, `npm test`, `.ci/run`.
import { execSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (m) => process.stderr.write(`setup: ${m}\n`);
const run = (cmd, env = {}) => execSync(cmd, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });

function newest(dir, acc = 0) {
  if (!fs.existsSync(dir)) return acc;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const f = path.join(dir, e.name);
    if (e.isDirectory()) acc = newest(f, acc);
    else if (/\.(ts|js|json)$/.test(e.name)) acc = Math.max(acc, fs.statSync(f).mtimeMs);
  }
  return acc;
}
const mtime = (f) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0);

// 1. npm packages (never a browser download: Playwright's browsers are not fetched here).
const stamp = path.join(ROOT, 'node_modules', '.package-lock.json');
if (!fs.existsSync(stamp) || mtime(path.join(ROOT, 'package-lock.json')) > mtime(stamp)) {
  say('installing npm packages');
  const env = { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' };
  try {
    run(fs.existsSync(path.join(ROOT, 'package-lock.json')) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund', env);
  } catch {
    // A registry mirror can lack an optional package the lock file names; npm install copes.
    say('npm ci failed; trying npm install');
    try {
      run('npm install --no-audit --no-fund', env);
    } catch {
      say('could not install the npm packages (see npm\'s messages above)');
      process.exit(2);
    }
  }
}

// 2. TypeScript build.
const built = path.join(ROOT, 'dist', 'src', 'index.js');
const sources = Math.max(newest(path.join(ROOT, 'src')), newest(path.join(ROOT, 'fixtures')), mtime(path.join(ROOT, 'tsconfig.json')));
if (!fs.existsSync(built) || sources > mtime(built)) {
  say('building (tsc)');
  try {
    run('npx tsc -p tsconfig.json');
  } catch {
    say('the TypeScript build failed (see the errors above)');
    process.exit(2);
  }
  fs.utimesSync(built, new Date(), new Date());
}

// 3. A browser.
const { locateBrowser } = await import(pathToFileURL(path.join(ROOT, 'dist', 'src', 'browser', 'locate.js')).href);
function haveBrowser() {
  try {
    return locateBrowser(process.env.SPACRAWL_BROWSER_SETUP_PATH ?? null);
  } catch {
    return null;
  }
}
if (!haveBrowser()) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (isRoot && hasApt) {
    say('no Chromium found: installing Debian packages "chromium" and "chromium-headless-shell" (apt-get)');
    try {
      run('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', { DEBIAN_FRONTEND: 'noninteractive' });
    } catch {
      say('apt-get could not install chromium');
    }
    // The headless shell, which spacrawl prefers (about a fifth faster, see src/browser/locate.ts),
    // is optional: a release without the package still crawls with chromium.
    try {
      run('DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell', { DEBIAN_FRONTEND: 'noninteractive' });
    } catch {
      say('apt-get could not install chromium-headless-shell: crawling with chromium');
    }
  }
  const found = haveBrowser();
  if (!found) {
    say('no Chromium found. Install one (Debian/Ubuntu as root: apt-get install chromium; elsewhere: npx playwright install chromium) or set SPACRAWL_BROWSER=/path/to/chrome');
    process.exit(2);
  }
  say(`browser: ${found.executablePath}`);
}
