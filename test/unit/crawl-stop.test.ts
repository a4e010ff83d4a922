import { describe, expect, it } from 'vitest';
import { CrawlStop } from '../../src/cli/crawl-stop.js';
import { CliExit } from '../../src/cli/io.js';
import { memoryIO } from '../helpers/cli.js';

/** A CrawlStop on an in-memory io, with what it did. */
function setup() {
  const m = memoryIO();
  const did: string[] = [];
  const stop = new CrawlStop(m.io, () => did.push('removed folders'));
  const log: string[] = [];
  /** Deliver a signal; the exit code when it left at once, else `null`. */
  const signal = (sig: 'SIGINT' | 'SIGTERM'): number | null => {
    try {
      m.signal(sig);
      return null;
    } catch (err) {
      if (err instanceof CliExit) return err.code;
      throw err;
    }
  };
  return { m, did, stop, log, signal };
}

describe('Ctrl-C in each phase of a CLI crawl', () => {
  it('before the crawl starts: one line, the clean-ups, exit 130 at once (143 for SIGTERM)', () => {
    const { m, did, stop, signal } = setup();
    stop.beforeExitAtStart(() => did.push('removed spool'));
    expect(signal('SIGINT')).toBe(130);
    expect(m.stderr()).toBe('spacrawl: SIGINT before the crawl started: nothing was crawled, no report written\n');
    expect(did).toEqual(['removed folders', 'removed spool']);
    const t = setup();
    expect(t.signal('SIGTERM')).toBe(143);
  });

  it('during the crawl: the first signal cancels, the second flushes and leaves', () => {
    const { m, did, stop, signal } = setup();
    const lines: string[] = [];
    stop.logTo((l) => lines.push(l));
    stop.crawling({ cancel: () => did.push('cancel'), flush: () => did.push('flush') });
    expect(signal('SIGINT')).toBeNull();
    expect(stop.exitCode).toBe(130);
    expect(signal('SIGINT')).toBe(130);
    expect(did).toEqual(['cancel', 'flush']);
    expect(lines).toEqual([
      'SIGINT: finishing pages in flight (press Ctrl-C again to quit at once)',
      'SIGINT again: exiting now; the pages in flight are dropped and no report is written (the JSON Lines of --out, if any, has every record so far; with --state a resume visits the dropped pages)',
    ]);
    expect(m.stderr()).toBe('');
  });

  it('after the crawl: the first signal lets the reports be written whole; a second before them leaves and says none was written; after them, nothing', () => {
    const { did, stop, signal } = setup();
    const lines: string[] = [];
    stop.logTo((l) => lines.push(l));
    stop.crawling({ cancel: () => did.push('cancel'), flush: () => did.push('flush') });
    stop.ending();
    expect(signal('SIGTERM')).toBeNull();
    expect(stop.exitCode).toBe(143);
    expect(signal('SIGINT')).toBe(130);
    expect(did).toEqual([]);
    expect(lines).toEqual([
      'SIGTERM: the crawl has ended; writing the reports whole before exiting (send SIGTERM again to leave without them)',
      'SIGINT again: exiting now; no report was written (the JSON Lines of --out, if any, has every record)',
    ]);
    const after = setup();
    after.stop.logTo((l) => lines.push(l));
    after.stop.ending();
    after.stop.written();
    expect([after.signal('SIGINT'), after.signal('SIGINT'), after.stop.exitCode]).toEqual([null, null, 130]);
    expect(lines).toHaveLength(2);
  });

  it('close() stops listening', () => {
    const { stop, signal } = setup();
    stop.close();
    expect(signal('SIGINT')).toBeNull();
    expect(stop.exitCode).toBeNull();
  });
});
