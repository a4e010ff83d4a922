/** Thrown by {@link withTimeout} when the wrapped call does not settle in time. */
export class CallTimeoutError extends Error {
  readonly code = 'timeout';
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
    this.name = 'CallTimeoutError';
  }
}

/**
 * Settle `p` or reject after `ms` milliseconds, so no single browser call can hang a worker
 * (the rule Browsertrix Crawler follows). The underlying call is not cancelled.
 * @throws CallTimeoutError after `ms`
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeoutError(what, ms)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** Resolve after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
