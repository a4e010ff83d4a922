/**
 * Waiting on several things at once without leaving anything behind on the long-lived ones.
 * @module
 */

/**
 * The longest wait a timer can hold (ms): 2^31 − 1, about 24.8 days. Node fires a longer
 * `setTimeout` at once (with a `TimeoutOverflowWarning`), so a longer timeout would be none.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Resolve once any of `promises` settles (fulfilled or rejected: the caller reads them), `signal`
 * aborts, or `timeoutMs` passes, whichever comes first. Never rejects.
 *
 * Unlike `Promise.race([...promises, untilAborted])` with one promise kept for the crawl's whole
 * life, it leaves no reaction on that promise: a loop that races it once per page would keep
 * every race's closure until the crawl ends (~2 per page; a heap that grows with the pages).
 * The abort listener and the timer are removed when it resolves.
 * @param timeoutMs - longest wait (ms); `Infinity` or omitted for none
 */
export function settledOrAborted(promises: readonly Promise<unknown>[], signal: AbortSignal, timeoutMs = Infinity): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      signal.removeEventListener('abort', finish);
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener('abort', finish, { once: true });
    if (Number.isFinite(timeoutMs)) timer = setTimeout(finish, Math.max(0, timeoutMs));
    for (const p of promises) p.then(finish, finish);
  });
}

/**
 * A wake-up call for one waiter at a time: {@link Wakeup.wait} resolves at the next
 * {@link Wakeup.notify}, or at once when a call came while nobody waited (it is kept for the
 * next wait, so none is lost between a look and the wait that follows it).
 */
export class Wakeup {
  private waiting: { promise: Promise<void>; resolve: () => void } | null = null;
  private missed = false;

  /** Resolves at the next {@link Wakeup.notify} (at once if one came while nobody waited). */
  wait(): Promise<void> {
    if (this.missed) {
      this.missed = false;
      return Promise.resolve();
    }
    if (!this.waiting) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  /** Wake whoever waits now, or the next wait. */
  notify(): void {
    const w = this.waiting;
    this.waiting = null;
    if (w) w.resolve();
    else this.missed = true;
  }
}
