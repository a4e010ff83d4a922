/** When a renderer is worth a full collection, and its watch (src/browser/renderer-heap.ts). */
import { describe, expect, it } from 'vitest';
import { COLLECT_EVERY_VISITS, HEAP_GROWTH_FLOOR_BYTES, heapBytes, RendererHeaps, shouldCollect } from '../../src/browser/renderer-heap.js';

const MB = 1024 * 1024;

describe('shouldCollect', () => {
  it('the floor: heaps that grew by 16 MB or less since the last collection wait', () => {
    expect(HEAP_GROWTH_FLOOR_BYTES).toBe(16 * MB);
    expect(shouldCollect(16 * MB, { heldAfterCollect: 0, visitsSinceCollect: 1 })).toBe(false);
    expect(shouldCollect(16 * MB + 1, { heldAfterCollect: 0, visitsSinceCollect: 1 })).toBe(true);
    expect(shouldCollect(21 * MB, { heldAfterCollect: 5 * MB, visitsSinceCollect: 9 })).toBe(false);
    expect(shouldCollect(21 * MB + 1, { heldAfterCollect: 5 * MB, visitsSinceCollect: 9 })).toBe(true);
  });

  it('above the floor, heaps are collected once they more than doubled', () => {
    expect(shouldCollect(100 * MB, { heldAfterCollect: 50 * MB, visitsSinceCollect: 1 })).toBe(false);
    expect(shouldCollect(100 * MB + 1, { heldAfterCollect: 50 * MB, visitsSinceCollect: 1 })).toBe(true);
  });

  it("every 64th visit of the renderer's tabs whatever the heaps say, and not before", () => {
    expect(COLLECT_EVERY_VISITS).toBe(64);
    expect(shouldCollect(5 * MB, { heldAfterCollect: 5 * MB, visitsSinceCollect: 63 })).toBe(false);
    expect(shouldCollect(5 * MB, { heldAfterCollect: 5 * MB, visitsSinceCollect: 64 })).toBe(true);
  });

  it('RendererHeaps: one watch per isolate id, the least recently seen dropped past the limit', () => {
    const heaps = new RendererHeaps();
    const first = heaps.watch('a');
    first.visitsSinceCollect = 3;
    expect(heaps.watch('a')).toBe(first);
    expect(heaps.watch('b')).not.toBe(first);
    expect(heaps.size).toBe(2);
    for (let i = 0; i < RendererHeaps.LIMIT - 2; i++) heaps.watch(`r${i}`);
    expect(heaps.size).toBe(RendererHeaps.LIMIT);
    // 'a' was seen after 'b': the next new renderer drops 'b', and 'a' keeps its count.
    heaps.watch('a');
    heaps.watch('new');
    expect(heaps.size).toBe(RendererHeaps.LIMIT);
    expect(heaps.watch('a').visitsSinceCollect).toBe(3);
    expect(heaps.watch('b').visitsSinceCollect).toBe(0);
  });

  it("heapBytes: V8's held heap plus Blink's, which older Chromium does not report", () => {
    expect(heapBytes({ totalSize: 3 * MB, embedderHeapUsedSize: 5 * MB })).toBe(8 * MB);
    expect(heapBytes({ totalSize: 3 * MB })).toBe(3 * MB);
  });
});
