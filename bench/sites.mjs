#!/usr/bin/env node
// Real-site benchmark: crawls each shared real site (../shared/sites, or SPACRAWL_SITES) with
// spacrawl's CLI, as a user would, and with Crawlee's PlaywrightCrawler (navigation waits for
// network idle; same concurrency, same browser), in the same run, one after the other.
//
//   npm run bench -- --sites                                  every site, concurrency 4, one run: spacrawl, Crawlee and the floor
//   node bench/sites.mjs --site typedoc-axios --runs 3 --concurrency 4
//   node bench/sites.mjs --no-crawlee --spacrawl-args "--click off"
//   node bench/sites.mjs --no-floor       without the floor (by default every run also has the floor:
//                                         plain Playwright loading pages.txt, bench/floor-site.mjs)
//
// Crawlee 3.18.1 and Playwright 1.65.1 are installed on first use into bench/.crawlee/ (npm, with
// PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1: Crawlee drives the Chromium spacrawl finds); they are never
// dependencies of spacrawl. Crawlee cannot see links that need clicks, so it is given the site's
// pages.txt as further start URLs: both crawlers render the same pages, and Crawlee's "found"
// counts only the listed pages reachable from `/` over the links it read.
//
// Per site and crawler: pages found (of pages.txt), pages rendered, wall time (process start to
// exit), pages/s, CPU s per page (the crawler process and every process below it, sampled: Chromium's
// renderers end without being waited for up the tree), peak memory of
// that process tree (100 ms samples; PSS every 5 s), median and p95 wasted wait (read time − the
// last change to the page's links or title, `timings.lastChangeMs`), requests the site served, and
// spacrawl's time and memory as fractions of Crawlee's; then a second table: CPU seconds by kind of
// process (Node, browser, renderers, network service ...) and each crawler's wall time over the
// floor's of the same run. The machine's load average is printed
// with every run: the machine may be shared. Writes bench/results/sites-<date>.json.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { locateBrowser } from '../dist/src/browser/locate.js';
import { pct, reapedChildrenCpuS, sampler, stolenCpuS } from './sampling.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const SITES = process.env.SPACRAWL_SITES ?? path.resolve(ROOT, '..', 'shared', 'sites');
const CRAWLEE_DIR = path.join(HERE, '.crawlee');
const CRAWLEE_PACKAGES = ['crawlee@3.18.1', 'playwright@1.65.1'];

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const allSites = fs.readdirSync(SITES).filter((d) => fs.existsSync(path.join(SITES, d, 'pages.txt'))).sort();
const sites = opt('site', allSites.join(',')).split(',').filter(Boolean);
const concurrency = Number(opt('concurrency', '4'));
const runs = Number(opt('runs', '1'));
const withCrawlee = !args.includes('--no-crawlee');
// The floor (plain loads of pages.txt) runs by default: spacrawl is measured against it (--no-floor to skip).
const withFloor = !args.includes('--no-floor');
const spacrawlArgs = (opt('spacrawl-args', '') ?? '').split(' ').filter(Boolean);

/** Install Crawlee into bench/.crawlee/ unless it is there (exact versions, no browser download). */
function ensureCrawlee() {
  const installed = (name) => {
    try {
      return JSON.parse(fs.readFileSync(path.join(CRAWLEE_DIR, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  if (CRAWLEE_PACKAGES.every((p) => installed(p.slice(0, p.lastIndexOf('@'))) === p.slice(p.lastIndexOf('@') + 1))) return;
  process.stderr.write(`installing ${CRAWLEE_PACKAGES.join(' ')} into ${path.relative(ROOT, CRAWLEE_DIR)}/ …\n`);
  fs.mkdirSync(CRAWLEE_DIR, { recursive: true });
  const pkg = path.join(CRAWLEE_DIR, 'package.json');
  if (!fs.existsSync(pkg)) fs.writeFileSync(pkg, `${JSON.stringify({ name: 'spacrawl-bench-crawlee', private: true }, null, 2)}\n`);
  const r = spawnSync('npm', ['install', '--prefix', CRAWLEE_DIR, '--save-exact', '--no-audit', '--no-fund', ...CRAWLEE_PACKAGES], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
  });
  if (r.status !== 0) throw new Error(`npm install into ${CRAWLEE_DIR} failed (exit ${r.status})`);
}

/** Serve a shared site on a free port; `requests` collects the paths it is asked for. */
function startSite(site) {
  const child = spawn(process.execPath, [path.join(SITES, 'serve.mjs'), site, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const requests = [];
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const port = /^listening on (\d+)/.exec(line)?.[1];
      if (port) resolve({ origin: `http://127.0.0.1:${port}`, requests, close: () => child.kill() });
      const req = /^REQ \S+ (\S+)/.exec(line)?.[1];
      if (req) requests.push(req);
    });
  });
}

/** Run `argv` to its end while sampling its process tree; wall time, CPU, memory, load. */
async function measured(argv, env = {}) {
  const load0 = os.loadavg()[0];
  const stolen0 = stolenCpuS();
  const cpu0 = reapedChildrenCpuS();
  const t0 = Date.now();
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const s = sampler(child.pid);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wall = (Date.now() - t0) / 1000;
  const st = s.stop();
  // CPU of the whole tree. What this process reaped counts only the processes waited for up the
  // tree: the crawler and Chromium's browser process, not its renderers (on Elements 54 CPU-s of
  // the 223 the samples saw, for 129 s of both cores busy). The samples count every process.
  const reapedCpuS = reapedChildrenCpuS() - cpu0;
  const cpuS = Math.max(reapedCpuS, st.cpuS);
  if (code !== 0 && code !== 1) process.stderr.write(`  exit ${code}: ${stderr.slice(-2000)}\n`);
  return { code, wall, cpuS, reapedCpuS, sampledCpuS: st.cpuS, cpuByKind: st.cpuByKind, peakMb: st.peakMb, peakPssMb: st.peakPssMb, load: [load0, os.loadavg()[0]], stolenS: stolenCpuS() - stolen0 };
}

const pathOf = (u) => {
  try {
    return new URL(u).pathname;
  } catch {
    return null;
  }
};

async function runSpacrawl(site, listed) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-sites-'));
  const out = path.join(tmp, 'out.jsonl');
  const m = await measured([path.join(ROOT, 'bin', 'run.js'), 'crawl', `${site.origin}/`, '--concurrency', String(concurrency), '--out', out, '-q', ...spacrawlArgs]);
  const records = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  fs.rmSync(tmp, { recursive: true, force: true });
  const pages = records.filter((r) => r.skipped === null && r.status === 200 && !r.redirect);
  const wasted = pages.filter((r) => r.timings.lastChangeMs != null && r.timings.settledMs != null).map((r) => Math.max(0, r.timings.settledMs - r.timings.lastChangeMs));
  const found = new Set(pages.map((r) => pathOf(r.url)).filter((p) => listed.has(p)));
  return { ...m, rendered: pages.length, found: found.size, wasted, unsettled: pages.filter((r) => !r.settled).length };
}

async function runCrawlee(site, listed) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crawlee-sites-'));
  const out = path.join(tmp, 'out.jsonl');
  const seeds = path.join(tmp, 'seeds.txt');
  fs.writeFileSync(seeds, [...listed].filter((p) => p !== '/').map((p) => `${site.origin}${p}`).join('\n'));
  // The Chromium spacrawl and the floor use (BENCH_BROWSER overrides it).
  const m = await measured([path.join(HERE, 'crawlee-site.mjs'), `${site.origin}/`, String(concurrency), out, seeds], { BENCH_BROWSER: process.env.BENCH_BROWSER ?? locateBrowser(null).executablePath });
  const pages = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  fs.rmSync(tmp, { recursive: true, force: true });
  // Found: the listed pages reachable from `/` over the links Crawlee read.
  const linksOf = new Map(pages.map((p) => [pathOf(p.url), p.links.filter((l) => l.startsWith(site.origin)).map(pathOf)]));
  const reached = new Set(['/']);
  for (const queue = ['/']; queue.length; ) for (const l of linksOf.get(queue.shift()) ?? []) if (!reached.has(l)) reached.add(l) && queue.push(l);
  const wasted = pages.filter((p) => p.lastChangeAt !== null).map((p) => Math.max(0, p.readAt - p.lastChangeAt));
  return { ...m, rendered: pages.length, found: [...reached].filter((p) => listed.has(p)).length, wasted, unsettled: null };
}

async function runFloor(site, listed, name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'floor-sites-'));
  const out = path.join(tmp, 'out.jsonl');
  const m = await measured([path.join(HERE, 'floor-site.mjs'), site.origin, String(concurrency), out, path.join(SITES, name, 'pages.txt')]);
  const pages = fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
  fs.rmSync(tmp, { recursive: true, force: true });
  return { ...m, rendered: pages.length, found: pages.filter((p) => listed.has(pathOf(p.url))).length, wasted: [], unsettled: null };
}

// ------------------------------------------------------------------ main
if (withCrawlee) ensureCrawlee();
const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 1073741824)} GiB, Node ${process.version}`;
process.stderr.write(`real-site bench on ${machine}, concurrency ${concurrency}\n`);
const rows = [];
for (let run = 1; run <= runs; run++) {
  for (const name of sites) {
    const listed = new Set(fs.readFileSync(path.join(SITES, name, 'pages.txt'), 'utf8').split('\n').filter(Boolean));
    const site = await startSite(name);
    const order = [...(withCrawlee ? (run % 2 ? ['spacrawl', 'crawlee'] : ['crawlee', 'spacrawl']) : ['spacrawl']), ...(withFloor ? ['floor'] : [])];
    const res = {};
    for (const who of order) {
      const before = site.requests.length;
      res[who] = who === 'spacrawl' ? await runSpacrawl(site, listed) : who === 'crawlee' ? await runCrawlee(site, listed) : await runFloor(site, listed, name);
      res[who].requests = site.requests.length - before;
      const r = res[who];
      process.stderr.write(
        `${name} run ${run} ${who}: ${r.found}/${listed.size} found, ${r.rendered} rendered, ${r.wall.toFixed(1)} s, ${r.cpuS.toFixed(1)} CPU-s, peak ${r.peakMb} MB, ` +
          `wasted p50 ${Math.round(pct(r.wasted, 50))} p95 ${Math.round(pct(r.wasted, 95))} ms, ${r.requests} requests, load ${r.load.map((x) => x.toFixed(1)).join('→')}, stolen ${r.stolenS.toFixed(1)} CPU-s\n`,
      );
    }
    site.close();
    rows.push({ site: name, run, pages: listed.size, ...res });
  }
}

const fmt = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : typeof x === 'number' ? x.toFixed(d) : String(x));
const cells = (r, n) => [
  `${r.found}/${n}`,
  r.rendered,
  fmt(r.wall),
  fmt(r.rendered / r.wall, 2),
  fmt(r.cpuS / Math.max(1, r.rendered), 3),
  r.peakMb,
  r.peakPssMb,
  fmt(pct(r.wasted, 50), 0),
  fmt(pct(r.wasted, 95), 0),
  r.requests,
  r.load.map((x) => x.toFixed(1)).join('→'),
  fmt(r.stolenS),
];
const lines = [
  `Machine: ${machine}. Concurrency ${concurrency}. Crawlee: PlaywrightCrawler, waitUntil networkidle, seeded with pages.txt.${withFloor ? ' Floor: plain Playwright loads of pages.txt (load event, anchors read, nothing else).' : ''} Stolen: CPU the virtual machine's host gave to other guests during the run (a run that meets a busy host takes longer for no fault of its own).`,
  '',
  '| site | run | crawler | found | rendered | wall s | pages/s | CPU s/page | peak MB | peak PSS MB | wasted p50 ms | wasted p95 ms | requests | load 1 min | stolen CPU-s | time / Crawlee | memory / Crawlee |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const r of rows) {
  const c = r.crawlee;
  lines.push(`| ${r.site} | ${r.run} | spacrawl | ${cells(r.spacrawl, r.pages).join(' | ')} | ${c ? `${((r.spacrawl.wall / c.wall) * 100).toFixed(0)} %` : '–'} | ${c ? `${((r.spacrawl.peakMb / c.peakMb) * 100).toFixed(0)} %` : '–'} |`);
  if (c) lines.push(`| ${r.site} | ${r.run} | Crawlee | ${cells(c, r.pages).join(' | ')} | | |`);
  // The floor's "found" is the listed pages it loaded (it follows no links); its time is the machine's lower bound.
  if (r.floor) lines.push(`| ${r.site} | ${r.run} | floor (plain loads) | ${cells(r.floor, r.pages).join(' | ')} | ${c ? `${((r.floor.wall / c.wall) * 100).toFixed(0)} %` : '–'} | ${c ? `${((r.floor.peakMb / c.peakMb) * 100).toFixed(0)} %` : '–'} |`);
}
// Where the CPU went: seconds by kind of process (see `kindOf` in sampling.mjs), and each crawler's
// wall time against the floor of the same run (the yardstick of the speed issue).
const KINDS = ['node', 'browser', 'renderer', 'network', 'utility', 'gpu', 'zygote', 'other'];
const crawlers = (r) => [['spacrawl', r.spacrawl], ['Crawlee', r.crawlee], ['floor (plain loads)', r.floor]].filter(([, x]) => x);
lines.push(
  '',
  'CPU s by process, and wall time against the floor of the same run:',
  '',
  `| site | run | crawler | ${KINDS.join(' | ')} | all | wall / floor |`,
  `|---|---|---|${KINDS.map(() => '---').join('|')}|---|---|`,
);
for (const r of rows) {
  for (const [who, x] of crawlers(r)) {
    const by = x.cpuByKind ?? {};
    lines.push(`| ${r.site} | ${r.run} | ${who} | ${KINDS.map((k) => fmt(by[k])).join(' | ')} | ${fmt(x.cpuS)} | ${r.floor ? fmt(x.wall / r.floor.wall, 2) : '–'} |`);
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
const dir = path.join(HERE, 'results');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `sites-${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify({ machine, concurrency, spacrawlArgs, rows }, null, 2));
process.stderr.write(`wrote ${path.relative(ROOT, file)}\n`);
