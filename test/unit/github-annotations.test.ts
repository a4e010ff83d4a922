/** GitHub annotations (src/cli/github.ts): what fails the build is an ::error, whatever its rule's severity. */
import { describe, expect, it } from 'vitest';
import { GithubReporter } from '../../src/cli/github.js';
import type { DataStream } from '../../src/cli/io.js';
import { audit, type AuditIssue } from '../../src/report/audit.js';
import { SummaryCounter } from '../../src/report/summary.js';
import { buildRecords } from '../helpers/report-fixture.js';

/** The annotation lines for a crawl of the report fixture under `failOn`, as `level rule` pairs. */
function annotate(failOn: string[], isNew?: (i: AuditIssue) => boolean): string[] {
  const records = buildRecords();
  const counter = new SummaryCounter();
  for (const r of records) counter.add(r);
  let out = '';
  const stdout = { write: (s: string) => ((out += s), true) } as unknown as DataStream;
  new GithubReporter({ GITHUB_ACTIONS: 'true' }, stdout, () => {}, [], false).onEnd({
    records,
    summary: counter.snapshot(1000, 'done'),
    audit: audit(records),
    failOn,
    screenshotsDir: null,
    ...(isNew ? { isNew } : {}),
  });
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => /^::(\w+) title=spacrawl ([\w-]+)::/.exec(l)!.slice(1, 3).join(' '));
}

const count = (lines: string[]): Record<string, number> => Object.fromEntries([...new Set(lines)].sort().map((l) => [l, lines.filter((x) => x === l).length]));

describe('GitHub annotations', () => {
  it('by severity when --fail-on names error rules only; notices are not annotated', () => {
    expect(count(annotate(['broken-link', 'server-error']))).toEqual({
      'error broken-link': 5,
      'error server-error': 1,
      'warning blocked': 1,
      'warning broken-fragment': 1,
      'warning missing-title': 1,
    });
  });

  it('a warning rule that --fail-on names is an ::error (the job fails on it)', () => {
    expect(count(annotate(['broken-link', 'missing-title']))).toEqual({
      'error broken-link': 5,
      'error missing-title': 1,
      'error server-error': 1,
      'warning blocked': 1,
      'warning broken-fragment': 1,
    });
  });

  it('with --baseline, a known finding never fails: an error rule\'s known findings are ::warning, the new ones ::error', () => {
    // Of the fixture's findings only the server error is new.
    const lines = annotate(['broken-link', 'server-error'], (i) => i.rule === 'server-error');
    expect(count(lines)).toEqual({
      'error server-error': 1,
      'warning blocked': 1,
      'warning broken-fragment': 1,
      'warning broken-link': 5,
      'warning missing-title': 1,
    });
  });

  it('page text in an annotation is shown escaped: control codes are never obeyed by the CI log, and % CR LF take the workflow command escapes', () => {
    const records = buildRecords();
    const home = records.find((r) => new URL(r.url).pathname === '/')!;
    for (const l of home.linkDetails) l.text = `Docs\u001b[2J\u001b]0;pwned\u0007 100%\r\nforged`;
    const counter = new SummaryCounter();
    for (const r of records) counter.add(r);
    let out = '';
    const stdout = { write: (s: string) => ((out += s), true) } as unknown as DataStream;
    new GithubReporter({ GITHUB_ACTIONS: 'true' }, stdout, () => {}, [], false).onEnd({ records, summary: counter.snapshot(1000, 'done'), audit: audit(records), failOn: ['broken-link'], screenshotsDir: null });
    expect(out).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    const line = out.split('\n').find((l) => l.includes('pwned'))!;
    expect(line.slice(line.indexOf('"'))).toBe('"Docs\\u001b[2J\\u001b]0;pwned\\u0007 100%25\\u000d\\u000aforged")');
  });
});
