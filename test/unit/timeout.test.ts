import fs from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { armTimer, CallTimeoutError, STALL_MS, withTimeout } from '../../src/browser/timeout.js';

/** Keep this process busy (no timers, no I/O) for `ms`: a stall such as a long GC or a heap snapshot. */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* the event loop is blocked */
  }
}

describe('withTimeout: a stall of the crawler is not charged to the call', () => {
  it('an answer that arrived during a stall longer than the timeout is taken, not timed out', async () => {
    // The read completes in the thread pool while the main thread is stalled; its callback is
    // pending I/O, which Node would run only after the (late) timer.
    const call = withTimeout(fs.readFile(fileURLToPath(import.meta.url), 'utf8'), 200, 'reading a file');
    stall(STALL_MS + 800);
    await expect(call).resolves.toContain('a stall of the crawler');
  });

  it('a call that never answers still times out, with its own message', async () => {
    const call = withTimeout(new Promise<never>(() => {}), 50, 'waiting for nothing');
    stall(STALL_MS + 300);
    const err = await call.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CallTimeoutError);
    expect((err as Error).message).toBe('waiting for nothing did not finish within 50 ms');
  });

  it('a timer that fires in time is not moved', async () => {
    let fired = 0;
    const started = performance.now();
    await new Promise<void>((resolve) =>
      armTimer(() => {
        fired++;
        resolve();
      }, 30),
    );
    expect(fired).toBe(1);
    // In time means not moved by a stall: well under the 30 ms + STALL_MS a move would add at least.
    expect(performance.now() - started).toBeLessThan(30 + STALL_MS);
  });

  it('a cleared timer never fires, also after it moved', async () => {
    let fired = 0;
    const t = armTimer(() => fired++, 20);
    stall(STALL_MS + 200); // due while stalled: it moves
    await new Promise((r) => setTimeout(r, 5));
    t.clear();
    await new Promise((r) => setTimeout(r, 300));
    expect(fired).toBe(0);
  });
});
