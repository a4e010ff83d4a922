import type { PageRecord } from '../model/record.js';
import type { ReportInput } from './input.js';
import type { Reporter } from './reporter.js';

/**
 * Fans one record stream out to many {@link Reporter}s, each event to every reporter in the order
 * they were given (so a file that others read back is closed before they read it). An error of a
 * reporter stops the fan-out and propagates: a report that cannot be written is the command's
 * error. (Playwright's `multiplexer.ts` plays the same part for its reporters.)
 */
export class Multiplexer implements Required<Reporter> {
  private readonly reporters: Reporter[];

  constructor(reporters: readonly Reporter[]) {
    this.reporters = [...reporters];
  }

  /** Add a reporter after those given so far. */
  add(reporter: Reporter): void {
    this.reporters.push(reporter);
  }

  onRecord(r: PageRecord): void {
    for (const x of this.reporters) x.onRecord?.(r);
  }

  /** Every reporter's `onRecordsEnd`, even when one throws (the first error is re-thrown after). */
  onRecordsEnd(): void {
    let first: { err: unknown } | null = null;
    for (const x of this.reporters) {
      try {
        x.onRecordsEnd?.();
      } catch (err) {
        first ??= { err };
      }
    }
    if (first) throw first.err;
  }

  onEnd(end: ReportInput): void {
    for (const x of this.reporters) x.onEnd?.(end);
  }
}
