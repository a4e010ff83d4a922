#!/usr/bin/env node
// spacrawl benchmark: throughput, per-page time, CPU and whole-process-tree memory, against an
// "oracle" crawler (plain Playwright that knows exactly when a page is ready).
//
//   npm run bench                      sizes 100,400,2000 × concurrency 1,2,4,8,16, tree + dense
//   npm run bench -- --quick           100 and 400 pages, concurrency 4 and 8, tree only
//   npm run bench -- --sizes 400 --concurrency 8 --shapes tree --latency 20 --store sqlite
//   npm run bench -- --sizes 2000 --concurrency 4 --shapes tree --workers 1,2,3 [--redis URL]
//   npm run bench -- --sizes 400 --concurrency 8 --shapes tree --options '{"click":"off"}'   (one lever)
//   npm run bench -- --cli-only --cli-sizes 2000,20000 --cli-concurrency 8                  (CLI rows only)
//   node bench/run.mjs --sizes 400 --concurrency 8 --shapes tree --cli-sizes '' --workers '' \
//     --builds .,../old --rounds 3         (builds side by side: each round runs the oracle, then each build)
//
// --builds DIR,…: crawl with the `dist/` of each checkout (built with `npm run build`), in the
// same run, against the same site and oracle, alternated --rounds times (each round starts with
// the next build: none always runs right after the oracle or the same other build): the way to bisect a
// change in speed (a worktree per commit: `git worktree add ../old SHA && cd ../old && npx tsc`).
//
// --shapes apiref: the API-reference app of fixtures/sites/api-reference.ts (one document, a
// hash-routed view per operation, each with many link-less toggles and one control that reveals
// a link), 70 views x 20 toggles, crawled at each --concurrency: wall, pages, clicks made and
// skipped (the cost of click discovery where clicking finds little). No oracle.
//
// CLI rows (--cli-sizes, default 2000,20000 in the full run): the tree crawled by the CLI
// (`node bin/run.js crawl … --max-pages N --output-dir DIR -q`: every report, screenshots, the JSON Lines file)
// in a child process. Besides the tree's peak, they give the Node process's own peak memory,
// apart from Chromium: its peak RSS (getrusage maxRSS, exact), its peak PSS (smaps_rollup every
// second), the peaks of V8's used heap and of memory outside the heap, and the peak of its live
// heap (just after V8's own full collections) (bench/node-peak.cjs).
//
// --workers N,…: also crawl with N CLI worker processes (each at --concurrency) sharing one
// Redis frontier (a redis-server is started on a free port when --redis is not given). The full
// run adds workers 1,2,3 on the largest tree when redis-server is installed.
//
// Memory: "peak MB" is sampled every 100 ms from /proc/PID/status (private anonymous and shared
// memory of every process, plus file-backed pages once); "peak PSS MB" is the exact proportional
// set size, read every 5 s only (smaps_rollup is expensive enough to slow the crawl it measures).
//
// Writes a markdown table to stdout and bench/results/<date>.json. Measures; asserts nothing.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pct, sampler, treeStats } from './sampling.mjs';
// `npm run bench -- --sites`: the real-site benchmark against Crawlee (bench/sites.mjs).
if (process.argv.includes('--sites')) { await import('./sites.mjs'); process.exit(); }

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { crawl, launchBrowser } = await import(path.join(ROOT, 'dist/src/index.js'));
// --builds: the crawl() of other checkouts, by label (the folder's name and its commit).
const buildDirs = (process.argv.includes('--builds') ? process.argv[process.argv.indexOf('--builds') + 1] : '').split(',').filter(Boolean);
const builds = [];
for (const dir of buildDirs) {
  const abs = path.resolve(dir);
  let commit = '';
  try {
    commit = execFileSync('git', ['-C', abs, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    // Uncommitted changes under src/: the build is not the commit's.
    if (execFileSync('git', ['-C', abs, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim()) commit += '+';
  } catch {
    // not a git checkout: the folder's name is the label
  }
  builds.push({ label: commit || path.basename(abs), crawl: (await import(path.join(abs, 'dist/src/index.js'))).crawl });
}
const rounds = Number(process.argv.includes('--rounds') ? process.argv[process.argv.indexOf('--rounds') + 1] : '1');
/**
 * `list` started at its `round`-th entry: each round of --builds starts with the next build. Run in
 * the same order every round, the build that ran second was the faster in all 8 rounds of two
 * four-round alternations (2026-12-05), whichever it was.
 */
const rotated = (list, round) => list.map((_, i) => list[(i + round) % list.length]);
const { SqliteFrontier } = await import(path.join(ROOT, 'dist/src/store/sqlite/frontier.js'));
const { startRedis, redisServerPath } = await import(path.join(ROOT, 'dist/fixtures/redis-server.js'));

// ------------------------------------------------------------------ arguments
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};
const quick = args.includes('--quick');
const sizes = opt('sizes', quick ? '100,400' : '100,400,2000').split(',').map(Number);
const concurrencies = opt('concurrency', quick ? '4,8' : '1,2,4,8,16').split(',').map(Number);
const shapes = opt('shapes', quick ? 'tree' : 'tree,dense').split(',');
const latency = Number(opt('latency', '20'));
const stores = opt('store', 'memory').split(',');
const withOracle = !args.includes('--no-oracle');
// Extra crawl options for the in-process rows, to measure one lever at a time, e.g.
// --options '{"click":"off"}' or '{"soft404":false}'.
const extraOptions = JSON.parse(opt('options', '{}'));
const haveRedisServer = redisServerPath() !== null;
const workerCounts = opt('workers', quick || !haveRedisServer ? '' : '1,2,3').split(',').filter(Boolean).map(Number);
const cliOnly = args.includes('--cli-only');
const cliSizes = opt('cli-sizes', quick ? '' : '2000,20000').split(',').filter(Boolean).map(Number);
const cliConcurrency = Number(opt('cli-concurrency', '8'));
let redisUrl = opt('redis', null);

// ------------------------------------------------------------------ the site
/** Links of page i: a tree with branching 4, or a dense graph of 20 pseudo-random links. */
function linksOf(shape, n, i) {
  if (shape === 'tree') return [1, 2, 3, 4].map((k) => 4 * i + k).filter((k) => k < n);
  let x = (i * 2654435761) >>> 0;
  const out = new Set();
  if (i + 1 < n) out.add(i + 1); // keeps every page reachable
  while (out.size < Math.min(20, n - 1)) {
    x = (x * 1103515245 + 12345) >>> 0;
    const k = x % n;
    if (k !== i) out.add(k);
  }
  return [...out];
}

function startSite(shape, n) {
  const counts = new Map();
  const shell = (i) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>Loading</title></head><body><div id="root"></div><script>fetch('/api/${i}').then(r=>r.json()).then(d=>{document.getElementById('root').innerHTML=d.links.map(l=>'<a href="/p/'+l+'">Page '+l+'</a>').join(' ');document.title='Page ${i}';});</script></body></html>`;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const later = (fn) => setTimeout(fn, latency);
    let m;
    if ((m = /^\/p\/(\d+)$/.exec(u.pathname)) && Number(m[1]) < n) {
      counts.set(u.pathname, (counts.get(u.pathname) ?? 0) + 1);
      return later(() => { res.writeHead(200, { 'content-type': 'text/html' }); res.end(shell(Number(m[1]))); });
    }
    if ((m = /^\/api\/(\d+)$/.exec(u.pathname))) {
      return later(() => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ links: linksOf(shape, n, Number(m[1])) })); });
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('no');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${server.address().port}`, counts, size: n })));
}

// Process-tree sampling (memory, CPU by kind of process, percentiles): bench/sampling.mjs, shared with --sites.

// ------------------------------------------------------------------ the two crawlers
async function runSpacrawl(site, conc, store, crawlFn = crawl) {
  site.counts.clear();
  const tmp = store === 'sqlite' ? fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-bench-')) : null;
  const frontier = tmp ? SqliteFrontier.open(path.join(tmp, 'state.db'), { crawlKey: { seeds: [`${site.origin}/p/0`], scope: 'host' } }) : undefined;
  const s = sampler();
  const t0 = Date.now();
  const times = [];
  let pages = 0;
  for await (const r of crawlFn({ seeds: [`${site.origin}/p/0`], concurrency: conc, ...extraOptions, ...(frontier ? { frontier } : {}) })) {
    if (r.skipped === null && r.status === 200) {
      pages++;
      if (r.timings.total !== null) times.push(r.timings.total);
    }
  }
  const wall = (Date.now() - t0) / 1000;
  const st = s.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  const twice = [...site.counts.values()].filter((c) => c > 1).length;
  return { pages, wall, pps: pages / wall, p50: pct(times, 50), p95: pct(times, 95), ...st, requestedTwice: twice };
}

async function runOracle(site, conc, n) {
  // Its clock and samplers start before its browser launches, as spacrawl's do (crawl() launches
  // its own): until 2026-12-05 the oracle's launch (~0.3 s, and its CPU) was left out of its time.
  const s = sampler();
  const t0 = Date.now();
  const { browser } = await launchBrowser(); // the same browser and switches as spacrawl
  const seen = new Set([0]);
  const queue = [0];
  const times = [];
  let active = 0;
  let pages = 0;
  // One reused tab per worker: the cheapest way Playwright can render a page.
  const contexts = await Promise.all(
    Array.from({ length: conc }, async () => {
      const context = await browser.newContext();
      return { context, page: await context.newPage() };
    }),
  );
  await new Promise((resolve) => {
    const pump = () => {
      if (!queue.length && active === 0) return resolve();
      while (queue.length && active < conc) {
        const i = queue.shift();
        const ctx = contexts.pop();
        active++;
        const t = Date.now();
        (async () => {
          const page = ctx.page;
          await page.goto(`${site.origin}/p/${i}`);
          await page.waitForFunction((want) => document.title === want, `Page ${i}`);
          return page.$$eval('a[href]', (as) => as.map((a) => a.href));
        })()
          .then((links) => {
            pages++;
            times.push(Date.now() - t);
            for (const l of links) {
              const k = Number(/\/p\/(\d+)$/.exec(l)?.[1]);
              if (Number.isInteger(k) && k < n && !seen.has(k)) {
                seen.add(k);
                queue.push(k);
              }
            }
          })
          .finally(() => {
            active--;
            contexts.push(ctx);
            pump();
          });
      }
    };
    pump();
  });
  const wall = (Date.now() - t0) / 1000;
  const st = s.stop();
  await browser.close();
  return { pages, wall, pps: pages / wall, p50: pct(times, 50), p95: pct(times, 95), ...st };
}

/** `workers` CLI worker processes at concurrency `conc` sharing one Redis frontier. */
async function runDistributed(site, workers, conc) {
  site.counts.clear();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-bench-w-'));
  const id = `bench-${process.pid}-${Date.now()}`;
  const s = sampler();
  const t0 = Date.now();
  const codes = await Promise.all(
    Array.from({ length: workers }, (_, k) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'run.js'), 'crawl', `${site.origin}/p/0`, '--redis', redisUrl, '--crawl-id', id, '--concurrency', String(conc), '-q', '--out', path.join(tmp, `w${k}.jsonl`)], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('close', resolve);
      }),
    ),
  );
  const wall = (Date.now() - t0) / 1000;
  const st = s.stop();
  const times = [];
  let pages = 0;
  for (let k = 0; k < workers; k++) {
    const file = path.join(tmp, `w${k}.jsonl`);
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
      const r = JSON.parse(line);
      if (r.skipped === null && r.status === 200) {
        pages++;
        if (r.timings.total !== null) times.push(r.timings.total);
      }
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  if (codes.some((c) => c !== 0)) process.stderr.write(`  worker exit codes: ${codes.join(', ')}\n`);
  const twice = [...site.counts.values()].filter((c) => c > 1).length;
  return { pages, wall, pps: pages / wall, p50: pct(times, 50), p95: pct(times, 95), ...st, requestedTwice: twice };
}

/** Exact PSS of one process (bytes), or 0 once it is gone. */
function pssOf(pid) {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The tree crawled by the CLI with every report on (`--output-dir`), in a child process: wall
 * time, the child tree's peak (as for the other rows) and the Node process's own peaks.
 */
async function runCliRow(site, conc) {
  site.counts.clear();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spacrawl-bench-cli-'));
  const peakFile = path.join(tmp, 'node-peak.json');
  const env = { ...process.env, SPACRAWL_BENCH_PEAK: peakFile, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(ROOT, 'bench', 'node-peak.cjs')}`.trim() };
  const t0 = Date.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'run.js'), 'crawl', `${site.origin}/p/0`, '--concurrency', String(conc), '--max-pages', String(site.size), '--output-dir', path.join(tmp, 'out'), '-q'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  // The child's tree: the same sampling as the other rows, rooted at the CLI process.
  let peak = 0;
  let nodePss = 0;
  let lastPss = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, treeStats(child.pid).mem);
    if (Date.now() - lastPss >= 1000) {
      lastPss = Date.now();
      nodePss = Math.max(nodePss, pssOf(child.pid));
    }
  }, 100);
  const code = await new Promise((resolve) => child.on('close', resolve));
  clearInterval(timer);
  const wall = (Date.now() - t0) / 1000;
  const mine = JSON.parse(fs.readFileSync(peakFile, 'utf8'));
  let pages = 0;
  for (const line of fs.readFileSync(path.join(tmp, 'out', 'pages.jsonl'), 'utf8').split('\n')) {
    if (line && JSON.parse(line).status === 200) pages++;
  }
  const reports = fs.readdirSync(path.join(tmp, 'out')).filter((f) => f !== 'screenshots').sort();
  fs.rmSync(tmp, { recursive: true, force: true });
  const mb = (b) => Math.round(b / 1048576);
  return { code, pages, wall, pps: pages / wall, treePeakMb: mb(peak), nodePeakRssMb: mb(mine.maxRssKb * 1024), nodePeakPssMb: mb(nodePss), nodeHeapMb: mb(mine.heapUsed), nodeLiveHeapMb: mb(mine.liveHeap ?? 0), nodeExternalMb: mb(mine.external), reports };
}

// ------------------------------------------------------------------ main
const rows = [];
const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 1073741824)} GiB, Node ${process.version}, ${os.cpus()[0]?.model ?? ''}`.trim();
process.stderr.write(`bench on ${machine}\n`);
const apirefRows = [];
if (!cliOnly && shapes.includes('apiref')) {
  const { startApiReferenceSite } = await import(path.join(ROOT, 'dist/fixtures/sites/api-reference.js'));
  for (const conc of concurrencies) for (let round = 0; round < rounds; round++) {
    const runs = builds.length ? builds.map((b) => ({ label: b.label, crawlFn: b.crawl })) : [{ label: 'this build', crawlFn: crawl }];
    for (const { label, crawlFn } of rotated(runs, round)) {
      const site = await startApiReferenceSite(70, 20);
      const s = sampler();
      const t0 = Date.now();
      let pages = 0, made = 0, skipped = 0, views = 0;
      for await (const r of crawlFn({ seeds: [`${site.origin}/`], concurrency: conc })) {
        if (r.skipped !== null || r.status !== 200) continue;
        pages++;
        if (r.url.includes('#/op/')) views++;
        made += r.clickDiscovery?.made ?? 0;
        skipped += r.clickDiscovery ? Object.values(r.clickDiscovery.skipped).reduce((a, b) => a + b, 0) : 0;
      }
      const wall = (Date.now() - t0) / 1000;
      const st = s.stop();
      await site.close();
      apirefRows.push({ build: label, concurrency: conc, pages, views, wall, cpuS: st.cpuS, peakMb: st.peakMb, clicks: made, skipped });
      process.stderr.write(`apiref 70x20 c=${conc} @${label}: ${pages} pages (${views}/70 views) in ${wall.toFixed(1)} s, ${made} clicks, ${skipped} skipped, ${st.cpuS.toFixed(1)} CPU-s\n`);
    }
  }
}
for (const shape of cliOnly ? [] : shapes.filter((x) => x !== 'apiref')) {
  for (const n of sizes) {
    const site = await startSite(shape, n);
    for (const conc of concurrencies) for (let round = 0; round < rounds; round++) {
      const oracle = withOracle ? await runOracle(site, conc, n) : null;
      const runs = builds.length ? builds.flatMap((b) => stores.map((store) => ({ store: `${store} @${b.label}`, crawlFn: b.crawl, s: store }))) : stores.map((store) => ({ store, crawlFn: crawl, s: store }));
      for (const { store, crawlFn, s: storeKind } of rotated(runs, round)) {
        const sc = await runSpacrawl(site, conc, storeKind, crawlFn);
        const row = { shape, size: n, concurrency: conc, store, latencyMs: latency, spacrawl: sc, oracle, fraction: oracle ? sc.pps / oracle.pps : null };
        rows.push(row);
        process.stderr.write(
          `${shape} ${n} c=${conc} ${store}: ${sc.pages}/${n} pages in ${sc.wall.toFixed(1)} s = ${sc.pps.toFixed(2)} p/s` +
            `${oracle ? ` (oracle ${oracle.pps.toFixed(2)} p/s, ${(row.fraction * 100).toFixed(0)} %)` : ''}, peak ${sc.peakMb} MB, ${sc.cpuS.toFixed(1)} CPU-s\n`,
        );
      }
      // Distributed rows: the largest tree only in the full run, every size when asked for.
      if (round === 0 && workerCounts.length && shape === 'tree' && (opt('workers', null) !== null || n === Math.max(...sizes))) {
        let local = null;
        if (!redisUrl) {
          local = await startRedis({ appendfsync: 'everysec' });
          redisUrl = local.url;
        }
        for (const w of workerCounts) {
          const sc = await runDistributed(site, w, conc);
          const row = { shape, size: n, concurrency: conc, store: `redis x${w}`, latencyMs: latency, spacrawl: sc, oracle, fraction: oracle ? sc.pps / oracle.pps : null };
          rows.push(row);
          process.stderr.write(`${shape} ${n} c=${conc} redis x${w}: ${sc.pages}/${n} pages in ${sc.wall.toFixed(1)} s = ${sc.pps.toFixed(2)} p/s, peak ${sc.peakMb} MB, ${(sc.cpuS / Math.max(1, sc.pages)).toFixed(3)} CPU-s/page\n`);
        }
        if (local) {
          await local.dispose();
          redisUrl = null;
        }
      }
    }
    site.server.close();
  }
}

const cliRows = [];
for (const n of cliSizes) {
  const site = await startSite('tree', n);
  const r = await runCliRow(site, cliConcurrency);
  site.server.close();
  cliRows.push({ size: n, concurrency: cliConcurrency, latencyMs: latency, ...r });
  process.stderr.write(`cli tree ${n} c=${cliConcurrency}: exit ${r.code}, ${r.pages}/${n} pages in ${r.wall.toFixed(1)} s, Node peak RSS ${r.nodePeakRssMb} MB (PSS ${r.nodePeakPssMb}, heap ${r.nodeHeapMb}, live heap ${r.nodeLiveHeapMb}), tree peak ${r.treePeakMb} MB\n`);
}

const fmt = (x, d = 1) => (x === null || x === undefined ? '–' : typeof x === 'number' ? x.toFixed(d) : String(x));
const lines = [
  `Machine: ${machine}; server latency ${latency} ms per document and per data request.${Object.keys(extraOptions).length ? ` Crawl options: ${JSON.stringify(extraOptions)}.` : ''}`,
  '',
  '| shape | pages | conc | store | found | wall s | pages/s | p50 ms | p95 ms | CPU s | CPU s/page | peak MB | peak PSS MB | oracle pages/s | oracle peak MB | fraction of oracle | fetched twice |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((r) =>
    `| ${r.shape} | ${r.size} | ${r.concurrency} | ${r.store} | ${r.spacrawl.pages} | ${fmt(r.spacrawl.wall)} | ${fmt(r.spacrawl.pps, 2)} | ${fmt(r.spacrawl.p50, 0)} | ${fmt(r.spacrawl.p95, 0)} | ${fmt(r.spacrawl.cpuS)} | ${fmt(r.spacrawl.cpuS / Math.max(1, r.spacrawl.pages), 3)} | ${r.spacrawl.peakMb} | ${r.spacrawl.peakPssMb} | ${fmt(r.oracle?.pps, 2)} | ${r.oracle?.peakMb ?? '–'} | ${r.fraction === null ? '–' : `${(r.fraction * 100).toFixed(0)} %`} | ${r.spacrawl.requestedTwice} |`,
  ),
];
// Where the CPU goes: ms per page by kind of process, spacrawl / oracle.
const kinds = ['node', 'browser', 'renderer', 'gpu', 'network', 'zygote', 'utility', 'other'];
const perPage = (run, k) => (run?.cpuByKind?.[k] !== undefined && run.pages ? Math.round((run.cpuByKind[k] / run.pages) * 1000) : '–');
lines.push(
  '',
  'CPU ms per page by process (spacrawl / oracle):',
  '',
  `| shape | pages | conc | store | ${kinds.join(' | ')} |`,
  `|---|---|---|---|${kinds.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.shape} | ${r.size} | ${r.concurrency} | ${r.store} | ${kinds.map((k) => `${perPage(r.spacrawl, k)} / ${perPage(r.oracle, k)}`).join(' | ')} |`),
);
if (cliRows.length) {
  lines.push(
    '',
    `CLI with every report (\`crawl --output-dir DIR -q\`: pages.jsonl, report.json, pages.csv, index.html, junit.xml, sitemap.xml, summary.md, screenshots), tree, concurrency ${cliConcurrency}; Node = the CLI process alone:`,
    '',
    '| pages | found | wall s | pages/s | Node peak RSS MB | Node peak PSS MB | Node heap peak MB | Node live heap peak MB | Node external peak MB | tree peak MB | exit |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...cliRows.map((r) => `| ${r.size} | ${r.pages} | ${fmt(r.wall)} | ${fmt(r.pps, 2)} | ${r.nodePeakRssMb} | ${r.nodePeakPssMb} | ${r.nodeHeapMb} | ${r.nodeLiveHeapMb} | ${r.nodeExternalMb} | ${r.treePeakMb} | ${r.code} |`),
  );
}
if (apirefRows.length) {
  lines.push(
    '',
    'API reference app (fixtures/sites/api-reference.ts: 70 hash-routed views, 20 link-less toggles and one link-revealing control each):',
    '',
    '| build | conc | pages | views | wall s | CPU s | peak MB | clicks made | clickables skipped |',
    '|---|---|---|---|---|---|---|---|---|',
    ...apirefRows.map((r) => `| ${r.build} | ${r.concurrency} | ${r.pages} | ${r.views}/70 | ${fmt(r.wall)} | ${fmt(r.cpuS)} | ${r.peakMb} | ${r.clicks} | ${r.skipped} |`),
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
const dir = path.join(ROOT, 'bench', 'results');
fs.mkdirSync(dir, { recursive: true });
const file = path.join(dir, `${new Date().toISOString().slice(0, 19).replace(/:/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify({ machine, latencyMs: latency, options: extraOptions, rows, cliRows, apirefRows }, null, 2));
process.stderr.write(`wrote ${path.relative(ROOT, file)}\n`);
