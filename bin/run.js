#!/usr/bin/env node
// spacrawl's entry point: runCli (dist/src/main.js) runs the command with this process's streams,
// environment and signals; every error becomes one line on stderr and a documented exit code
// (see README, "Exit codes"), never a stack trace.
import { flush } from '@oclif/core';

async function main() {
  let code;
  try {
    const { runCli, processIO } = await import('../dist/src/main.js');
    code = await runCli(process.argv.slice(2), processIO);
    await flush();
  } catch (err) {
    // Only a broken installation gets here (dist/ missing): runCli itself turns errors into codes.
    process.stderr.write(`spacrawl: ${err && err.message ? err.message.split('\n')[0] : String(err)}\n`);
    if (process.env.SPACRAWL_DEBUG && err && err.stack) process.stderr.write(`${err.stack}\n`);
    code = 2;
  }
  // Leave as soon as stdout has drained: nothing else should keep the process alive.
  process.stdout.write('', () => process.exit(code ?? 0));
}

main();
