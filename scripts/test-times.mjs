#!/usr/bin/env node
// `npm run test:times`: where the suite's time goes. Runs the vitest tiers (reporter:
// scripts/times-reporter.mjs) and the Playwright Test suites (JSON reporter), keeps their results in
// .test-times/ (Playwright empties test-results/), then prints the time of each tier, the slowest files and the slowest tests.
//
//   npm run test:times                      # run everything, then print
//   npm run test:times -- --tier browser    # one vitest tier (unit, browser, process) or e2e
//   npm run test:times -- --from DIR        # print from an earlier run (DIR/vitest.json, DIR/e2e.json)
//   npm run test:times -- --top 30          # how many files and tests to list (default 20)
//
// A file's seconds are its import, setup, tests and hooks; files that run side by side add up to
// more than the run's wall time, which is printed apart.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tierOf } from '../test/tiers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const top = Number(opt('--top', '20'));
const tier = opt('--tier', null);
const from = opt('--from', null);
const dir = from ? path.resolve(from) : path.join(ROOT, '.test-times');

if (!from) {
  fs.mkdirSync(dir, { recursive: true });
  if (tier !== 'e2e') {
    const project = tier ? ['--project', tier] : [];
    spawnSync('npx', ['vitest', 'run', ...project], {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, TEST_TIMES_OUT: path.join(dir, 'vitest.json') },
    });
  } else fs.rmSync(path.join(dir, 'vitest.json'), { force: true });
  if (!tier || tier === 'e2e') {
    const t0 = Date.now();
    const r = spawnSync('npx', ['playwright', 'test', '--reporter=json'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 });
    fs.writeFileSync(path.join(dir, 'e2e.json'), r.stdout);
    fs.writeFileSync(path.join(dir, 'e2e-wall.json'), JSON.stringify({ wallMs: Date.now() - t0 }));
  } else fs.rmSync(path.join(dir, 'e2e.json'), { force: true });
}

/** @type {{file: string, tier: string, tests: number, failed: number, s: number}[]} */
const files = [];
/** @type {{file: string, name: string, s: number}[]} */
const tests = [];
/** @type {Record<string, number>} wall time of each runner (s) */
const wall = {};

const vitestFile = path.join(dir, 'vitest.json');
if (fs.existsSync(vitestFile)) {
  const v = JSON.parse(fs.readFileSync(vitestFile, 'utf8'));
  wall.vitest = v.wallMs / 1000;
  for (const f of v.files) {
    files.push({
      file: f.file,
      tier: f.project || tierOf(f.file),
      tests: f.tests.length,
      failed: f.tests.filter((t) => t.state === 'failed').length,
      s: f.ms / 1000,
    });
    for (const t of f.tests) tests.push({ file: f.file, name: t.name, s: t.ms / 1000 });
  }
}

const e2eFile = path.join(dir, 'e2e.json');
if (fs.existsSync(e2eFile)) {
  const text = fs.readFileSync(e2eFile, 'utf8');
  const e = JSON.parse(text.slice(text.indexOf('{')));
  const e2eWall = path.join(dir, 'e2e-wall.json');
  wall.e2e = fs.existsSync(e2eWall) ? JSON.parse(fs.readFileSync(e2eWall, 'utf8')).wallMs / 1000 : (e.stats?.duration ?? 0) / 1000;
  const perFile = new Map();
  const walk = (suite, file, names) => {
    const f = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      for (const t of spec.tests ?? []) {
        const s = (t.results ?? []).reduce((acc, r) => acc + (r.duration ?? 0), 0) / 1000;
        const failed = (t.results ?? []).some((r) => r.status !== 'passed' && r.status !== 'skipped');
        const entry = perFile.get(f) ?? { tests: 0, failed: 0, s: 0 };
        entry.tests++;
        entry.failed += failed ? 1 : 0;
        entry.s += s;
        perFile.set(f, entry);
        tests.push({ file: `test/e2e/${f}`, name: [...names, spec.title].join(' > '), s });
      }
    }
    for (const child of suite.suites ?? []) walk(child, f, suite.file ? names : [...names, suite.title]);
  };
  for (const s of e.suites ?? []) walk(s, s.file, []);
  for (const [f, v] of perFile) files.push({ file: `test/e2e/${f}`, tier: 'e2e', ...v });
}

if (files.length === 0) {
  console.error(`test-times: no results in ${dir}`);
  process.exit(2);
}

const total = files.reduce((a, f) => a + f.s, 0);
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

console.log('\nper tier (sum of file times; s)');
for (const t of ['unit', 'browser', 'process', 'e2e']) {
  const of = files.filter((f) => f.tier === t);
  if (of.length === 0) continue;
  const s = of.reduce((a, f) => a + f.s, 0);
  const n = of.reduce((a, f) => a + f.tests, 0);
  console.log(`  ${pad(t, 8)} ${lpad(of.length, 3)} files ${lpad(n, 5)} tests ${lpad(s.toFixed(1), 8)} s`);
}
for (const [k, v] of Object.entries(wall)) console.log(`  wall time of ${k}: ${v.toFixed(1)} s`);
console.log(`  all: ${files.length} files, ${files.reduce((a, f) => a + f.tests, 0)} tests, ${files.reduce((a, f) => a + f.failed, 0)} failed`);

console.log(`\nslowest files (of ${files.length})`);
console.log(`  ${pad('file', 44)} ${pad('tier', 8)} ${lpad('tests', 5)} ${lpad('s', 7)} ${lpad('%', 5)}`);
for (const f of [...files].sort((a, b) => b.s - a.s).slice(0, top)) {
  console.log(`  ${pad(f.file, 44)} ${pad(f.tier, 8)} ${lpad(f.tests, 5)} ${lpad(f.s.toFixed(1), 7)} ${lpad(((100 * f.s) / total).toFixed(1), 5)}`);
}

console.log(`\nslowest tests (of ${tests.length})`);
for (const t of [...tests].sort((a, b) => b.s - a.s).slice(0, top)) {
  console.log(`  ${lpad(t.s.toFixed(1), 6)} s  ${t.file} > ${t.name.length > 110 ? `${t.name.slice(0, 107)}...` : t.name}`);
}
