/**
 * `--help`, `--version`, a bad flag and bad input (a usage error found by a command's own checks:
 * no seed, a bad URL, a bad value, a missing file) answer without loading the crawl's machinery:
 * no browser driver, no store client, no image comparison, no metrics, no report formats (issue
 * #31: "a CLI that answers at once"). Each case spawns `node bin/run.js` with a preload that
 * records every module the process loaded (test/helpers/record-modules.mjs) and checks which
 * packages are among them. It asserts what loads, never how long it takes.
 * test/unit/startup-imports.test.ts checks the same on the import graph, without a process.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, REPO } from './helpers/cli.js';
import { HEAVY_PACKAGES as HEAVY } from './helpers/heavy-packages.js';


const RECORDER = path.join(REPO, 'test', 'helpers', 'record-modules.mjs');

let tmp: string;
let n = 0;

beforeAll(() => {
  assertBuilt(); // spawned runs execute dist/: built beforehand (npm test does), never here
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-startup-'));
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** What one spawned run loaded. */
interface Loaded {
  code: number | null;
  stderr: string;
  /** npm packages loaded, by name (`@scope/name` or `name`). */
  packages: Set<string>;
  /** spacrawl's own modules loaded, relative to dist/src/ (e.g. `commands/crawl.js`). */
  own: string[];
}

/** Run `node bin/run.js ARGS…` with the module recorder and read back what it loaded. */
function loadedBy(args: string[]): Promise<Loaded> {
  const out = path.join(tmp, `modules-${++n}.txt`);
  const env: NodeJS.ProcessEnv = { ...process.env, SPACRAWL_RECORD_MODULES: out };
  delete env.SPACRAWL_DEBUG;
  delete env.NODE_OPTIONS;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', RECORDER, BIN, ...args], { cwd: REPO, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const urls = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean) : [];
      const packages = new Set(urls.flatMap((u) => u.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []));
      const own = [...new Set(urls.flatMap((u) => u.match(/\/dist\/src\/(.+)$/)?.[1] ?? []))].sort();
      resolve({ code, stderr, packages, own });
    });
  });
}

describe('startup: help and usage errors load none of the crawl machinery', () => {
  it('the recorder sees what a command loads (CommonJS and ES modules)', async () => {
    // A diff that runs loads the image comparison: pngjs (CommonJS) and pixelmatch (an ES module).
    const side = path.join(tmp, 'side.jsonl');
    fs.writeFileSync(side, `${JSON.stringify({ url: 'http://a.test/', depth: 0, status: 200 })}\n`);
    const r = await loadedBy(['diff', side, side]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.packages).toContain('@oclif/core');
    expect(r.packages).toContain('pngjs');
    expect(r.packages).toContain('pixelmatch');
    expect(r.own).toContain('diff/diff.js');
  });

  const cases: { args: string[]; code: number }[] = [
    { args: ['--help'], code: 0 },
    { args: ['--version'], code: 0 },
    { args: ['crawl', '--help'], code: 0 },
    { args: ['help', 'demo'], code: 0 },
    { args: ['diff', '-h'], code: 0 },
    { args: ['export', '--help'], code: 0 },
    { args: ['login', '--help'], code: 0 },
    { args: ['robots', '--help'], code: 0 },
    { args: ['status', '--help'], code: 0 },
    { args: ['crawl', 'http://x', '--bogus'], code: 2 },
    { args: ['crawl', 'http://x', '--concurency', '3'], code: 2 },
    { args: ['login', 'http://x'], code: 2 },
  ];
  for (const { args, code } of cases) {
    it(`spacrawl ${args.join(' ')}`, async () => {
      const r = await loadedBy(args);
      expect(r.code, r.stderr).toBe(code);
      expect(HEAVY.filter((p) => r.packages.has(p))).toEqual([]);
      // Nor spacrawl's own browser layer (Playwright's users).
      expect(r.own.filter((f) => f.startsWith('browser/'))).toEqual([]);
    });
  }

  // Bad input found by the commands' own checks (not by oclif's flag parsing): exit 2 and one line,
  // before the work's packages load. Paths are relative to the checkout (the runs' folder);
  // `package.json/out` cannot be created (a part of it is a file).
  const usage: { args: string[]; line: string }[] = [
    { args: ['crawl'], line: 'give at least one seed URL, e.g. spacrawl crawl https://example.com/' },
    { args: ['crawl', 'not-a-url'], line: 'Invalid URL "not-a-url": expected an absolute http:// or https:// seed URL' },
    { args: ['crawl', 'http://x/', '--rate', 'x'], line: '--rate must be a positive number of page navigations per second, got "x"' },
    { args: ['crawl', 'http://x/', '--metrics', 'bad'], line: '--metrics "bad": expected PORT or HOST:PORT, e.g. 9464 or 0.0.0.0:9464' },
    { args: ['crawl', 'http://x/', '--output-dir', 'package.json/out'], line: `cannot write to --output-dir ${path.join(REPO, 'package.json/out')}: a part of its path is a file, not a folder` },
    { args: ['crawl', 'http://x/', '--report', 'bogus'], line: 'unknown report format "bogus" (known: jsonl, json, csv, html, junit, sitemap, markdown)' },
    { args: ['crawl', 'http://x/', '--fail-on', 'new'], line: '--fail-on new: "new" needs --baseline (the crawl to compare with)' },
    { args: ['crawl', 'http://x/', '--include', '/(/'], line: 'Invalid pattern "/(/": Invalid regular expression: /(/: Unterminated group' },
    { args: ['crawl', 'http://x/', '--redis', 'bad', '--crawl-id', 'x'], line: '--redis must be a redis:// or rediss:// URL, got "bad"' },
    { args: ['crawl', 'http://x/', '--baseline', 'none.jsonl', '--visual-threshold', '200'], line: '--visual-threshold must be a percent from 0 to 100, got "200"' },
    { args: ['crawl', 'http://x/', '--baseline', 'none.jsonl'], line: '--baseline none.jsonl: no such file or folder' },
    { args: ['crawl', 'http://x/', '--proxy', 'bad'], line: '--proxy must be a proxy server URL such as http://proxy:3128 or socks5://127.0.0.1:1080, got "bad"' },
    { args: ['diff', 'none-a.jsonl', 'none-b.jsonl'], line: 'none-a.jsonl: no such file or folder' },
    { args: ['diff', 'a', 'b', '--report', 'bogus'], line: 'unknown report format "bogus" for diff (known: markdown, json, html, junit)' },
    { args: ['export', '--state', 'none.db', '--report', 'json'], line: `no state file at ${path.join(REPO, 'none.db')}` },
    { args: ['status', '--redis', 'bad', '--crawl-id', 'x'], line: '--redis must be a redis:// or rediss:// URL, got "bad"' },
    { args: ['login', 'not-a-url', '--login', 'none.mjs', '--save-state', 'state.json'], line: 'Invalid URL "not-a-url": expected an absolute http:// or https:// URL' },
    { args: ['robots', 'not-a-url'], line: 'Invalid URL "not-a-url": expected an absolute http:// or https:// URL' },
    { args: ['demo', '--output-dir', 'package.json/out'], line: `cannot write to --output-dir ${path.join(REPO, 'package.json/out')}: a part of its path is a file, not a folder` },
  ];
  for (const { args, line } of usage) {
    it(`spacrawl ${args.join(' ')} (usage error)`, async () => {
      const r = await loadedBy(args);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: `spacrawl: ${line}\n` });
      expect(HEAVY.filter((p) => r.packages.has(p))).toEqual([]);
      expect(r.own.filter((f) => f.startsWith('browser/'))).toEqual([]);
    });
  }
});
