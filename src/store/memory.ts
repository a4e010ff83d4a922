/**
 * The default frontier: in memory, for one process (see {@link MemoryFrontier}).
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { PageRecord } from '../model/record.js';
import { StaleLeaseError, type Frontier, type FrontierCounts, type FrontierEntry, type Lease } from './frontier.js';

/** A URL waiting: queued for a visit, or held past `--max-depth`; `entry` is its current one. */
interface Waiting {
  s: 'queued' | 'held';
  entry: FrontierEntry;
}

type State = Waiting | { s: 'leased'; token: string } | { s: 'done' };

/** The state without data, shared by every done URL (one map entry per URL, no object each). */
const DONE: State = Object.freeze({ s: 'done' });

/**
 * FIFO lists of entries, one per depth, served lowest depth first. An entry whose URL moved on
 * (leased, done, or given a smaller depth: a newer entry stands for it) is left in its list and
 * passed over when reached (`live` says which are current).
 */
class Levels {
  /** lists[depth] = FIFO of entries; heads[depth] = index of the next one. */
  private readonly lists: FrontierEntry[][] = [];
  private readonly heads: number[] = [];

  constructor(private readonly live: (e: FrontierEntry) => boolean) {}

  push(e: FrontierEntry): void {
    while (this.lists.length <= e.depth) {
      this.lists.push([]);
      this.heads.push(0);
    }
    this.lists[e.depth]!.push(e);
  }

  /** The first live entry of the lowest depth, left in place (entries passed over on the way are dropped). */
  first(): FrontierEntry | null {
    for (let d = 0; d < this.lists.length; d++) {
      const q = this.lists[d]!;
      while (this.heads[d]! < q.length) {
        const e = q[this.heads[d]!]!;
        if (this.live(e)) return e;
        this.advance(d);
      }
    }
    return null;
  }

  /** Drop the first entry of `depth` (the one {@link Levels.first} gave). */
  advance(depth: number): void {
    const q = this.lists[depth]!;
    this.heads[depth]!++;
    if (this.heads[depth] === q.length) {
      q.length = 0;
      this.heads[depth] = 0;
    }
  }

  /** Take out every live entry of depth `below - 1` or less, breadth-first. */
  takeBelow(below: number): FrontierEntry[] {
    const out: FrontierEntry[] = [];
    for (let d = 0; d < Math.min(below, this.lists.length); d++) {
      const q = this.lists[d]!;
      for (let i = this.heads[d]!; i < q.length; i++) if (this.live(q[i]!)) out.push(q[i]!);
      q.length = 0;
      this.heads[d] = 0;
    }
    return out;
  }
}

/**
 * The default {@link Frontier}: everything in memory, lost when the process ends; records are
 * not kept (they stream to the reporters).
 * Breadth-first: one FIFO queue per depth, the lowest non-empty depth served first; held URLs
 * wait in lists of their own (leased URLs counted per depth, for {@link MemoryFrontier.decideHeld}).
 */
export class MemoryFrontier implements Frontier {
  private readonly states = new Map<string, State>();
  private readonly queue = new Levels((e) => this.isCurrent(e, 'queued'));
  private readonly holding = new Levels((e) => this.isCurrent(e, 'held'));
  /** leased[depth] = URLs of that depth leased now. */
  private readonly leased: number[] = [];
  private queued = 0;
  private held = 0;
  private inFlight = 0;
  private done = 0;

  /** `true` while `e` is the current entry of its URL, which is in state `s`. */
  private isCurrent(e: FrontierEntry, s: Waiting['s']): boolean {
    const st = this.states.get(e.url);
    return st?.s === s && st.entry === e;
  }

  async add(entries: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    const taken: FrontierEntry[] = [];
    for (const e of entries) {
      const st = this.states.get(e.url);
      if (st === undefined) {
        if (e.skip) {
          this.states.set(e.url, DONE);
          this.done++;
        } else this.wait(e);
        taken.push(e);
        continue;
      }
      // Only a waiting URL changes, only to a smaller depth, and a queued one is never held again.
      if (e.skip || (st.s !== 'queued' && st.s !== 'held') || e.depth >= st.entry.depth || (st.s === 'queued' && e.held)) continue;
      if (st.s === 'queued') this.queued--;
      else this.held--;
      this.wait(e);
      taken.push(e);
    }
    return taken;
  }

  /** Make `e` its URL's current entry, queued or held. */
  private wait(e: FrontierEntry): void {
    if (e.held) {
      this.states.set(e.url, { s: 'held', entry: e });
      this.holding.push(e);
      this.held++;
    } else {
      this.states.set(e.url, { s: 'queued', entry: e });
      this.queue.push(e);
      this.queued++;
    }
  }

  /** The smallest depth of a leased URL, or `Infinity` when none is leased. */
  private lowestLeased(): number {
    const d = this.leased.findIndex((n) => n > 0);
    return d < 0 ? Infinity : d;
  }

  async next(): Promise<Lease | null> {
    const e = this.queue.first();
    if (!e) return null;
    this.queue.advance(e.depth);
    this.queued--;
    const token = randomUUID();
    this.states.set(e.url, { s: 'leased', token });
    while (this.leased.length <= e.depth) this.leased.push(0);
    this.leased[e.depth]!++;
    this.inFlight++;
    return { entry: e, token };
  }

  async decideHeld(): Promise<FrontierEntry[]> {
    if (this.held === 0) return [];
    const lowest = Math.min(this.queue.first()?.depth ?? Infinity, this.lowestLeased());
    // A held URL of depth d is decided once nothing of depth d - 2 or less waits or is leased.
    const decided = this.holding.takeBelow(lowest + 2);
    for (const e of decided) this.states.set(e.url, DONE);
    this.held -= decided.length;
    this.done += decided.length;
    return decided.map(({ held: _, ...e }) => e);
  }

  private owned(lease: Lease): boolean {
    const st = this.states.get(lease.entry.url);
    return st?.s === 'leased' && st.token === lease.token;
  }

  /** The lease's URL is no longer leased. */
  private unlease(lease: Lease): void {
    this.leased[lease.entry.depth]!--;
    this.inFlight--;
  }

  async complete(lease: Lease, _record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[]> {
    if (!this.owned(lease)) throw new StaleLeaseError(lease.entry.url);
    this.states.set(lease.entry.url, DONE);
    this.unlease(lease);
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
    this.unlease(lease);
    this.wait(lease.entry);
  }

  async markDone(url: string): Promise<boolean> {
    const st = this.states.get(url);
    if (st?.s === 'leased' || st?.s === 'done') return false;
    if (st?.s === 'queued') this.queued--;
    if (st?.s === 'held') this.held--;
    this.states.set(url, DONE);
    this.done++;
    return true;
  }

  async drain(): Promise<FrontierEntry[]> {
    const out = this.queue.takeBelow(Infinity);
    for (const e of out) this.states.set(e.url, DONE);
    this.done += out.length;
    this.queued = 0;
    return out;
  }

  async counts(): Promise<FrontierCounts> {
    return { queued: this.queued + this.held, inFlight: this.inFlight, done: this.done };
  }

  async close(): Promise<void> {}
}
