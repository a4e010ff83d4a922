/**
 * The measure gate (src/browser/measure-gate.ts): measured spans never overlap work or each
 * other beyond the slots, measuring goes first, and every waiter is served. No browser: the
 * order of events is asserted, never durations.
 */
import { describe, expect, it } from 'vitest';
import { MeasureGate, type GateClock } from '../../src/browser/measure-gate.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('MeasureGate', () => {
  it('a measurement waits for work in progress; new work waits for the measurement', async () => {
    const gate = new MeasureGate(1);
    const log: string[] = [];
    const releaseWork = await gate.enterWork();
    log.push('work 1 in');
    const measuring = gate.measure().then((release) => (log.push('measure in'), release));
    // Work that arrives while a measurement waits goes after it.
    const work2 = gate.enterWork().then((release) => (log.push('work 2 in'), release));
    await tick();
    expect(log).toEqual(['work 1 in']);
    releaseWork();
    const releaseMeasure = await measuring;
    await tick();
    expect(log).toEqual(['work 1 in', 'measure in']);
    releaseMeasure();
    (await work2)();
    expect(log).toEqual(['work 1 in', 'measure in', 'work 2 in']);
  });

  it('at most `slots` measurements at once; the queue drains in order; releases are idempotent', async () => {
    const gate = new MeasureGate(2);
    const inside = new Set<number>();
    let peak = 0;
    const order: number[] = [];
    const run = async (i: number): Promise<void> => {
      const release = await gate.measure();
      inside.add(i);
      order.push(i);
      peak = Math.max(peak, inside.size);
      await tick();
      inside.delete(i);
      release();
      release();
    };
    await Promise.all([0, 1, 2, 3, 4].map(run));
    expect({ peak, order }).toEqual({ peak: 2, order: [0, 1, 2, 3, 4] });
    // Nothing is held any more: work goes in at once.
    expect(gate.busy).toBe(false);
    (await gate.enterWork())();
  });

  it('work runs side by side while nothing is measured, and the time waited is counted', async () => {
    const gate = new MeasureGate(1);
    const a = await gate.enterWork();
    const b = await gate.enterWork();
    const clock: GateClock = { waitedMs: 0 };
    const m = gate.measure(clock);
    await new Promise((r) => setTimeout(r, 30));
    a();
    await tick();
    expect(gate.busy).toBe(true);
    b();
    (await m)();
    expect(clock.waitedMs).toBeGreaterThanOrEqual(25);
  });

  it('refuses no slots', () => {
    expect(() => new MeasureGate(0)).toThrow(RangeError);
  });
});
