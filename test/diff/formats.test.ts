import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { DIFF_FORMATTERS, parseDiffReportSpec } from '../../src/diff/formats/index.js';
import { renderDiffJson } from '../../src/diff/formats/json.js';
import { GITHUB_COMMENT_MAX_CHARS, renderDiffMarkdown } from '../../src/diff/formats/markdown.js';
import { diffSummary } from '../../src/diff/terminal.js';
import { failingFindings, parseGateFailOn } from '../../src/diff/findings.js';
import type { CrawlDiff, Finding } from '../../src/diff/types.js';
import { emptyDiff, sampleDiff } from './sample-diff.js';

const GOLDEN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const FAIL_ON = ['broken-link', 'server-error'];
const EXT: Record<string, string> = { markdown: 'md', json: 'json', html: 'html', junit: 'xml' };

/**
 * The golden text of a format. `UPDATE_GOLDEN=1` rewrites the files from the current output
 * (then review the change with `git diff test/diff/golden`).
 */
function golden(name: string, actual: string): string {
  const file = path.join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, actual);
  return fs.readFileSync(file, 'utf8');
}

describe('diff report formats: golden strings', () => {
  for (const format of Object.keys(EXT)) {
    it(`${format} renders the sample diff exactly`, () => {
      const text = DIFF_FORMATTERS[format]!({ diff: sampleDiff(), failOn: FAIL_ON });
      expect(text).toBe(golden(`diff.${EXT[format]}`, text));
    });
  }

  it('terminal summary: new findings first, counts per kind, verdict last', () => {
    const text = diffSummary(sampleDiff(), FAIL_ON);
    expect(text).toBe(golden('summary.txt', text));
  });

  it('an empty diff says so in every format', () => {
    const input = { diff: emptyDiff(), failOn: FAIL_ON };
    expect(renderDiffMarkdown(input)).toBe(golden('empty.md', renderDiffMarkdown(input)));
    expect(diffSummary(emptyDiff(), FAIL_ON)).toBe(
      [
        'spacrawl diff: old/pages.jsonl (7 pages) → old/pages.jsonl (7 pages)',
        '0 new findings',
        '0 fixed findings, 1 unchanged',
        'changes: 0 pages added, 0 pages removed, 0 status changes, 0 title changes, 0 redirect changes, 0 new soft 404s, 0 pages that lost links, 0 timing changes, 0 visual changes',
        'no changes',
        'passes under --fail-on broken-link,server-error: no new finding of those rules',
      ].join('\n'),
    );
    expect(DIFF_FORMATTERS.html!(input)).toContain('<p>No changes: the same pages, statuses, titles, redirects, links and findings.</p>');
    expect(JSON.parse(renderDiffJson(input))).toMatchObject({ failing: 0, failOn: FAIL_ON, findings: { new: [], fixed: [] } });
  });
});

describe('--fail-on new', () => {
  it('is shown as typed and fails on the new findings of every error- and warning-level rule, as warnings does', () => {
    const gate = parseGateFailOn('new', true);
    expect(gate).toEqual({ usesNew: true, rules: ['new'] });
    const d = sampleDiff();
    expect(diffSummary(d, gate.rules).split('\n').at(-1)).toMatch(/^fails under --fail-on new: \d+ new findings?$/);
    expect(failingFindings(d, gate.rules)).toEqual(failingFindings(d, ['warnings']));
    expect(failingFindings(d, gate.rules).length).toBeGreaterThan(0);
    expect(failingFindings(d, gate.rules).every((f) => f.severity !== 'notice')).toBe(true);
    expect(diffSummary(emptyDiff(), gate.rules).split('\n').at(-1)).toBe('passes under --fail-on new: no new finding of those rules');
    expect(() => parseGateFailOn('new', false)).toThrow('--fail-on new: "new" needs --baseline (the crawl to compare with)');
    expect(parseGateFailOn('new:broken-link,server-error', true).rules).toEqual(['broken-link', 'server-error']);
  });
});

describe('diff report formats: properties', () => {
  it('json is the diff plus the verdict; junit is valid XML with one failure per failing new finding', () => {
    const json = JSON.parse(renderDiffJson({ diff: sampleDiff(), failOn: FAIL_ON })) as Record<string, unknown>;
    expect(json).toEqual({ ...sampleDiff(), failOn: FAIL_ON, failing: 2 });
    const xml = DIFF_FORMATTERS.junit!({ diff: sampleDiff(), failOn: FAIL_ON });
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
      testsuites: { testsuite: { failures: string; tests: string; testcase: { name: string; failure?: { type: string } }[] } };
    };
    const suite = doc.testsuites.testsuite;
    expect([suite.tests, suite.failures]).toEqual(['8', '2']);
    expect(suite.testcase.filter((c) => c.failure).map((c) => c.name)).toEqual([
      'broken-link https://site.test/guide on https://site.test/about',
      'broken-link https://site.test/promo on https://site.test/',
    ]);
  });

  it('html escapes page text and never links a non-http URL', () => {
    const d = sampleDiff();
    d.titleChanges[0]!.new = '<script>alert(1)</script>';
    d.pages.added[0]!.url = 'javascript:alert(1)';
    const html = DIFF_FORMATTERS.html!({ diff: d, failOn: FAIL_ON });
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('href="javascript:');
  });

  it('markdown fits a GitHub comment: at most 65,536 characters, new findings first, a last line saying how many more', () => {
    const d = sampleDiff();
    const many = (i: number): Finding => ({ rule: 'broken-link', severity: 'error', url: `https://site.test/gone/${i}`, page: `https://site.test/list/${i}`, text: `Link ${i}`, message: 'HTTP 404', count: 1, ignored: false });
    const big: CrawlDiff = { ...d, findings: { ...d.findings, new: Array.from({ length: 3000 }, (_, i) => many(i)) } };
    const all = 3000 + d.findings.fixed.length + 1 + 2 + 2 + 1 + 1 + 1 + 1 + 2 + 1;
    const md = renderDiffMarkdown({ diff: big, failOn: FAIL_ON });
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_MAX_CHARS);
    expect(md.length).toBeGreaterThan(GITHUB_COMMENT_MAX_CHARS - 500);
    const shown = md.split('\n').filter((l) => l.startsWith('- ')).length;
    expect(md.split('\n').filter((l) => l.startsWith('- ')).every((l) => l.includes('`broken-link`'))).toBe(true);
    expect(md.endsWith(`\n_… and ${all - shown} more items not shown: the json and html reports list them all._\n`)).toBe(true);
    expect(md.indexOf('### New findings (3000)')).toBeGreaterThan(0);
    // A smaller budget keeps fewer items and says so.
    const small = renderDiffMarkdown({ diff: d, failOn: FAIL_ON }, 1500);
    expect(small.length).toBeLessThanOrEqual(1500);
    expect(small).toMatch(/_… and \d+ more items? not shown/);
  });

  it('--report specs: the four formats, a path or stdout; an unknown format is refused', () => {
    expect(parseDiffReportSpec('markdown')).toEqual({ format: 'markdown', path: null });
    expect(parseDiffReportSpec('JUNIT:out/j.xml')).toEqual({ format: 'junit', path: path.resolve('out/j.xml') });
    expect(() => parseDiffReportSpec('csv:x.csv')).toThrow('unknown report format "csv" for diff (known: markdown, json, html, junit)');
  });
});
