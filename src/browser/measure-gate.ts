/**
 * The gate that lets pages be measured alone (`--vitals-concurrency N`): a visit's measured span
 * (navigation to the read of its vitals) runs only while no other visit works on its page, and
 * at most `N` such spans run at once. Every other step of a visit (the stages before navigation,
 * extraction's aftermath, screenshots, the accessibility check, click and scroll discovery) is
 * work, which runs only while nothing is measured. Measuring goes first: once a visit waits to
 * measure, new work waits. No page starves: the pages in flight are bounded by the crawl's
 * concurrency, so the queue of measurements drains, and the work then runs.
 * @module
 */

/** Time a visit spent waiting at the gate (ms), so its hard deadline can leave it out. */
export interface GateClock {
  waitedMs: number;
}

/** The gate of one crawl (see the module comment). */
export class MeasureGate {
  private measuring = 0;
  private working = 0;
  private readonly measureQueue: (() => void)[] = [];
  private readonly workQueue: (() => void)[] = [];

  /** @param slots - measured spans at once (`--vitals-concurrency`, at least 1) */
  constructor(readonly slots: number) {
    if (!(slots >= 1)) throw new RangeError(`a measure gate needs at least one slot, got ${slots}`);
  }

  /** `true` while any page is measured or waits to be. */
  get busy(): boolean {
    return this.measuring > 0 || this.measureQueue.length > 0;
  }

  /**
   * Wait until this visit may measure (no work in progress, a slot free), and take the slot.
   * @param clock - gets the time waited added
   * @returns the release (idempotent)
   */
  async measure(clock?: GateClock): Promise<() => void> {
    const start = Date.now();
    if (this.working === 0 && this.measuring < this.slots && this.measureQueue.length === 0) this.measuring++;
    else await new Promise<void>((resolve) => this.measureQueue.push(resolve));
    if (clock) clock.waitedMs += Date.now() - start;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.measuring--;
      this.pump();
    };
  }

  /**
   * Wait until this visit may work on its page (nothing measured or waiting to be), and hold the
   * gate for work.
   * @param clock - gets the time waited added
   * @returns the release (idempotent)
   */
  async enterWork(clock?: GateClock): Promise<() => void> {
    const start = Date.now();
    if (!this.busy) this.working++;
    else await new Promise<void>((resolve) => this.workQueue.push(resolve));
    if (clock) clock.waitedMs += Date.now() - start;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.working--;
      this.pump();
    };
  }

  /** Hand the gate on: measurements first, then, when none wait, all waiting work. */
  private pump(): void {
    while (this.working === 0 && this.measuring < this.slots && this.measureQueue.length) {
      this.measuring++;
      this.measureQueue.shift()!();
    }
    if (this.busy) return;
    while (this.workQueue.length) {
      this.working++;
      this.workQueue.shift()!();
    }
  }
}
