#!/usr/bin/env node
// spacrawl's entry point: runCli (dist/src/main.js) runs the command with this process's streams,
// environment and signals; every error becomes one line on stderr and a documented exit code
// (see README, "Exit codes"), never a stack trace.
import v8 from 'node:v8';

// A crawl keeps a small live heap (the frontier's URLs, the counters: ~50-60 MB at 20,000 pages)
// but allocates steadily (protocol messages, screenshots, records). Left to itself, V8 lets the
// old generation grow to 3-4x the live heap between full collections, and more the longer the
// process runs, so the process's peak memory grew with the crawl's length (bench, CLI rows:
// 170 MB used heap at 2,000 pages, 227 MB at 20,000, for 53 and 60 MB live). Growing by at most
// half of what survives keeps the peak near the live heap; the extra full collections are
// incremental and cost little next to a page visit. An explicit --heap-growing-percent wins.
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'))) {
  v8.setFlagsFromString('--heap-growing-percent=50');
}

// Ctrl-C (or SIGTERM) while the modules load, before a command listens for signals itself: a
// crawl says that nothing was crawled (as its own listener does once it starts, see
// src/cli/crawl-stop.ts), any other command that it stopped; 130 / 143 either way. A command's
// own listener takes over through `processIO.onSignal`, which removes this one.
const crawling = ['crawl', 'demo'].includes(process.argv[2] ?? '');
const earlySignal = (sig) => {
  process.stderr.write(crawling ? `spacrawl: ${sig} before the crawl started: nothing was crawled, no report written\n` : `spacrawl: ${sig}: stopped\n`);
  process.exit(sig === 'SIGINT' ? 130 : 143);
};
process.on('SIGINT', earlySignal);
process.on('SIGTERM', earlySignal);
globalThis[Symbol.for('spacrawl.earlySignals')] = () => {
  process.off('SIGINT', earlySignal);
  process.off('SIGTERM', earlySignal);
};

async function main() {
  let code;
  try {
    // Imported here, not above, so that a checkout without `npm install` or without a build gets
    // the one-line error below instead of Node's stack trace.
    // @oclif/core checks, as it loads, that this Node satisfies its own engines (>= 18) with semver:
    // 47 modules, about a tenth of `spacrawl --help`'s time. spacrawl's engines (>= 20) are
    // stricter, so the check could never warn on a Node spacrawl supports: it is skipped, and the
    // variable removed again so that nothing spacrawl runs or starts sees it.
    const skipEngineCheck = process.env.OCLIF_DISABLE_ENGINE_WARNING === undefined;
    if (skipEngineCheck) process.env.OCLIF_DISABLE_ENGINE_WARNING = '1';
    const { flush } = await import('@oclif/core');
    if (skipEngineCheck) delete process.env.OCLIF_DISABLE_ENGINE_WARNING;
    const { runCli, processIO } = await import('../dist/src/main.js');
    // This process exits once the command returns (below): a crawl need not wait for its browser to close.
    code = await runCli(process.argv.slice(2), { ...processIO, exitsAfterRun: true });
    await flush();
  } catch (err) {
    // Only a broken installation gets here (node_modules/ or dist/ missing): runCli itself turns
    // errors into codes.
    const missing = err && err.code === 'ERR_MODULE_NOT_FOUND';
    const hint = missing ? ' (run `npm run setup` in the checkout first: it installs the packages and builds dist/)' : '';
    process.stderr.write(`spacrawl: ${err && err.message ? err.message.split('\n')[0] : String(err)}${hint}\n`);
    if (process.env.SPACRAWL_DEBUG && err && err.stack) process.stderr.write(`${err.stack}\n`);
    code = 2;
  }
  // Leave as soon as stdout has drained: nothing else should keep the process alive.
  process.stdout.write('', () => process.exit(code ?? 0));
}

main();
