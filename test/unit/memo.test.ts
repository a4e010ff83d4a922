/**
 * The bounded memo of pure string functions (src/util/memo.ts), and the memos of `normalize` and
 * `toRequestUrl` built on it: the same answers as without a memo, whatever was asked before.
 */
import { describe, expect, it } from 'vitest';
import { StringMemo } from '../../src/util/memo.js';
import { InvalidUrlError, normalize, toRequestUrl } from '../../src/url/normalize.js';

describe('StringMemo', () => {
  it('computes a key once, remembers falsy values, and starts over when full', () => {
    const calls: string[] = [];
    const memo = new StringMemo<string | null>(3);
    const f = (k: string): string | null => {
      calls.push(k);
      return k === 'none' ? null : k.toUpperCase();
    };
    expect([memo.get('a', f), memo.get('a', f), memo.get('none', f), memo.get('none', f)]).toEqual(['A', 'A', null, null]);
    expect(calls).toEqual(['a', 'none']);
    memo.get('b', f);
    expect(memo.size).toBe(3);
    // Full: the fourth key empties the memo, so 'a' is computed again.
    memo.get('c', f);
    expect(memo.size).toBe(1);
    expect(memo.get('a', f)).toBe('A');
    expect(calls).toEqual(['a', 'none', 'b', 'c', 'a']);
  });

  it('does not remember a throw', () => {
    const memo = new StringMemo<number>();
    let n = 0;
    const f = (): number => {
      n++;
      if (n === 1) throw new Error('first');
      return n;
    };
    expect(() => memo.get('k', f)).toThrow('first');
    expect([memo.get('k', f), memo.get('k', f)]).toEqual([2, 2]);
  });
});

describe('normalize and toRequestUrl with their memos', () => {
  it('answer by the options asked with, also for one options object changed between calls', () => {
    const u = 'http://example.test/a/index.html?utm_source=x&b=1#/r';
    const opts: { foldIndex?: boolean; hashRoutes?: 'auto' | 'drop' | 'keep' } = {};
    expect(normalize(u, opts)).toBe('http://example.test/a/index.html?b=1#/r');
    opts.foldIndex = true;
    expect(normalize(u, opts)).toBe('http://example.test/a/?b=1#/r');
    opts.hashRoutes = 'drop';
    expect(normalize(u, opts)).toBe('http://example.test/a/?b=1');
    expect(normalize(u, { stripParams: ['b'] })).toBe('http://example.test/a/index.html#/r');
    expect(normalize(u)).toBe('http://example.test/a/index.html?b=1#/r');
    expect(normalize(new URL(u))).toBe('http://example.test/a/index.html?b=1#/r');
    expect([toRequestUrl(u), toRequestUrl(u, { hashRoutes: 'drop' }), toRequestUrl(new URL(u), { hashRoutes: 'keep' })]).toEqual([
      'http://example.test/a/index.html?utm_source=x&b=1#/r',
      'http://example.test/a/index.html?utm_source=x&b=1',
      'http://example.test/a/index.html?utm_source=x&b=1#/r',
    ]);
  });

  it('throw InvalidUrlError for a URL that does not parse, every time', () => {
    expect(() => normalize('not a url')).toThrow(InvalidUrlError);
    expect(() => normalize('not a url')).toThrow(InvalidUrlError);
    expect(() => toRequestUrl('not a url')).toThrow(InvalidUrlError);
  });
});
