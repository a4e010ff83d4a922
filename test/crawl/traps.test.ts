import { describe, expect, it } from 'vitest';
import { calendarPath, TrapDetector } from '../../src/crawl/traps.js';

const segs = (p: string): string[] => p.split('/').filter(Boolean);

describe('calendarPath: the path with its date taken out', () => {
  it('a year and a month (and a day) in a row, or a date in one segment', () => {
    expect(calendarPath(segs('/cal/2024/01'))).toBe('/cal/{date}');
    expect(calendarPath(segs('/cal/2024/1/'))).toBe('/cal/{date}');
    expect(calendarPath(segs('/events/2024/12/31/list'))).toBe('/events/{date}/list');
    expect(calendarPath(segs('/agenda/2024-03-09'))).toBe('/agenda/{date}');
    expect(calendarPath(segs('/2019/05/a-post'))).toBe('/{date}/a-post');
  });
  it('no date: a single number, a year without a month, ids that are not a month', () => {
    expect(calendarPath(segs('/posts/123'))).toBeNull();
    expect(calendarPath(segs('/releases/2024'))).toBeNull();
    expect(calendarPath(segs('/c/2024/p/13'))).toBeNull();
    expect(calendarPath(segs('/product/1234/13'))).toBeNull();
    expect(calendarPath(segs('/'))).toBeNull();
  });
});

describe('TrapDetector', () => {
  it('a calendar path with more dates than maxQueryVariants is a trap; the dates seen stay allowed; other calendars count apart', () => {
    const t = new TrapDetector({ maxQueryVariants: 3, maxPathSegments: 30 });
    const o = 'http://site.test';
    expect(['2024/01', '2024/02', '2024/03', '2024/04', '2024/01'].map((d) => t.check(`${o}/cal/${d}`))).toEqual([null, null, null, 'more than 3 dates on /cal/{date}', null]);
    expect(t.check(`${o}/other/2024/04`)).toBeNull();
    expect(t.check('http://elsewhere.test/cal/2024/04')).toBeNull();
    // A blog's posts each have their own calendar path.
    expect(['a', 'b', 'c', 'd', 'e'].map((s) => t.check(`${o}/2024/01/${s}`))).toEqual([null, null, null, null, null]);
    // Numbers that are no date are never counted.
    expect(Array.from({ length: 10 }, (_, i) => t.check(`${o}/posts/${i}`))).toEqual(Array(10).fill(null));
  });
  it('query variants and repeating segments, as before', () => {
    const t = new TrapDetector({ maxQueryVariants: 2, maxPathSegments: 4 });
    expect(['a', 'b', 'c', 'a'].map((m) => t.check(`http://s.test/cal?m=${m}`))).toEqual([null, null, 'more than 2 query variants on /cal', null]);
    expect(t.check('http://s.test/a/b/c/d/e')).toBe('path deeper than 4 segments');
    expect(t.check('http://s.test/x/x/x')).toBe('repeating path segments');
  });
});
