/**
 * A gate for the cases of a `describe.concurrent` file: at most `n` bodies run at once, the
 * others wait their turn (first come, first served). A file whose cases each crawl with a
 * process of their own runs two side by side, not all of them at once on a 2-core machine.
 * @param n - bodies allowed to run at once (>= 1)
 */
export function gate(n: number): <T>(body: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(body: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((r) => waiting.push(r));
    else running++;
    try {
      return await body();
    } finally {
      const next = waiting.shift();
      if (next) next(); // the slot passes on as it is
      else running--;
    }
  };
}
