import { Command, Errors } from '@oclif/core';
import { failAndExit, oneLine } from './errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/**
 * Base of every spacrawl command: any error that reaches oclif (a bad flag, a missing
 * argument) becomes one line on stderr and exit code 2, also under `--json` (where oclif would
 * print a JSON error object on stdout instead).
 */
export abstract class SpacrawlCommand extends Command {
  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (err instanceof Errors.ExitError) throw err;
    const message = oneLine(err);
    const exit = (typeof err.oclif?.exit === 'number' && err.oclif.exit !== 1 ? err.oclif.exit : ExitCode.Usage) as ExitCodeValue;
    failAndExit(message, exit);
  }
}
