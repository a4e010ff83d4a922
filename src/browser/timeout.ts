/** Thrown by {@link withTimeout} when the wrapped call does not settle in time. */
export class CallTimeoutError extends Error {
  readonly code = 'timeout';
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'CallTimeoutError';
  }
}

/**
 * How late (ms) a timer must fire for the process to count as having stalled meanwhile (a long
 * garbage collection, a heap snapshot, a machine that gave it no CPU).
 */
export const STALL_MS = 1_000;

/** A timer armed by {@link armTimer}; `clear()` disarms it (also after it moved). */
export interface ArmedTimer {
  clear(): void;
}

/**
 * Call `fire` after `ms` milliseconds of this process's own running time. A timer that fires
 * more than {@link STALL_MS} late tells that the process was stalled meanwhile: the answers the
 * browser sent during the stall are still unread, and the timer runs before them (Node runs due
 * timers before it reads pending I/O). So the lost time is not charged to what is being timed:
 * the timer moves by the stall, and fires only when it comes due in time. A busy process
 * (timers a little late) is not a stalled one: nothing moves then.
 * @param ms - running time to wait (ms)
 * @param now - the clock (ms, monotonic), for tests
 */
export function armTimer(fire: () => void, ms: number, now: () => number = () => performance.now()): ArmedTimer {
  let timer: NodeJS.Timeout | undefined;
  const arm = (wait: number): void => {
    const due = now() + wait;
    timer = setTimeout(() => {
      const late = now() - due;
      if (late > STALL_MS) arm(Math.min(late, ms));
      else fire();
    }, wait);
  };
  arm(ms);
  return { clear: () => clearTimeout(timer) };
}

/**
 * Settle `p` or reject after `ms` milliseconds, so no single browser call can hang a worker
 * (the rule Browsertrix Crawler follows). The underlying call is not cancelled. Time this
 * process spent stalled is not counted (see {@link armTimer}): a stall of the crawler is never
 * blamed on the page.
 * @throws CallTimeoutError after `ms`
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ArmedTimer | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = armTimer(() => reject(new CallTimeoutError(what, ms)), ms);
  });
  return Promise.race([p, t]).finally(() => timer?.clear());
}

/** Resolve after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
