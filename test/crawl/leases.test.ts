// Lease keeping without a browser, over the memory frontier: finish, release, renewal, and a
// lease lost to another holder never being an error.
import { describe, expect, it } from 'vitest';
import { StaleLeaseError, type FrontierEntry, type Lease } from '../../src/store/frontier.js';
import { LeaseKeeper } from '../../src/crawl/leases.js';
import { MemoryFrontier } from '../../src/store/memory.js';
import { blankRecord } from '../../src/model/record.js';

const entry = (url: string, depth = 0): FrontierEntry => ({ url, requestedUrl: url, depth, referrer: null });

/** A memory frontier counting renewals; `down` makes renew and release fail as an unreachable store would. */
class CountingFrontier extends MemoryFrontier {
  renewals = 0;
  down = false;
  override async renew(lease: Lease): Promise<void> {
    if (this.down) throw new Error('store unreachable');
    await super.renew(lease);
    this.renewals++; // renewals that succeeded
  }
  override async release(lease: Lease): Promise<void> {
    if (this.down) throw new Error('store unreachable');
    return super.release(lease);
  }
}

/** The same, with leases that expire (as SQLite's and Redis's do). */
class ExpiringFrontier extends CountingFrontier {
  readonly leaseTtlMs = 300;
}

async function setup<F extends MemoryFrontier>(frontier: F) {
  const notices: string[] = [];
  const failures: unknown[] = [];
  const keeper = new LeaseKeeper(frontier, { onNotice: (m) => notices.push(m), onFailure: (e) => failures.push(e) });
  await frontier.add([entry('http://a.test/'), entry('http://a.test/b', 1)]);
  const lease = (await frontier.next())!;
  keeper.hold(lease);
  return { frontier, keeper, lease, notices, failures };
}

describe('LeaseKeeper', () => {
  it('finish completes the lease with its record and returns the new links; the lease is no longer held', async () => {
    const { frontier, keeper, lease } = await setup(new MemoryFrontier());
    const fresh = await keeper.finish(lease, blankRecord(lease.entry.url, lease.entry.requestedUrl, 0, null), [entry('http://a.test/b', 1), entry('http://a.test/c', 1)]);
    expect(fresh?.map((e) => e.url)).toEqual(['http://a.test/c']);
    expect(keeper.holds(lease)).toBe(false);
    expect(await frontier.counts()).toEqual({ queued: 2, inFlight: 0, done: 1 });
  });

  it('finish of a lease another holder took writes nothing, says so, and returns null', async () => {
    const { frontier, keeper, lease, notices } = await setup(new MemoryFrontier());
    // The lease expired: the URL went back to the queue and was leased again under a new token.
    await frontier.release(lease);
    const other = await frontier.next();
    expect(other?.entry.url).toBe(lease.entry.url);
    expect(await keeper.finish(lease, blankRecord(lease.entry.url, null, 0, null), [entry('http://a.test/c', 1)])).toBeNull();
    expect(notices).toEqual(['the lease on http://a.test/ expired before the page was recorded; another worker visits it again']);
    expect(await frontier.counts()).toEqual({ queued: 1, inFlight: 1, done: 0 });
  });

  it('counts attempts per URL; release gives the URL back and takes its last attempt back', async () => {
    const { frontier, keeper, lease } = await setup(new MemoryFrontier());
    expect(keeper.hasStarted(lease.entry.url)).toBe(false);
    expect(keeper.beginAttempt(lease)).toBe(1);
    expect(keeper.beginAttempt(lease)).toBe(2);
    await keeper.release(lease);
    expect(keeper.holds(lease)).toBe(false);
    // Still counted as started for the budget, but the cut-short navigation is not an attempt.
    expect(keeper.hasStarted(lease.entry.url)).toBe(true);
    const again = (await frontier.next())!;
    expect(again.entry.url).toBe(lease.entry.url);
    expect(keeper.beginAttempt(again)).toBe(2);
  });

  it('release of a lease already lost is ignored; a store failure is not', async () => {
    const { frontier, keeper, lease } = await setup(new ExpiringFrontier());
    await frontier.release(lease);
    await expect(keeper.release(lease)).resolves.toBeUndefined();
    const next = (await frontier.next())!;
    keeper.hold(next);
    frontier.down = true;
    await expect(keeper.release(next)).rejects.toThrow('store unreachable');
  });

  it('renewAll drops a lost lease silently and reports a store failure once', async () => {
    const { frontier, keeper, lease, failures } = await setup(new ExpiringFrontier());
    const second = (await frontier.next())!;
    keeper.hold(second);
    await frontier.release(lease); // lost
    await keeper.renewAll();
    expect(keeper.holds(lease)).toBe(false);
    expect(keeper.holds(second)).toBe(true);
    expect(frontier.renewals).toBe(1);
    expect(failures).toEqual([]);
    frontier.down = true;
    await keeper.renewAll();
    expect(failures).toHaveLength(1);
    expect(failures[0]).not.toBeInstanceOf(StaleLeaseError);
    expect(keeper.holds(second)).toBe(true);
  });

  it('renews held leases on a timer while running, and not after stopRenewing', async () => {
    const { frontier, keeper } = await setup(new ExpiringFrontier());
    keeper.startRenewing();
    const deadline = Date.now() + 20_000;
    while (frontier.renewals < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    keeper.stopRenewing();
    expect(frontier.renewals).toBeGreaterThanOrEqual(2);
    const after = frontier.renewals;
    await new Promise((r) => setTimeout(r, 400));
    expect(frontier.renewals).toBe(after);
  });

  it('does not renew for a store whose leases never expire', async () => {
    const { frontier, keeper } = await setup(new CountingFrontier());
    keeper.startRenewing();
    await new Promise((r) => setTimeout(r, 400));
    keeper.stopRenewing();
    expect(frontier.renewals).toBe(0);
  });
});
