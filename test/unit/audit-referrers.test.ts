import { describe, expect, it } from 'vitest';
import { blankRecord, MAX_LINK_DETAILS } from '../../src/model/record.js';
import { audit } from '../../src/report/audit.js';

const O = 'http://site.test';

describe('audit: referrers of a link past a page\'s link details', () => {
  it('a broken link a page lists only in links (its details full) still names that page, without text', () => {
    const big = blankRecord(`${O}/big`, `${O}/big`, 0, null);
    big.status = 200;
    big.title = 'Big';
    big.linkDetails = Array.from({ length: MAX_LINK_DETAILS }, (_, i) => ({ url: `${O}/m/${i}`, text: `m${i}`, source: 'anchor' as const, nofollow: false }));
    big.links = [...big.linkDetails.map((l) => l.url), `${O}/m/late`];
    const small = blankRecord(`${O}/small`, `${O}/small`, 0, null);
    small.status = 200;
    small.title = 'Small';
    small.links = [`${O}/m/late`];
    small.linkDetails = [{ url: `${O}/m/late`, text: 'late', source: 'anchor', nofollow: false }];
    const gone = blankRecord(`${O}/m/late`, `${O}/m/late`, 1, `${O}/big`);
    gone.status = 404;
    const issue = audit([big, small, gone]).issues.find((i) => i.rule === 'broken-link' && i.url === `${O}/m/late`)!;
    expect(issue.referrers).toEqual([
      { url: `${O}/big`, text: '' },
      { url: `${O}/small`, text: 'late' },
    ]);
  });
});
