import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { settledOrAborted } from '../../src/util/wait.js';

const never = new Promise<never>(() => {});

describe('settledOrAborted', () => {
  it('resolves when one of the promises settles, fulfilled or rejected, and removes its abort listener', async () => {
    const ctl = new AbortController();
    let resolveA!: () => void;
    const a = new Promise<void>((r) => (resolveA = r));
    const wait = settledOrAborted([never, a], ctl.signal);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(1);
    resolveA();
    await wait;
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);

    const failed = Promise.reject(new Error('page failed'));
    failed.catch(() => {});
    await expect(settledOrAborted([failed], ctl.signal)).resolves.toBeUndefined();
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('resolves on abort, and at once when already aborted', async () => {
    const ctl = new AbortController();
    const wait = settledOrAborted([never], ctl.signal);
    ctl.abort();
    await wait;
    await settledOrAborted([never], ctl.signal);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('resolves after the timeout, and not before it', async () => {
    const ctl = new AbortController();
    let done = false;
    const wait = settledOrAborted([never], ctl.signal, 40).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(done).toBe(false);
    await wait;
    expect(done).toBe(true);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });

  it('a thousand waits leave nothing on the signal', async () => {
    const ctl = new AbortController();
    for (let i = 0; i < 1000; i++) await settledOrAborted([Promise.resolve(i)], ctl.signal);
    expect(getEventListeners(ctl.signal, 'abort')).toHaveLength(0);
  });
});
