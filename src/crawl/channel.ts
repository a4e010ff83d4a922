/**
 * A single-consumer queue between the crawl loop (producer) and an `AsyncIterable` consumer.
 * Items pushed before the consumer asks are buffered; `close()` ends the iteration after the
 * buffer drains; `fail(err)` ends it with an error.
 */
export class Channel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | null = null;
  private rejectWaiting: ((e: unknown) => void) | null = null;
  private closed = false;
  private error: unknown = null;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      this.rejectWaiting = null;
      w({ value: item, done: false });
    } else this.buffer.push(item);
  }

  close(): void {
    this.closed = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w({ value: undefined, done: true });
    }
  }

  fail(err: unknown): void {
    this.error = err ?? new Error('channel failed');
    this.closed = true;
    if (this.rejectWaiting) {
      const r = this.rejectWaiting;
      this.waiting = null;
      this.rejectWaiting = null;
      r(this.error);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.buffer.length) return Promise.resolve({ value: this.buffer.shift()!, done: false });
        if (this.error) return Promise.reject(this.error);
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiting = resolve;
          this.rejectWaiting = reject;
        });
      },
    };
  }
}
