import type { PageRecord } from '../model/record.js';
import { StaleLeaseError, type Frontier, type FrontierEntry, type Lease } from '../store/frontier.js';

/** Where a {@link LeaseKeeper} reports what it cannot handle itself. */
export interface LeaseHooks {
  /** Told when a lease was lost before its page was recorded (another worker records the page). */
  onNotice: (message: string) => void;
  /** A store failure while renewing (anything but a lost lease): the crawl must stop. */
  onFailure: (err: unknown) => void;
}

/**
 * The leases one worker holds, from `next()` to `complete()` or `release()`: the held set, the
 * renewal of expiring leases (every third of the frontier's `leaseTtlMs`), the count of
 * navigations started per URL (a page's `attempts`), and the two ways a lease ends.
 *
 * A lease another worker took over (it expired: this worker stalled or the store restarted) is
 * never an error here: renewing drops it, completing it leaves the page to the new holder,
 * releasing it does nothing ({@link StaleLeaseError} is swallowed, every other store error is not).
 */
export class LeaseKeeper {
  /** Leases this worker holds (visiting or parked). */
  private readonly held = new Set<Lease>();
  /** Canonical URL → navigations started for it in this process. */
  private readonly attempts = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  /**
   * @param frontier - the store the leases come from
   * @param hooks - where a lost lease and a store failure are reported
   */
  constructor(
    private readonly frontier: Frontier,
    private readonly hooks: LeaseHooks,
  ) {}

  /** Take a lease just handed out by `frontier.next()` into the held set. */
  hold(lease: Lease): void {
    this.held.add(lease);
  }

  /** `true` while `lease` is held (neither finished, released nor lost in a renewal). */
  holds(lease: Lease): boolean {
    return this.held.has(lease);
  }

  /**
   * Renew the held leases every third of the frontier's `leaseTtlMs` (at least every 100 ms)
   * until {@link LeaseKeeper.stopRenewing}. Nothing happens for stores whose leases never expire.
   */
  startRenewing(): void {
    const ttl = this.frontier.leaseTtlMs;
    if (!ttl || this.timer) return;
    this.timer = setInterval(() => void this.renewAll(), Math.max(100, ttl / 3));
  }

  /** Stop the renewal timer. */
  stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Renew every held lease once. A lease lost meanwhile (it expired and another worker took it)
   * is dropped: that worker records the page. Any other store error goes to `hooks.onFailure`
   * and ends this round.
   */
  async renewAll(): Promise<void> {
    for (const lease of [...this.held]) {
      try {
        await this.frontier.renew(lease);
      } catch (err) {
        if (err instanceof StaleLeaseError) {
          this.held.delete(lease);
          continue;
        }
        this.hooks.onFailure(err);
        return;
      }
    }
  }

  /**
   * Count a navigation of the lease's URL about to start.
   * @returns the attempt number (1 = the first navigation of this URL in this process)
   */
  beginAttempt(lease: Lease): number {
    const attempt = (this.attempts.get(lease.entry.url) ?? 0) + 1;
    this.attempts.set(lease.entry.url, attempt);
    return attempt;
  }

  /** `true` when a navigation of `url` was started before in this process (a retry, not a first visit). */
  hasStarted(url: string): boolean {
    return this.attempts.has(url);
  }

  /**
   * Complete a lease: its record and the links found on its page go to the frontier in one
   * fenced step. When the lease was lost to another worker, the page is left to that worker.
   * @returns the discovered entries that were new, or `null` when the lease was lost (nothing written)
   * @throws the store's error for anything but a lost lease
   */
  async finish(lease: Lease, record: PageRecord, discovered: readonly FrontierEntry[]): Promise<FrontierEntry[] | null> {
    this.held.delete(lease);
    try {
      const fresh = await this.frontier.complete(lease, record, discovered);
      // The URL is decided: its attempt count is not needed again, and keeping it would grow
      // with every page of the crawl. (A lost lease keeps it: the URL may come back here.)
      this.attempts.delete(lease.entry.url);
      return fresh;
    } catch (err) {
      if (!(err instanceof StaleLeaseError)) throw err;
      this.hooks.onNotice(`the lease on ${lease.entry.url} expired before the page was recorded; another worker visits it again`);
      return null;
    }
  }

  /**
   * Give a lease back unrecorded (a visit cut short by cancellation, a parked URL at the end): the
   * URL goes back to the queue, and its last navigation in this process is not counted as an
   * attempt. A lease already lost is ignored.
   * @throws the store's error for anything but a lost lease
   */
  async release(lease: Lease): Promise<void> {
    this.held.delete(lease);
    const url = lease.entry.url;
    const attempt = this.attempts.get(url);
    // Kept at 0 rather than forgotten: the budget counted this URL once already.
    if (attempt !== undefined) this.attempts.set(url, Math.max(0, attempt - 1));
    try {
      await this.frontier.release(lease);
    } catch (err) {
      if (!(err instanceof StaleLeaseError)) throw err;
    }
  }
}
