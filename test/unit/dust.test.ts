import { describe, expect, it } from 'vitest';
import { DUST_LEARN_AFTER, DustLearner } from '../../src/crawl/dust.js';

const O = 'http://site.test';

describe('DustLearner', () => {
  it('URLs whose queries differ as written are no duplicates while nothing is learned (Latin-1 escapes, + and %20)', () => {
    const d = new DustLearner();
    for (const u of [`${O}/s?q=%E9`, `${O}/s?q=%E0`, `${O}/s?q=%FC`, `${O}/s?q=a+b`, `${O}/s?q=a%20b`]) expect(d.duplicateOf(u), u).toBeNull();
  });

  it(`a parameter that changed nothing ${DUST_LEARN_AFTER} times is learned; its other values are then duplicates, other parameters not`, () => {
    const d = new DustLearner();
    const learned: string[] = [];
    for (const v of ['a', 'b', 'c']) {
      expect(d.duplicateOf(`${O}/p?id=1&ref=${v}`)).toBeNull();
      learned.push(...d.observe(`${O}/p?id=1&ref=${v}`, 'same'));
    }
    expect(learned).toEqual(['q:ref']);
    expect(d.duplicateOf(`${O}/p?id=1&ref=%E9`)).toBe(`${O}/p?id=1&ref=c`);
    expect(d.duplicateOf(`${O}/p?id=2&ref=a`)).toBeNull();
    expect(d.rules()).toEqual([`${O}: ref`]);
  });
});
