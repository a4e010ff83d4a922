/**
 * The CLI's door: `runCli(argv, io)` runs a spacrawl command in this process with the given
 * streams, environment and signals, and returns its exit code. `bin/run.js` calls it with the
 * process's own ({@link processIO}); tests call it with in-memory streams.
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Config, run as oclifRun } from '@oclif/core';
import { COMMANDS } from './commands/index.js';
import type { SpacrawlCommand } from './cli/base-command.js';
import { oneLine } from './cli/errors.js';
import { ExitCode } from './cli/exit-codes.js';
import { CliExit, processIO, type CliIO } from './cli/io.js';
import { nearestName } from './cli/suggest.js';

export { processIO, CliExit, type CliIO, type DataStream, type StopSignal } from './cli/io.js';

/** The package root: the nearest folder above this module with a package.json (the checkout, or the installed package). */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('spacrawl: no package.json above the CLI module');
    dir = up;
  }
  return dir;
}

let config: Promise<Config> | null = null;

/**
 * oclif's configuration of the package (bin name, version, theme), loaded once per process,
 * without its command table: {@link runCli} takes the commands from this module's imports, so
 * that a test runs the sources it imported rather than a build.
 */
function loadConfig(): Promise<Config> {
  config ??= (async () => {
    const root = packageRoot();
    const pjson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { oclif: Record<string, unknown> };
    const { commands: _table, ...oclif } = pjson.oclif;
    return Config.load({ root, pjson: { ...pjson, oclif } as never });
  })();
  return config;
}

/** `true` when oclif itself must answer: no command, `--version`, or `--help` (first, or after a command and before a `--`). Unknown names and other flags in place of a command never get here (see {@link runCli}). */
function oclifAnswers(argv: readonly string[]): boolean {
  const [id] = argv;
  if (id === undefined || id === '--version' || !Object.hasOwn(COMMANDS, id)) return true;
  const end = argv.indexOf('--');
  return argv.slice(0, end < 0 ? argv.length : end).includes('--help');
}

/**
 * Run `spacrawl ARGV…` in this process.
 *
 * A command writes through `io` only, reads `io.env` for its terminal and CI decisions, and
 * listens to `io.onSignal`; `io.exit` ends it at once (a usage error, a second Ctrl-C). Help,
 * `--version` and unknown command names are oclif's to answer, on the process's own stdout.
 * Every error becomes one line `spacrawl: …` on `io.stderr` (the stack only with
 * `SPACRAWL_DEBUG`) and a documented exit code (README and docs/exit-codes.md).
 * @param argv - the arguments after the program name, e.g. `['crawl', 'https://example.com/', '--json']`
 * @param io - streams, environment, signals and exit (default: the process's)
 * @returns the exit code
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  try {
    // `spacrawl help [COMMAND]` is `spacrawl [COMMAND] --help`; `-h` (before a `--`) is `--help`.
    if (argv[0] === 'help') argv = argv[1] === undefined ? ['--help'] : [argv[1], '--help'];
    const end = argv.indexOf('--');
    argv = argv.map((a, i) => (a === '-h' && (end < 0 || i < end) ? '--help' : a));
    if (argv[0] === '-v') argv = ['--version'];
    const [first] = argv;
    if (first !== undefined && first.startsWith('-') && first !== '--help' && first !== '--version') {
      io.stderr.write(`spacrawl: ${first} before a command: the command comes first, e.g. spacrawl crawl URL ${first} (spacrawl --help lists the commands)\n`);
      return ExitCode.Usage;
    }
    if (first !== undefined && !first.startsWith('-') && !Object.hasOwn(COMMANDS, first)) {
      const hint = nearestName(first, Object.keys(COMMANDS));
      io.stderr.write(`spacrawl: no command "${first}"${hint ? `; did you mean "${hint}"?` : ''} (spacrawl --help lists the commands)\n`);
      return ExitCode.Usage;
    }
    if (oclifAnswers(argv)) {
      await oclifRun([...argv], packageRoot());
      return ExitCode.Ok;
    }
    const [id, ...rest] = argv as [keyof typeof COMMANDS, ...string[]];
    const Cmd = COMMANDS[id];
    Cmd.id ??= id;
    const cmd = new Cmd(rest, await loadConfig()) as SpacrawlCommand;
    return await cmd.execute(io);
  } catch (err) {
    if (err instanceof CliExit) return err.code;
    const e = err as { oclif?: { exit?: unknown }; stack?: string } | null;
    io.stderr.write(`spacrawl: ${oneLine(err)}\n`);
    if (io.env.SPACRAWL_DEBUG && e?.stack) io.stderr.write(`${e.stack}\n`);
    return typeof e?.oclif?.exit === 'number' ? e.oclif.exit : ExitCode.Usage;
  }
}
