import { isErrorPage, isPage, type PageRecord } from '../model/record.js';
import type { ReportInput } from './input.js';
import type { ProgressStats, TerminalLog } from './progress.js';
import type { Reporter } from './reporter.js';
import { summaryLine } from './terminal.js';

/**
 * The terminal log as a reporter: a line per record (as {@link TerminalLog.record} decides), the
 * live progress line's counts, and the summary line at the end.
 */
export class TerminalReporter implements Reporter {
  /** Pages decided so far (earlier runs of a resumed crawl included). */
  private done = 0;
  /** Error pages so far (earlier runs included). */
  private errors = 0;

  /**
   * @param term - the log
   * @param origin - the first seed's origin: URLs on it are printed as paths
   */
  constructor(
    readonly term: TerminalLog,
    private readonly origin: string | null,
  ) {}

  /** Count a record for the live line without printing it (a record of an earlier run). */
  count(r: PageRecord): void {
    if (isPage(r)) this.done++;
    if (isErrorPage(r)) this.errors++;
  }

  /**
   * Start the live line (a no-op without one).
   * @param queued - URLs waiting in the frontier, or `null` when unknown (read at each redraw)
   * @param startedAt - crawl start (ms since epoch)
   */
  start(queued: () => Promise<number | null>, startedAt: number): void {
    this.term.start(async (): Promise<ProgressStats> => ({ done: this.done, queued: await queued(), errors: this.errors }), startedAt);
  }

  onRecord(r: PageRecord): void {
    this.count(r);
    this.term.record(r, this.origin);
  }

  /** Erase the live line: what follows are plain lines. */
  onRecordsEnd(): void {
    this.term.stop();
  }

  /** The summary line, counted as DESIGN.md defines. */
  onEnd(end: ReportInput): void {
    this.term.line(summaryLine(end.summary));
  }
}
