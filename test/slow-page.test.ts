import { describe, expect, it } from 'vitest';
import { unionLength } from '../src/browser/server-wait.js';
import { audit } from '../src/report/audit.js';
import { blankRecord, type PageRecord, type PageTimings } from '../src/model/record.js';

const page = (path: string, timings: Partial<PageTimings>): PageRecord => {
  const r = blankRecord(`http://site.test${path}`, `http://site.test${path}`, 0, null);
  Object.assign(r, { status: 200, finalUrl: r.url, title: path, attempts: 1, meta: { description: 'd', canonical: null, h1Count: 1 } });
  r.timings = { ...r.timings, ttfb: 5, settledMs: 400, total: 500, ...timings };
  return r;
};
const slowPages = (records: PageRecord[], slowMs = 3000): string[] =>
  audit(records, { slowMs })
    .issues.filter((i) => i.rule === 'slow-page')
    .map((i) => new URL(i.url).pathname);

describe('slow-page judges the time the page waited for servers, not its settle time', () => {
  it('a late settle with a short server wait is not slow; a long server wait is', () => {
    const recs = [page('/contended', { settledMs: 9000, serverWaitMs: 120 }), page('/slow-api', { settledMs: 3500, serverWaitMs: 3200 }), page('/edge', { serverWaitMs: 3000 })];
    expect(slowPages(recs)).toEqual(['/slow-api']);
    expect(slowPages(recs, 100)).toEqual(['/contended', '/edge', '/slow-api']);
  });
  it('records from before serverWaitMs (no such timing) are not judged', () => {
    const old = page('/old', { settledMs: 9000 });
    delete (old.timings as Partial<PageTimings>).serverWaitMs;
    expect(slowPages([old, page('/unknown', { settledMs: 9000, serverWaitMs: null })])).toEqual([]);
  });
});

describe('unionLength: overlapping waits count once, waits in sequence add up', () => {
  it('adds disjoint spans and merges overlapping or nested ones', () => {
    expect(unionLength([])).toBe(0);
    expect(unionLength([[0, 100], [200, 300]])).toBe(200);
    expect(unionLength([[0, 100], [50, 150], [60, 70]])).toBe(150);
    expect(unionLength([[200, 300], [0, 100], [100, 200]])).toBe(300);
    expect(unionLength([[10, 10], [20, 5]])).toBe(0);
  });
});
