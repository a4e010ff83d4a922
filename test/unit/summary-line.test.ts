import { PassThrough } from 'node:stream';
import picocolors from 'picocolors';
import { describe, expect, it } from 'vitest';
import { IssueTable } from '../../src/cli/reporting.js';
import { blankRecord } from '../../src/model/record.js';
import { audit } from '../../src/report/audit.js';
import { TerminalLog, type LogStream } from '../../src/report/progress.js';
import { SummaryCounter } from '../../src/report/summary.js';
import { recordLine, summaryLine } from '../../src/report/terminal.js';
import { printable } from '../../src/util/printable.js';

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

describe('page text on the terminal: control codes are shown escaped, never obeyed', () => {
  // Clear screen, set the window title (OSC 0), colour, a bell, a carriage return that would
  // overwrite the line, a C1 CSI, and a right-to-left override.
  const HOSTILE = 'a\u001b[2J\u001b]0;pwned\u0007 \u001b[31mred\rb\u009b2Jc\u202Ed\ttab';
  const SHOWN = 'a\\u001b[2J\\u001b]0;pwned\\u0007 \\u001b[31mred\\u000db\\u009b2Jc\\u202ed\ttab';

  /** A log stream that keeps what is written. */
  function sink(): { stream: LogStream; text: () => string } {
    const s = new PassThrough() as PassThrough & LogStream;
    let out = '';
    s.on('data', (c: Buffer) => (out += c.toString()));
    return { stream: s, text: () => out };
  }

  it('printable escapes C0 (but tab), DEL, C1 and bidi controls as \\uXXXX, and keeps the rest', () => {
    expect(printable(HOSTILE)).toBe(SHOWN);
    expect(printable('line\nforged\u007f')).toBe('line\\u000aforged\\u007f');
    expect(printable('😀 עברית «ok» \uD800')).toBe('😀 עברית «ok» \uD800');
  });

  it('a page line escapes the error message; with colour on, the status keeps its own colour', () => {
    const r = blankRecord('http://127.0.0.1/x', 'http://127.0.0.1/x', 0, null);
    r.error = { code: 'page-crashed', message: HOSTILE };
    r.timings.total = 5;
    expect(recordLine(r, 'http://127.0.0.1')).toBe(`ERR  /x  5 ms  page-crashed: ${SHOWN}`);
    const colors = picocolors.createColors(true);
    expect(recordLine(r, 'http://127.0.0.1', { colors })).toBe(`\u001b[31mERR\u001b[39m  /x  5 ms  page-crashed: ${SHOWN}`);
    const skipped = blankRecord('http://127.0.0.1/y', 'http://127.0.0.1/y', 0, null);
    skipped.skipped = 'robots';
    skipped.error = { code: 'robots-unavailable', message: HOSTILE };
    expect(recordLine(skipped, 'http://127.0.0.1', { colors })).toBe(`\u001b[2mskip\u001b[22m /y  (robots: ${SHOWN})`);
  });

  it('the log escapes what its lines carry: the failing list with anchor text and a script error', () => {
    const out = sink();
    const log = new TerminalLog({ stream: out.stream, env: { FORCE_COLOR: '1' } });
    const broken = blankRecord('http://127.0.0.1/gone', 'http://127.0.0.1/gone', 1, 'http://127.0.0.1/');
    broken.status = 404;
    const home = blankRecord('http://127.0.0.1/', 'http://127.0.0.1/', 0, null);
    home.status = 200;
    home.links = [broken.url];
    home.linkDetails = [{ url: broken.url, text: HOSTILE, source: 'anchor', nofollow: false }];
    home.pageErrors = [`Error: ${HOSTILE}`];
    const records = [home, broken];
    const c = new SummaryCounter();
    for (const r of records) c.add(r);
    new IssueTable((l) => log.line(l)).onEnd({ records, summary: c.snapshot(1, 'done'), audit: audit(records), failOn: ['broken-link', 'js-error'], screenshotsDir: null });
    const lines = out.text().split('\n');
    expect(out.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(lines).toContain(`  broken-link    http://127.0.0.1/gone  HTTP 404 ← http://127.0.0.1/ "${printable(HOSTILE.slice(0, 60))}"`);
    expect(lines).toContain(`  js-error       http://127.0.0.1/  Error: ${SHOWN}`);
  });
});
