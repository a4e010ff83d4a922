import type { LogEnv, LogStream } from '../report/progress.js';

/** A signal the CLI reacts to: Ctrl-C, or a polite request to stop. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** A stream the CLI writes data to (stdout): `--json`, a report without a path, CI annotations. */
export interface DataStream {
  write(text: string): unknown;
}

/**
 * Everything a command touches of its process, so that it can run in-process with other streams
 * (tests, a host program): what it writes, what it reads of the environment, the signals it
 * listens to, and how it leaves at once. (muffet's `newCommand(stdout, stderr, …)` is the model.)
 */
export interface CliIO {
  /** Data: `--json`, reports without a path, GitHub annotations. */
  stdout: DataStream;
  /** The log: a line per page, notes, the summary, the issue table, error lines. */
  stderr: LogStream;
  /** Environment variables the CLI reads (`CI`, `NO_COLOR`, `FORCE_COLOR`, `GITHUB_ACTIONS`, `GITHUB_STEP_SUMMARY`, `TERM`). */
  env: LogEnv;
  /**
   * Listen for SIGINT and SIGTERM.
   * @returns a function that stops listening
   */
  onSignal(listener: (signal: StopSignal) => void): () => void;
  /**
   * Leave at once with `code` (a usage error before any output, a second Ctrl-C). A process
   * exits; an in-process run throws {@link CliExit}, which `runCli` turns into its exit code.
   */
  exit(code: number): never;
  /**
   * `true` when the process exits as soon as the command returns (spacrawl's own `bin/run.js`):
   * a crawl then does not wait for its browser to close (see `CrawlOptions.processExitsAfter`).
   * Unset for a run in a process that goes on (tests, a host program, `runCli`'s default).
   */
  exitsAfterRun?: boolean;
}

/**
 * Thrown by an in-process {@link CliIO.exit} to unwind the command: `runCli` returns its code.
 * Commands let it pass (see `SpacrawlCommand.catch`).
 */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
    this.name = 'CliExit';
  }
}

/** The real process: `process.stdout`, `process.stderr`, `process.env`, its signals, `process.exit`. */
export const processIO: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  onSignal(listener) {
    // bin/run.js answers signals while the modules load; the command's own listener takes over.
    (globalThis as { [k: symbol]: (() => void) | undefined })[Symbol.for('spacrawl.earlySignals')]?.();
    process.on('SIGINT', listener);
    process.on('SIGTERM', listener);
    return () => {
      process.off('SIGINT', listener);
      process.off('SIGTERM', listener);
    };
  },
  exit(code): never {
    process.exit(code);
  },
};
