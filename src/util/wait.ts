/**
 * Waiting on several things at once without leaving anything behind on the long-lived ones.
 * @module
 */

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
