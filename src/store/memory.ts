/**
 * The default frontier: in memory, for one process (see {@link MemoryFrontier}).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { PageRecord } from '../model/record.js';
import { StaleLeaseError, type Frontier, type FrontierCounts, type FrontierEntry, type Lease } from './frontier.js';

type State = { s: 'queued' } | { s: 'leased'; token: string } | { s: 'done' };

/** The states without data, shared by every URL in them (one map entry per URL, no object each). */
const QUEUED: State = Object.freeze({ s: 'queued' });
const DONE: State = Object.freeze({ s: 'done' });

/**
 * The default {@link Frontier}: everything in memory, lost when the process ends; records are
 * not kept (they stream to the reporters).
 * Breadth-first: one FIFO queue per depth, the lowest non-empty depth served first.
 */
export class MemoryFrontier implements Frontier {
  private readonly states = new Map<string, State>();
  /** queues[depth] = FIFO of entries; heads[depth] = index of the next one. */
  private readonly queues: FrontierEntry[][] = [];
  private readonly heads: number[] = [];
  private queued = 0;
  private inFlight = 0;
  private done = 0;

  async add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    const fresh: FrontierEntry[] = [];
    for (const e of entries) {
      if (this.states.has(e.url)) continue;
      fresh.push(e);
      if (e.skip) {
        this.states.set(e.url, DONE);
        this.done++;
      } else {
        this.states.set(e.url, QUEUED);
        this.push(e);
      }
    }
    return fresh;
  }

  private push(e: FrontierEntry): void {
    while (this.queues.length <= e.depth) {
      this.queues.push([]);
      this.heads.push(0);
    }
    this.queues[e.depth]!.push(e);
    this.queued++;
  }

  async next(): Promise<Lease | null> {
    for (let d = 0; d < this.queues.length; d++) {
      const q = this.queues[d]!;
      while (this.heads[d]! < q.length) {
        const e = q[this.heads[d]!]!;
        this.heads[d]!++;
        if (this.heads[d] === q.length) {
          q.length = 0;
          this.heads[d] = 0;
        }
        const st = this.states.get(e.url);
        if (st?.s !== 'queued') continue; // marked done meanwhile (redirect target, drain)
        this.queued--;
        const token = randomUUID();
        this.states.set(e.url, { s: 'leased', token });
        this.inFlight++;
        return { entry: e, token };
      }
    }
    return null;
  }

  private owned(lease: Lease): boolean {
    const st = this.states.get(lease.entry.url);
    return st?.s === 'leased' && st.token === lease.token;
  }

  async complete(lease: Lease, _record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    if (!this.owned(lease)) throw new StaleLeaseError(lease.entry.url);
    this.states.set(lease.entry.url, DONE);
    this.inFlight--;
    this.done++;
    return this.add(discovered);
  }

  async renew(lease: Lease): Promise<void> {
    if (!this.owned(lease)) throw new StaleLeaseError(lease.entry.url);
  }

  /** The memory store keeps no records (the crawl streams them). */
  async *records(): AsyncIterable<PageRecord> {}

  async release(lease: Lease): Promise<void> {
    if (!this.owned(lease)) throw new StaleLeaseError(lease.entry.url);
    this.states.set(lease.entry.url, QUEUED);
    this.inFlight--;
    this.push(lease.entry);
  }

  async markDone(url: string): Promise<boolean> {
    const st = this.states.get(url);
    if (st?.s === 'leased' || st?.s === 'done') return false;
    if (st?.s === 'queued') this.queued--;
    this.states.set(url, DONE);
    this.done++;
    return true;
  }

  async drain(): Promise<FrontierEntry[]> {
    const out: FrontierEntry[] = [];
    for (let d = 0; d < this.queues.length; d++) {
      const q = this.queues[d]!;
      for (let i = this.heads[d]!; i < q.length; i++) {
        const e = q[i]!;
        if (this.states.get(e.url)?.s !== 'queued') continue;
        this.states.set(e.url, DONE);
        this.done++;
        out.push(e);
      }
      q.length = 0;
      this.heads[d] = 0;
    }
    this.queued = 0;
    return out;
  }

  async counts(): Promise<FrontierCounts> {
    return { queued: this.queued, inFlight: this.inFlight, done: this.done };
  }

  async close(): Promise<void> {}
}
