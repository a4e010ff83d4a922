/** When a left tab's heap is worth a full collection (src/browser/renderer-heap.ts). */
import { describe, expect, it } from 'vitest';
import { HEAP_COLLECT_FLOOR_BYTES, shouldCollect } from '../../src/browser/renderer-heap.js';

const MB = 1024 * 1024;

describe('shouldCollect', () => {
  it('never below the floor, whatever the last collection left', () => {
    expect(HEAP_COLLECT_FLOOR_BYTES).toBe(64 * MB);
    expect(shouldCollect(64 * MB, { heldAfterCollect: 0 })).toBe(false);
    expect(shouldCollect(64 * MB + 1, { heldAfterCollect: 0 })).toBe(true);
    expect(shouldCollect(40 * MB, { heldAfterCollect: 10 * MB })).toBe(false);
  });

  it('above the floor, only once the heap is more than twice what the last collection left', () => {
    expect(shouldCollect(100 * MB, { heldAfterCollect: 50 * MB })).toBe(false);
    expect(shouldCollect(100 * MB + 1, { heldAfterCollect: 50 * MB })).toBe(true);
    expect(shouldCollect(70 * MB, { heldAfterCollect: 20 * MB })).toBe(true);
  });
});
