import { XMLBuilder } from 'fast-xml-parser';
import { RULES } from '../../report/audit.js';
import { xmlSafe } from '../../report/formats/sitemap.js';
import { uncomparedText } from '../checks.js';
import { failingFindings, matchesFailOn } from '../findings.js';
import type { Finding } from '../types.js';
import type { DiffReportInput } from './input.js';
import { changeCountsText, oneLine, statusText } from './words.js';

/** Test case name of a finding: `RULE URL`, plus ` on PAGE` for a link rule's referrer. */
function caseName(f: Finding): string {
  return `${f.rule} ${f.url}${f.page !== null && f.page !== f.url ? ` on ${f.page}` : ''}`;
}

function body(f: Finding): string {
  const lines = [`${f.rule} (${f.severity}): ${RULES[f.rule].description}`, `url: ${f.url}`];
  if (f.page !== null && f.page !== f.url) lines.push(`linked from: ${f.page}${f.text ? `  "${f.text}"` : ''}`);
  lines.push(f.message);
  return lines.join('\n');
}

/**
 * `junit`: JUnit XML for CI test tabs. One `<testsuite name="spacrawl.diff">` with a test case
 * per new finding (`classname="spacrawl.diff.new"`; a `<failure type="RULE">` when it matches
 * `--fail-on`, else its message in `<system-out>`), a passing test case per fixed finding
 * (`spacrawl.diff.fixed`), and one `spacrawl.diff` test case whose `<system-out>` counts the
 * URL changes and lists the status changes. Unchanged findings are only counted (a property).
 * Written with fast-xml-parser's `XMLBuilder`; text goes through `xmlSafe` first.
 */
export function renderDiffJunit(input: DiffReportInput): string {
  const { diff: d, failOn } = input;
  const failing = failingFindings(d, failOn).length;
  const testcase: Record<string, unknown>[] = [];
  for (const f of d.findings.new) {
    const tc: Record<string, unknown> = { '@_classname': 'spacrawl.diff.new', '@_name': xmlSafe(caseName(f)), '@_time': '0.000' };
    if (matchesFailOn(f, failOn)) tc.failure = { '@_type': f.rule, '@_message': xmlSafe(oneLine(f.message, 500)), '#text': xmlSafe(body(f)) };
    else tc['system-out'] = xmlSafe(`${f.ignored ? '[ignored] ' : ''}${body(f)}`);
    testcase.push(tc);
  }
  for (const f of d.findings.fixed) testcase.push({ '@_classname': 'spacrawl.diff.fixed', '@_name': xmlSafe(caseName(f)), '@_time': '0.000' });
  const changes = [
    changeCountsText(d),
    ...d.checks.uncompared.map((u) => `not compared: ${uncomparedText(u)}`),
    ...d.notices.map((n) => `note: ${n}`),
    ...d.statusChanges.map((s) => `status ${s.url}: ${statusText(s.old)} -> ${statusText(s.new)}`),
  ];
  testcase.push({ '@_classname': 'spacrawl.diff', '@_name': 'changes', '@_time': '0.000', 'system-out': xmlSafe(changes.join('\n')) });
  const counts = { '@_tests': String(testcase.length), '@_failures': String(failing), '@_errors': '0' };
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': 'spacrawl diff',
      ...counts,
      testsuite: {
        '@_name': 'spacrawl.diff',
        ...counts,
        '@_skipped': '0',
        properties: {
          property: [
            { '@_name': 'fail-on', '@_value': xmlSafe(failOn.join(',')) },
            { '@_name': 'old', '@_value': xmlSafe(d.old.source) },
            { '@_name': 'new', '@_value': xmlSafe(d.new.source) },
            { '@_name': 'unchanged-findings', '@_value': String(d.findings.unchanged.length) },
          ],
        },
        testcase,
      },
    },
  };
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true });
  return builder.build(doc) as string;
}
