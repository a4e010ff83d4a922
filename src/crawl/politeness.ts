import type { PolitenessStore } from '../store/frontier.js';

/** Per-host politeness settings. */
export interface PolitenessOptions {
  /** Page navigations per second per host; `null` = no limit. */
  ratePerSecond: number | null;
  /** Page navigations in flight per host; `null` = only the global concurrency applies. */
  perHostConcurrency: number | null;
}

/** Navigations are spaced this fraction more than asked, so the asked gap holds on the wire. */
export const POLITENESS_MARGIN = 0.05;

/** Wait `ms` (nothing when `ms <= 0`). */
function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/**
 * Wait until the wall clock reads at least `at` (ms since epoch). A Node timer can fire up to
 * a millisecond before its delay has passed by `Date.now()` (its clock is the event loop's,
 * read before the callbacks ran), so a gap kept with one timer can come out a millisecond short;
 * this waits again for what is left.
 */
async function sleepUntil(at: number): Promise<void> {
  for (let left = at - Date.now(); left > 0; left = at - Date.now()) await sleep(left);
}

/** How often a navigation waiting for a crawl-wide per-host slot asks again (ms). */
const SHARED_SLOT_POLL_MS = 50;

/** How often a navigation waiting for an earlier one's request to go out looks again (ms). */
const ORDER_POLL_MS = 10;

/**
 * Longest time (ms) past its reserved time that a navigation's reservation holds the later ones
 * until its request goes out (see {@link Politeness.beforeNavigate}): a visit that ends without
 * navigating closes it at once, so this bounds only a worker that died holding one.
 */
export const RESERVATION_OPEN_MS = 10_000;

/**
 * A navigation's place in its host's order (see {@link Politeness.beforeNavigate}): give it to
 * {@link Politeness.sent} when the request goes out, and to {@link Politeness.done} when the
 * visit ends (which closes it if nothing was sent).
 */
export interface NavigationTicket {
  /** The host's politeness key. */
  readonly key: string;
  /** The reservation: its number on this process's host state, or its name in the shared store. */
  readonly reservation: number | string;
  /** `true` once the request went out or the visit ended. */
  closed: boolean;
}

interface HostState {
  /** Earliest time (ms since epoch) the next navigation may start. */
  nextStart: number;
  /** Retry-After pause: no navigation before this time. */
  pausedUntil: number;
  /** Crawl-delay from robots.txt (ms). */
  crawlDelayMs: number;
  inFlight: number;
  /** The navigation time last reserved for this host (ms since epoch). */
  lastNavigation?: number;
  /** When the last navigation request to this host was seen going out (ms since epoch). */
  lastSent: number;
  /** Reservations made so far (their numbers count up from 1). */
  reservations: number;
  /** Reservations whose request has not gone out yet, by number, with the time (ms since epoch) they stop holding the later ones. */
  open: Map<number, number>;
  /** Crawl-wide in-flight slots this process holds (with a shared store). */
  sharedSlots: string[];
}

/**
 * The per-host politeness gate, keyed by host and port (`127.0.0.1:8080`): spacing between
 * page navigations (`--rate`, robots.txt `Crawl-delay`; the larger gap wins), a cap on
 * navigations in flight per host, and pauses asked for by `Retry-After` (RFC 9110 §10.2.3),
 * which hold the whole host, not only the URL that got them. Subresources are not counted:
 * only the navigations the crawler starts pass through here.
 */
export class Politeness {
  private readonly hosts = new Map<string, HostState>();
  private readonly rateGapMs: number;

  private slotSeq = 0;

  /**
   * @param opts - rate and per-host cap
   * @param store - shared state of a distributed crawl: then the gap, the cap and pauses hold
   * across every worker, not only this process
   */
  constructor(
    private readonly opts: PolitenessOptions,
    private readonly store: PolitenessStore | null = null,
  ) {
    this.rateGapMs = opts.ratePerSecond && opts.ratePerSecond > 0 ? 1000 / opts.ratePerSecond : 0;
  }

  /** The politeness key of a URL: `host:port` with the scheme's default port filled in. */
  static key(url: string): string {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' ? '443' : '80');
    return `${u.hostname}:${port}`;
  }

  private state(key: string): HostState {
    let s = this.hosts.get(key);
    if (!s) {
      s = { nextStart: 0, pausedUntil: 0, crawlDelayMs: 0, inFlight: 0, lastSent: 0, reservations: 0, open: new Map(), sharedSlots: [] };
      this.hosts.set(key, s);
    }
    return s;
  }

  /**
   * Gap between navigations to a host (ms): the larger of `--rate`'s and Crawl-delay's, plus
   * {@link POLITENESS_MARGIN} for the time between the request event and the request reaching
   * the server, which varies by a few ms per request.
   */
  private gapOf(s: HostState): number {
    const gap = Math.max(this.rateGapMs, s.crawlDelayMs);
    return gap > 0 ? gap * (1 + POLITENESS_MARGIN) : 0;
  }

  /** Set the host's robots.txt `Crawl-delay` (ms). */
  setCrawlDelay(key: string, ms: number): void {
    this.state(key).crawlDelayMs = Math.max(0, ms);
  }

  /**
   * How long until a navigation to `key` may start (ms); 0 = now. `Infinity` means the host is
   * at its in-flight cap and must wait for one to finish.
   */
  waitMs(key: string, now = Date.now()): number {
    const s = this.hosts.get(key);
    if (!s) return 0;
    if (this.opts.perHostConcurrency !== null && s.inFlight >= this.opts.perHostConcurrency) return Infinity;
    return Math.max(0, s.nextStart - now, s.pausedUntil - now);
  }

  /**
   * Record that a visit to `key` was scheduled: it holds a per-host slot, and the next start
   * is pushed back by the gap already, so the scheduler does not start a second one at once.
   */
  start(key: string, now = Date.now()): void {
    const s = this.state(key);
    s.inFlight++;
    s.nextStart = Math.max(s.nextStart, now) + this.gapOf(s);
  }

  /**
   * Called right before the navigation request goes out: reserves the next free navigation time
   * of `key` (a gap after the previous reservation, and not inside a Retry-After pause) and waits
   * for it. When the time comes, with a gap to keep, it waits for every earlier reservation's
   * request to go out (or its visit to end without one, or {@link RESERVATION_OPEN_MS}), then for
   * the gap after the last request actually sent (see {@link Politeness.sent}). A reservation
   * alone does not space requests: the time from `page.goto` to the request varies, by seconds
   * on a busy machine, so an earlier reservation's request could go out after a later one's
   * (two workers' requests once reached the server 18 ms apart at `--rate 2`). With a shared
   * store, the reservation (and a crawl-wide per-host in-flight slot) is taken there and the
   * checks see every worker's requests.
   * @returns the navigation's ticket, for {@link Politeness.sent} and {@link Politeness.done}
   * @throws whatever the shared store throws
   */
  async beforeNavigate(key: string): Promise<NavigationTicket> {
    const s = this.state(key);
    const gap = this.gapOf(s);
    if (this.store) {
      const cap = this.opts.perHostConcurrency;
      if (cap !== null) {
        const member = `${process.pid}:${++this.slotSeq}`;
        while (!(await this.store.acquire(key, cap, member))) await sleep(SHARED_SLOT_POLL_MS);
        s.sharedSlots.push(member);
      }
      const { waitMs, reservation } = await this.store.reserve(key, gap, gap > 0 ? RESERVATION_OPEN_MS : 0);
      // Without a gap to keep, nothing waits on the order: the reservation is not kept open.
      const ticket: NavigationTicket = { key, reservation, closed: gap === 0 };
      try {
        const slot = Date.now() + waitMs;
        s.lastNavigation = slot;
        s.nextStart = Math.max(s.nextStart, slot + gap);
        await sleepUntil(slot);
        if (gap > 0) {
          let left: number;
          while ((left = await this.store.recheck(key, gap, reservation)) < 0) await sleep(ORDER_POLL_MS);
          await sleepUntil(Date.now() + left);
        }
      } catch (err) {
        this.done(ticket);
        throw err;
      }
      return ticket;
    }
    // Reserve the slot before sleeping, so two visits waiting together still go out a gap apart.
    const slot = Math.max(Date.now(), (s.lastNavigation ?? 0) + gap, s.pausedUntil);
    s.lastNavigation = slot;
    s.nextStart = Math.max(s.nextStart, slot + gap);
    const seq = ++s.reservations;
    if (gap > 0) s.open.set(seq, slot + RESERVATION_OPEN_MS);
    await sleepUntil(slot);
    if (gap > 0) {
      const earlierOpen = (): boolean => {
        for (const [n, until] of s.open) if (n < seq && until > Date.now()) return true;
        return false;
      };
      while (earlierOpen()) await sleep(ORDER_POLL_MS);
      await sleepUntil(s.lastSent + gap);
    }
    return { key, reservation: seq, closed: gap === 0 };
  }

  /**
   * Record that the navigation request of `ticket` went out at `at` (ms since epoch), so the
   * next navigation is spaced from it. With a shared store the time is recorded there too (best
   * effort: a store that is down stops the crawl through its other calls).
   */
  sent(ticket: NavigationTicket, at = Date.now()): void {
    const s = this.state(ticket.key);
    s.lastSent = Math.max(s.lastSent, at);
    this.close(ticket, true);
  }

  /** The visit of `ticket` ended: its reservation, if its request never went out, stops holding the later ones. */
  done(ticket: NavigationTicket): void {
    this.close(ticket, false);
  }

  private close(ticket: NavigationTicket, sent: boolean): void {
    if (ticket.closed) return;
    ticket.closed = true;
    if (typeof ticket.reservation === 'number') this.state(ticket.key).open.delete(ticket.reservation);
    else if (sent) this.store?.sent(ticket.key, ticket.reservation).catch(() => {});
    else this.store?.giveUp(ticket.key, ticket.reservation).catch(() => {});
  }

  /** Record that a navigation to `key` finished. */
  finish(key: string): void {
    const s = this.state(key);
    s.inFlight = Math.max(0, s.inFlight - 1);
    const member = s.sharedSlots.shift();
    // A slot that cannot be given back (store down) expires with the lease expiry.
    if (member !== undefined) this.store?.release(key, member).catch(() => {});
  }

  /** Hold every navigation to `key` until `until` (ms since epoch), e.g. for `Retry-After`. */
  pause(key: string, until: number): void {
    const s = this.state(key);
    s.pausedUntil = Math.max(s.pausedUntil, until);
    // Best effort: a store that is down stops the crawl through its other calls.
    this.store?.pause(key, until - Date.now()).catch(() => {});
  }
}
