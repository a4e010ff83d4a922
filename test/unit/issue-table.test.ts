import { describe, expect, it } from 'vitest';
import { IssueTable } from '../../src/cli/reporting.js';
import type { AuditIssue, AuditResult } from '../../src/report/audit.js';
import type { ReportInput } from '../../src/report/input.js';
import { SummaryCounter } from '../../src/report/summary.js';

const issue = (rule: AuditIssue['rule'], severity: AuditIssue['severity'], url: string, ignored = false): AuditIssue => ({ rule, severity, url, message: `${rule} on ${url}`, referrers: [], ignored });

/** The lines the table logs for `issues` with `failOn`. */
function table(issues: AuditIssue[], failOn: string[]): string[] {
  const counts: AuditResult['counts'] = {};
  for (const i of issues) if (!i.ignored) counts[i.rule] = (counts[i.rule] ?? 0) + 1;
  const input: ReportInput = { records: [], summary: new SummaryCounter().snapshot(0, 'done'), audit: { issues, counts }, failOn, screenshotsDir: null };
  const lines: string[] = [];
  new IssueTable((l) => lines.push(l)).onEnd(input);
  return lines;
}

describe('the issue table on the log', () => {
  it('names the URL of a rule that does not fail the run (e.g. the first of several), none for a rule the failing list names', () => {
    const lines = table(
      [
        issue('broken-link', 'error', 'http://h/missing'),
        issue('stuck-loading', 'warning', 'http://h/loading'),
        issue('missing-h1', 'notice', 'http://h/ignored', true),
        issue('missing-h1', 'notice', 'http://h/a'),
        issue('missing-h1', 'notice', 'http://h/b'),
      ],
      ['broken-link'],
    );
    expect(lines).toEqual([
      'issues:',
      '  error   broken-link          1',
      '  warning stuck-loading        1     http://h/loading',
      '  notice  missing-h1           2     e.g. http://h/a',
      '  (1 ignored by --ignore-url / .spacrawlignore)',
      'failing (1):',
      '  broken-link    http://h/missing  broken-link on http://h/missing',
    ]);
  });

  it('names the control after a URL whose finding a click raised (it is in the record\'s clickDiscovery.errors, not with the page\'s own), on both lists', () => {
    const clicked = (rule: AuditIssue['rule'], url: string): AuditIssue => ({ ...issue(rule, 'error', url), subject: 'after working "Clojure" (menuitem in menu)' });
    const a11y = { ...issue('a11y-serious', 'warning', 'http://h/c'), subject: 'color-contrast' };
    const lines = table([clicked('console-error', 'http://h/op'), clicked('js-error', 'http://h/op'), a11y], ['js-error']);
    expect(lines).toEqual([
      'issues:',
      '  warning console-error        1     http://h/op after working "Clojure" (menuitem in menu)',
      '  error   js-error             1',
      '  warning a11y-serious         1     http://h/c',
      'failing (1):',
      '  js-error       http://h/op after working "Clojure" (menuitem in menu)  js-error on http://h/op',
    ]);
  });

  it('with nothing failing, every rule names a URL; with no issue, nothing is logged', () => {
    expect(table([issue('broken-link', 'error', 'http://h/missing')], ['none'])).toEqual(['issues:', '  error   broken-link          1     http://h/missing']);
    expect(table([], ['broken-link'])).toEqual([]);
  });
});
