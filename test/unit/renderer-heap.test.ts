/** When a left tab is worth a full collection (src/browser/renderer-heap.ts). */
import { describe, expect, it } from 'vitest';
import { COLLECT_EVERY_VISITS, HEAP_COLLECT_FLOOR_BYTES, shouldCollect } from '../../src/browser/renderer-heap.js';

const MB = 1024 * 1024;

describe('shouldCollect', () => {
  it('a small heap waits for the periodic collection, every 4th visit', () => {
    expect(COLLECT_EVERY_VISITS).toBe(4);
    expect(HEAP_COLLECT_FLOOR_BYTES).toBe(64 * MB);
    expect(shouldCollect(64 * MB, { heldAfterCollect: 0, visitsSinceCollect: 3 })).toBe(false);
    expect(shouldCollect(5 * MB, { heldAfterCollect: 0, visitsSinceCollect: 4 })).toBe(true);
    expect(shouldCollect(40 * MB, { heldAfterCollect: 10 * MB, visitsSinceCollect: 1 })).toBe(false);
  });

  it('a heap over the floor is collected at once, once it is more than twice what the last collection left', () => {
    expect(shouldCollect(64 * MB + 1, { heldAfterCollect: 0, visitsSinceCollect: 1 })).toBe(true);
    expect(shouldCollect(100 * MB, { heldAfterCollect: 50 * MB, visitsSinceCollect: 1 })).toBe(false);
    expect(shouldCollect(100 * MB + 1, { heldAfterCollect: 50 * MB, visitsSinceCollect: 1 })).toBe(true);
    expect(shouldCollect(70 * MB, { heldAfterCollect: 20 * MB, visitsSinceCollect: 1 })).toBe(true);
  });
});
