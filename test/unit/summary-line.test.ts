import { describe, expect, it } from 'vitest';
import { blankRecord } from '../../src/model/record.js';
import { SummaryCounter } from '../../src/report/summary.js';
import { recordLine, summaryLine } from '../../src/report/terminal.js';

/** A 200 page at `url` linking to `links`. */
function page(url: string, links: string[] = []) {
  const r = blankRecord(url, url, 0, null);
  r.status = 200;
  r.links = links;
  return r;
}

describe('the summary line', () => {
  it('counts one of a kind in the singular', () => {
    const c = new SummaryCounter();
    c.add(page('http://127.0.0.1/'));
    expect(summaryLine(c.snapshot(1500, 'done'))).toBe('1 page, 1 ok, 0 errors, 0 skipped by robots.txt, 1 unique URL, 1.5 s');
  });

  it('counts several in the plural', () => {
    const c = new SummaryCounter();
    c.add(page('http://127.0.0.1/', ['http://127.0.0.1/a']));
    c.add(page('http://127.0.0.1/a'));
    expect(summaryLine(c.snapshot(2000, 'done'))).toBe('2 pages, 2 ok, 0 errors, 0 skipped by robots.txt, 2 unique URLs, 2.0 s');
  });

  it('one error page is "1 error"; one of every other count is singular too', () => {
    const c = new SummaryCounter();
    const broken = page('http://127.0.0.1/');
    broken.status = 404;
    c.add(broken);
    expect(summaryLine(c.snapshot(500, 'done'))).toBe('1 page, 0 ok, 1 error, 0 skipped by robots.txt, 1 unique URL, 0.5 s');
    const one = { ...c.snapshot(500, 'done'), soft404: 1, redirects: 1, sitemapUrls: 1, orphans: ['http://127.0.0.1/'], logins: { logins: 1, relogins: 1, failedLogins: 1, loggedOutVisits: 0, restricted: 0 } };
    expect(summaryLine(one)).toBe(
      '1 page, 0 ok, 1 error, 1 soft 404, 1 redirect, 0 skipped by robots.txt, 1 unique URL, 1 from sitemaps (1 orphan), 1 login (1 after the session ended, 1 failed), 0.5 s',
    );
  });

  it('a seed whose host could not be reached is an error counted as unreachable, not as skipped by robots.txt', () => {
    const c = new SummaryCounter();
    const r = blankRecord('http://127.0.0.1:9/', 'http://127.0.0.1:9/', 0, null);
    r.error = { code: 'network', message: 'the host could not be reached, not even for robots.txt (connect ECONNREFUSED 127.0.0.1:9): nothing was requested' };
    c.add(r);
    // A page whose request failed on the network after one attempt is an error, not unreachable.
    const refused = blankRecord('http://127.0.0.1:9/b', 'http://127.0.0.1:9/b', 1, null);
    refused.attempts = 1;
    refused.error = { code: 'network', message: 'ERR_CONNECTION_REFUSED' };
    c.add(refused);
    const s = c.snapshot(100, 'done');
    expect([s.errors, s.unreachable, s.robotsSkipped, s.robotsUnavailable, s.skipped]).toEqual([2, 1, 0, 0, {}]);
    expect(summaryLine(s)).toBe('2 pages, 0 ok, 2 errors (1 unreachable, not even robots.txt), 0 skipped by robots.txt, 2 unique URLs, 0.1 s');
  });
});

describe('the page line', () => {
  it('a page with no answer says its error without a link count; a page that answered keeps its count, 0 or more', () => {
    const dead = blankRecord('http://127.0.0.1:1/', 'http://127.0.0.1:1/', 0, null);
    dead.error = { code: 'network', message: 'connection refused' };
    dead.timings.total = 12;
    expect(recordLine(dead, 'http://127.0.0.1:1')).toBe('ERR  /  12 ms  network: connection refused');
    const missing = page('http://127.0.0.1/gone', ['http://127.0.0.1/']);
    missing.status = 404;
    missing.settled = true;
    expect(recordLine(missing, 'http://127.0.0.1')).toBe('404  /gone  1 link');
    const empty = page('http://127.0.0.1/empty');
    empty.settled = true;
    expect(recordLine(empty, 'http://127.0.0.1')).toBe('200  /empty  0 links');
  });
});
