import { XMLBuilder } from 'fast-xml-parser';
import { RULES, failingIssues, type AuditIssue } from '../audit.js';
import type { ReportInput } from '../formats.js';
import { isPage } from '../../model/record.js';
import { xmlSafe } from './sitemap.js';

/** One line, no control characters: for XML attributes (parsers fold newlines in attributes to spaces anyway). */
function oneLine(s: string, max = 500): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function failureBody(i: AuditIssue): string {
  const lines = [`${i.rule} (${i.severity}): ${RULES[i.rule].description}`, `url: ${i.url}`, i.message];
  if (i.referrers.length) {
    lines.push(`linked from ${i.referrers.length} page(s):`);
    for (const r of i.referrers) lines.push(`  ${r.url}  "${r.text}"`);
  }
  return lines.join('\n');
}

function seconds(ms: number | null | undefined): string {
  return ((ms ?? 0) / 1000).toFixed(3);
}

/**
 * `junit`: JUnit XML for CI test tabs. One `<testsuite name="spacrawl">` (inside `<testsuites>`,
 * which every JUnit reader accepts) with a `<testcase classname="spacrawl.pages" name="URL">` per
 * page and a `<failure type="RULE" message="…">` per non-ignored issue of a `--fail-on` rule, its
 * body naming every referrer with its anchor text. Issues of other rules are listed in the test
 * case's `<system-out>`, so the CI tab shows them without failing the build.
 *
 * Written with fast-xml-parser's `XMLBuilder` (it escapes every attribute and text node); text
 * from pages first goes through {@link xmlSafe}, since XML 1.0 cannot carry control characters.
 */
export function renderJunit(input: ReportInput): string {
  const failing = failingIssues(input.audit, input.failOn);
  const failingSet = new Set(failing);
  const byUrl = new Map<string, { failures: AuditIssue[]; others: AuditIssue[] }>();
  for (const i of input.audit.issues) {
    let e = byUrl.get(i.url);
    if (!e) {
      e = { failures: [], others: [] };
      byUrl.set(i.url, e);
    }
    (failingSet.has(i) ? e.failures : e.others).push(i);
  }
  const cases: { name: string; ms: number | null; classname?: string; out?: string }[] = input.records.filter(isPage).map((r) => ({ name: r.url, ms: r.timings.total ?? r.timings.settledMs }));
  // Redirect records are test cases of their own class: where each URL forwards to.
  for (const r of input.records) {
    if (!r.redirect) continue;
    cases.push({ name: r.url, ms: r.timings.total, classname: 'spacrawl.redirects', out: `redirects${r.status !== null ? ` (${r.status})` : ''} to ${r.finalUrl ?? '?'}${r.skipped === 'scope' ? ' (off-site: not followed)' : ''}` });
  }
  // A failing issue about a URL without a page record still gets a test case, so no failure is lost.
  const named = new Set(cases.map((c) => c.name));
  for (const i of failing) {
    if (!named.has(i.url)) {
      named.add(i.url);
      cases.push({ name: i.url, ms: null });
    }
  }
  const emitted = new Set<string>();
  const testcase = cases.map((c) => {
    // The same URL twice (should not happen) gets its failures once.
    const e = emitted.has(c.name) ? undefined : byUrl.get(c.name);
    emitted.add(c.name);
    const tc: Record<string, unknown> = { '@_classname': c.classname ?? 'spacrawl.pages', '@_name': xmlSafe(c.name), '@_time': seconds(c.ms) };
    if (e?.failures.length) {
      tc.failure = e.failures.map((i) => ({ '@_type': i.rule, '@_message': xmlSafe(oneLine(i.message)), '#text': xmlSafe(failureBody(i)) }));
    }
    const out = [...(c.out ? [c.out] : []), ...(e?.others ?? []).map((i) => `${i.ignored ? '[ignored] ' : ''}${i.rule} (${i.severity}): ${oneLine(i.message, 2000)}`)];
    if (out.length) tc['system-out'] = xmlSafe(out.join('\n'));
    return tc;
  });
  const counts = { '@_tests': String(cases.length), '@_failures': String(failing.length), '@_errors': '0' };
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': 'spacrawl',
      ...counts,
      '@_time': seconds(input.summary.elapsedMs),
      testsuite: {
        '@_name': 'spacrawl',
        ...counts,
        '@_skipped': '0',
        '@_time': seconds(input.summary.elapsedMs),
        properties: { property: { '@_name': 'fail-on', '@_value': xmlSafe(input.failOn.join(',')) } },
        testcase,
      },
    },
  };
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true });
  return builder.build(doc) as string;
}
