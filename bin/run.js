#!/usr/bin/env node
// spacrawl's entry point: oclif parses and dispatches; every error becomes one line on stderr
// and a documented exit code (see README, "Exit codes"), never a stack trace.
import { run, flush, Errors } from '@oclif/core';

async function main() {
  try {
    await run(process.argv.slice(2), import.meta.url);
    await flush();
  } catch (err) {
    if (err instanceof Errors.ExitError) {
      process.exitCode = err.oclif.exit;
    } else {
      const { oneLine } = await import('../dist/src/cli/errors.js');
      const message = oneLine(err);
      const exit = err && err.oclif && typeof err.oclif.exit === 'number' ? err.oclif.exit : 2;
      process.stderr.write(`spacrawl: ${message}\n`);
      if (process.env.SPACRAWL_DEBUG && err && err.stack) process.stderr.write(`${err.stack}\n`);
      process.exitCode = exit;
    }
  }
  // Leave as soon as stdout has drained: nothing else should keep the process alive.
  process.stdout.write('', () => process.exit(process.exitCode ?? 0));
}

main();
