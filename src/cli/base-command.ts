import { Command, Errors, ux } from '@oclif/core';
import { failAndExit, oneLine } from './errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { CliExit, processIO, type CliIO } from './io.js';
import { expansionsOf, nearestName, unknownFlagsIn } from './suggest.js';

/**
 * Base of every spacrawl command: it writes through {@link io} (the process's streams, or a
 * test's), and any error that reaches oclif (a bad flag, a missing argument) becomes one line on
 * stderr and exit code 2, also under `--json` (where oclif would print a JSON error object on
 * stdout instead).
 */
export abstract class SpacrawlCommand extends Command {
  /** The streams, environment and signals the command uses ({@link execute} sets it). */
  io: CliIO = processIO;
  /** The exit code the command ends with when it returns normally. */
  exitCode: number = ExitCode.Ok;

  /**
   * Run the command with `io` (what `runCli` does): parse, run, print the `--json` result.
   * @returns the exit code: the command's, or that of the error that ended it
   */
  async execute(io: CliIO): Promise<number> {
    this.io = io;
    try {
      await this._run();
    } catch (err) {
      if (err instanceof CliExit) return err.code;
      if (err instanceof Errors.ExitError) return err.oclif.exit ?? ExitCode.Ok;
      throw err;
    }
    return this.exitCode;
  }

  /**
   * Set the exit code the command ends with (the process's too when it runs on the process).
   * Public so that the work a command loads on demand (e.g. `src/cli/crawl-command.ts`) can set it.
   */
  setExitCode(code: ExitCodeValue): void {
    this.exitCode = code;
    if (this.io === processIO) process.exitCode = code;
  }

  /** Leave at once with one line on stderr (see {@link failAndExit}); public for the same reason as {@link setExitCode}. */
  fail(message: string, exit: ExitCodeValue): never {
    failAndExit(message, exit, this.io);
  }

  /** The `--json` result, on {@link io}'s stdout. */
  protected override logJson(json: unknown): void {
    this.io.stdout.write(`${ux.colorizeJson(json, { pretty: true, theme: this.config.theme?.json })}\n`);
  }

  /**
   * After oclif's "Nonexistent flag: --concurency": ` (did you mean --concurrency?)` when this
   * command has flags that the unknown ones shorten (`--log` for `--log-format`, see
   * `expansionsOf`) or are a typo of (`nearestName`); else where the flags are listed. Empty
   * for other errors.
   */
  private flagHint(err: Error): string {
    const unknown = unknownFlagsIn(err.message);
    if (unknown.length === 0) return '';
    const ctor = this.ctor as { flags?: Record<string, unknown>; enableJsonFlag?: boolean };
    const known = [...Object.keys(ctor.flags ?? {}).map((f) => `--${f}`), '--help', ...(ctor.enableJsonFlag ? ['--json'] : [])];
    const hints = [...new Set(unknown.flatMap((f) => {
      const longer = expansionsOf(f, known);
      return longer.length > 0 ? longer : (nearestName(f, known) ?? []);
    }))];
    if (hints.length > 0) return ` (did you mean ${hints.join(', ')}?)`;
    return this.id ? ` (spacrawl ${this.id} --help lists the flags)` : ' (spacrawl --help lists the commands)';
  }

  protected override async catch(err: Error & { oclif?: { exit?: number } }): Promise<void> {
    if (err instanceof Errors.ExitError || err instanceof CliExit) throw err;
    const message = `${oneLine(err)}${this.flagHint(err)}`;
    const exit = (typeof err.oclif?.exit === 'number' && err.oclif.exit !== 1 ? err.oclif.exit : ExitCode.Usage) as ExitCodeValue;
    failAndExit(message, exit, this.io);
  }
}
