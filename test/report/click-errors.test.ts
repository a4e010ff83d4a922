import { describe, expect, it } from 'vitest';
import { clickErrorIssues, clickedSubjects, clickSubject, isClickSubject } from '../../src/report/click-errors.js';
import { audit } from '../../src/report/audit.js';
import { blankRecord, type PageRecord } from '../../src/model/record.js';

const SKIP = { chrome: 0, template: 0, budget: 0, limit: 0, restore: 0 };

describe('click subjects', () => {
  it('name the control from its signature: kind, name (which may hold a |), landmark; a hovered one says so', () => {
    expect(clickSubject('button|Search|header')).toBe('after working "Search" (button in header)');
    expect(clickSubject('hover:div|Row | 2|')).toBe('after working "Row | 2" (hovered div in page)');
    expect(clickSubject('odd')).toBe('after working odd');
    expect(isClickSubject(clickSubject('option|Dark|body'))).toBe(true);
    expect(isClickSubject('color-contrast')).toBe(false);
    expect(isClickSubject(undefined)).toBe(false);
  });

  it('of the controls a record worked; null when its record does not say (an older version), none when nothing was clicked', () => {
    expect(clickedSubjects({ clickDiscovery: { made: 1, skipped: SKIP, clicked: ['button|Go|main', 7 as unknown as string] } })).toEqual(new Set(['after working "Go" (button in main)']));
    expect(clickedSubjects({ clickDiscovery: { made: 1, skipped: SKIP } })).toBeNull();
    expect(clickedSubjects({ clickDiscovery: null })).toEqual(new Set());
  });
});

describe('click-raised issues', () => {
  const record = (errors: unknown[]): PageRecord => ({
    ...blankRecord('http://a.test/', 'http://a.test/', 0, null),
    status: 200,
    title: 'A',
    attempts: 1,
    pageErrors: ['Error: boot'],
    clickDiscovery: { made: 2, skipped: SKIP, clicked: ['button|Go|main', 'tab|Two|main'], errors: errors as never },
  });

  it('each uncaught exception one js-error, each request one failed-request or mixed-content, each control its console errors and hydration messages in one finding each; entries of another shape left out', () => {
    const r = record([
      { control: 'button|Go|main', kind: 'console', message: 'one' },
      { control: 'button|Go|main', kind: 'page', message: 'TypeError: x' },
      { control: 'button|Go|main', kind: 'console', message: 'two' },
      { control: 'tab|Two|main', kind: 'page', message: 'RangeError: y' },
      { control: 'tab|Two|main', kind: 'request', message: 'fetch http://a.test/api: 404' },
      { control: 'tab|Two|main', kind: 'hydration', message: 'React: Hydration failed because …' },
      { control: 'tab|Two|main', kind: 'mixed-content', message: 'http://a.test/x.png' },
      { control: 'tab|Two|main', kind: 'hydration', message: 'React: There was an error while hydrating' },
      null,
      { control: 'tab|Two|main', kind: 'other', message: 'z' },
    ]);
    expect(clickErrorIssues(r)).toEqual([
      { rule: 'js-error', message: 'TypeError: x', subject: 'after working "Go" (button in main)' },
      { rule: 'js-error', message: 'RangeError: y', subject: 'after working "Two" (tab in main)' },
      { rule: 'failed-request', message: 'fetch http://a.test/api: 404', subject: 'after working "Two" (tab in main)' },
      { rule: 'mixed-content', message: 'http: subresource on an https: page: http://a.test/x.png', subject: 'after working "Two" (tab in main)' },
      { rule: 'console-error', message: '2 console error(s): one', subject: 'after working "Go" (button in main)' },
      { rule: 'hydration-error', message: '2 hydration mismatch messages: React: Hydration failed because …', subject: 'after working "Two" (tab in main)' },
    ]);
    const rules = new Set(['js-error', 'console-error', 'failed-request', 'hydration-error', 'mixed-content']);
    const issues = audit([r]).issues.filter((i) => rules.has(i.rule));
    expect(issues.map((i) => `${i.rule} ${i.subject ?? '(as loaded)'}`).sort()).toEqual([
      'console-error after working "Go" (button in main)',
      'failed-request after working "Two" (tab in main)',
      'hydration-error after working "Two" (tab in main)',
      'js-error (as loaded)',
      'js-error after working "Go" (button in main)',
      'js-error after working "Two" (tab in main)',
      'mixed-content after working "Two" (tab in main)',
    ]);
  });

  it('none without errors, or in a record of an older version', () => {
    expect(clickErrorIssues(record([]))).toEqual([]);
    expect(clickErrorIssues({ clickDiscovery: { made: 0, skipped: SKIP } })).toEqual([]);
    expect(clickErrorIssues({ clickDiscovery: null })).toEqual([]);
  });
});
