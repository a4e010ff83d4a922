/**
 * What a crawl tells its caller besides its records' order: notices (`onNotice`), notes the summary keeps
 * (`CrawlResult.notes`), events for observers (`onEvent`: records, notices, relaunches, logins), with every text
 * and record redacted of what a login typed first.
 * @module
 */
import { Secrets } from '../model/secrets.js';
import type { PageRecord } from '../model/record.js';
import type { CrawlEvent } from './events.js';

/** The caller's listeners, as given in `CrawlOptions`. */
export interface SignalListeners {
  /** A one-line notice for the terminal (already redacted). */
  onNotice?: ((message: string) => void) | undefined;
  /** Every event of the crawl; a listener that throws is ignored, it never stops the crawl. */
  onEvent?: ((event: CrawlEvent) => void) | undefined;
}

/** One crawl's outgoing signals: notices, kept notes, events and redaction. */
export class CrawlSignals {
  /** What a login typed (values read from the environment): removed from records, notices and notes. */
  readonly secrets = new Secrets();
  private readonly notes: string[] = [];

  constructor(private readonly listeners: SignalListeners) {}

  /** Tell the caller a one-line notice (redacted). */
  notice(message: string): void {
    const m = this.secrets.redact(message);
    this.listeners.onNotice?.(m);
    this.event({ type: 'notice', message: m });
  }

  /** A notice the summary keeps too (in `notes`, once however often it recurs). */
  remark(message: string): void {
    const m = this.secrets.redact(message);
    if (!this.notes.includes(m)) this.notes.push(m);
    this.notice(m);
  }

  /** Tell `onEvent` (a listener's error is its own: it never stops the crawl). */
  event(e: CrawlEvent): void {
    try {
      this.listeners.onEvent?.(e);
    } catch {
      // a listener must not throw; the crawl goes on
    }
  }

  /** The record as it leaves the crawl: redacted, and told to `onEvent`. */
  record(r: PageRecord): PageRecord {
    const record = this.secrets.redactDeep(r);
    this.event({ type: 'record', record });
    return record;
  }

  /** The notes kept so far, in the order they were first made. */
  keptNotes(): string[] {
    return [...this.notes];
  }
}
