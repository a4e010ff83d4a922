/**
 * `--help`, `--version` and a bad flag answer without loading the crawl's machinery: no browser
 * driver, no store client, no image comparison, no metrics, no report formats (issue #31: "a CLI
 * that answers at once"). Each case spawns `node bin/run.js` with a preload that records every
 * module the process loaded (test/helpers/record-modules.mjs) and checks which packages are
 * among them. It asserts what loads, never how long it takes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, REPO } from './helpers/cli.js';

/** Packages only a command's work needs: none of them may load for help or a usage error. */
const HEAVY = [
  'playwright',
  'playwright-core',
  '@axe-core/playwright',
  'axe-core',
  'better-sqlite3',
  'ioredis',
  'prom-client',
  'pixelmatch',
  'pngjs',
  // the report formats and the live terminal log
  'csv-stringify',
  'fast-xml-parser',
  'log-update',
];

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
    // diff loads its sources (better-sqlite3, CommonJS) and the image comparison (pixelmatch, an
    // ES module) before it finds that the files are missing.
    const r = await loadedBy(['diff', path.join(tmp, 'none-a.jsonl'), path.join(tmp, 'none-b.jsonl')]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.packages).toContain('@oclif/core');
    expect(r.packages).toContain('better-sqlite3');
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
});
