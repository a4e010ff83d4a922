/**
 * How a CLI crawl answers SIGINT and SIGTERM, from the moment the command starts to the moment
 * its reports are written. One listener for the whole run, so that no signal ever meets the
 * process's default action (which ends it at once, wherever it is: in the middle of a report).
 * @module
 */
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import type { CliIO, StopSignal } from './io.js';

/**
 * Where the run is:
 * - `starting`: flags, stores, files, nothing crawled yet;
 * - `crawling`: pages in flight;
 * - `ending`: the crawl is over; the audit, the baseline comparison and the reports.
 */
export type CrawlPhase = 'starting' | 'crawling' | 'ending';

/** What a signal does in the `crawling` phase. */
export interface CrawlingHooks {
  /** First signal: stop starting pages (the crawl ends with the pages in flight). */
  cancel(): void;
  /** Second signal, just before leaving at once: flush what is written line by line. */
  flush(): void;
}

/**
 * The signal listener of one CLI crawl (see {@link CrawlPhase}):
 * - `starting`: leave at once (130 / 143), saying nothing was crawled; the clean-ups run first
 *   (the folders the run made, a spool file);
 * - `crawling`: the first signal finishes the pages in flight (the crawl's own grace), the second
 *   flushes and leaves at once;
 * - `ending`: the reports are written first, whole: they are written synchronously, so a signal
 *   is only seen between reports' phases, never in the middle of a file. The first signal skips
 *   what is left to do besides the reports (the baseline comparison, `--metrics-linger`); a
 *   second one before the reports are written leaves at once and says that none was written.
 */
export class CrawlStop {
  private phase: CrawlPhase = 'starting';
  private code: ExitCodeValue | null = null;
  private hooks: CrawlingHooks | null = null;
  private reportsWritten = false;
  private readonly cleanups: (() => void)[] = [];
  private log: (line: string) => void;
  private readonly stopListening: () => void;

  /**
   * Start listening (through `io.onSignal`).
   * @param io - the run's I/O: its signals, its stderr (until {@link CrawlStop.logTo}), its exit
   * @param beforeExit - runs before leaving in the `starting` phase
   */
  constructor(
    private readonly io: CliIO,
    beforeExit: () => void = () => {},
  ) {
    this.cleanups.push(beforeExit);
    this.log = (line) => io.stderr.write(`${line}\n`);
    this.stopListening = io.onSignal((sig) => this.handle(sig));
  }

  /** Also run `fn` before leaving in the `starting` phase (e.g. remove a spool file made meanwhile). */
  beforeExitAtStart(fn: () => void): void {
    this.cleanups.push(fn);
  }

  /** The exit code of the first signal (130 for SIGINT, 143 for SIGTERM), or `null` when none came. */
  get exitCode(): ExitCodeValue | null {
    return this.code;
  }

  /** Write the signal lines with `log` from now on (the crawl's terminal log). */
  logTo(log: (line: string) => void): void {
    this.log = log;
  }

  /** The crawl starts: signals now stop it through `hooks`. */
  crawling(hooks: CrawlingHooks): void {
    this.phase = 'crawling';
    this.hooks = hooks;
  }

  /** The crawl is over: the audit, the comparison and the reports come next. */
  ending(): void {
    this.phase = 'ending';
    this.hooks = null;
  }

  /** The reports are written (whole). */
  written(): void {
    this.reportsWritten = true;
  }

  /** Stop listening (the run ends, or hands signals to another listener). Safe to call twice. */
  close(): void {
    this.stopListening();
  }

  private handle(sig: StopSignal): void {
    const code = sig === 'SIGTERM' ? ExitCode.Sigterm : ExitCode.Sigint;
    if (this.phase === 'starting') {
      this.log(`spacrawl: ${sig} before the crawl started: nothing was crawled, no report written`);
      for (const fn of this.cleanups) {
        try {
          fn();
        } catch {
          // leaving anyway: a folder that cannot be removed stays
        }
      }
      this.close();
      this.io.exit(code);
    }
    const again = this.code !== null;
    this.code ??= code;
    if (this.phase === 'crawling') {
      if (again) {
        // Records are already on disk line by line; leave now.
        this.hooks?.flush();
        this.log(`${sig} again: exiting now; the pages in flight are dropped and no report is written (the JSON Lines of --out, if any, has every record so far; with --state a resume visits the dropped pages)`);
        this.close();
        this.io.exit(code);
      }
      this.log(`${sig}: finishing pages in flight (${sig === 'SIGINT' ? 'press Ctrl-C' : 'send SIGTERM'} again to quit at once)`);
      this.hooks?.cancel();
      return;
    }
    if (this.reportsWritten) return; // nothing is left but leaving: the run ends with the first signal's code
    if (again) {
      this.log(`${sig} again: exiting now; no report was written (the JSON Lines of --out, if any, has every record)`);
      this.close();
      this.io.exit(code);
    }
    this.log(`${sig}: the crawl has ended; writing the reports whole before exiting (${sig === 'SIGINT' ? 'press Ctrl-C' : 'send SIGTERM'} again to leave without them)`);
  }
}
