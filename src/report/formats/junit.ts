import { XMLBuilder } from 'fast-xml-parser';
import { RULES, failingIssues, type AuditIssue } from '../audit.js';
import { isPage } from '../../model/record.js';
import type { ReportInput, ReportSink } from '../input.js';
import { stringSink, xmlAround, xmlItem, xmlSafe } from './shared.js';

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
 * The `left-out` property of the suite: what the JUnit report does not hold, for a reader of
 * the CI tab who counts test cases against the crawl's records.
 * @param notPages - records that are neither a page nor a redirect record (skipped URLs, non-HTML files)
 */
export function junitLeftOut(notPages: number): string {
  return `${notPages} URL${notPages === 1 ? '' : 's'} not visited as a page (skipped: robots, budget, trap ...; non-HTML files) ${notPages === 1 ? 'has' : 'have'} no test case; issues of rules outside fail-on are in system-out, not failures; pages.jsonl has every record`;
}

/** A test case before it is turned into XML. */
interface Case {
  name: string;
  ms: number | null;
  classname?: string;
  out?: string;
}

const WRAP = ['testsuites', 'testsuite'] as const;

/**
 * `junit`: JUnit XML for CI test tabs. One `<testsuite name="spacrawl">` (inside `<testsuites>`,
 * which every JUnit reader accepts) with a `<testcase classname="spacrawl.pages" name="URL">` per
 * page and a `<failure type="RULE" message="…">` per non-ignored issue of a `--fail-on` rule (with
 * `--baseline`, per new one: known findings never fail), its
 * body naming every referrer with its anchor text. Issues of other rules are listed in the test
 * case's `<system-out>`, so the CI tab shows them without failing the build. The suite's
 * `left-out` property says what has no test case (see {@link junitLeftOut}).
 *
 * Written with fast-xml-parser's `XMLBuilder` (it escapes every attribute and text node); text
 * from pages first goes through {@link xmlSafe}, since XML 1.0 cannot carry control characters.
 * The records are read three times (count, pages, redirects); test cases are written one by one.
 */
export function writeJunit(input: ReportInput, sink: ReportSink): void {
  // With --baseline only new findings fail the build: known ones go to <system-out> like the rest.
  const failing = failingIssues(input.audit, input.failOn).filter((i) => input.isNew?.(i) ?? true);
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
  // Count the test cases first (the suite's attributes come before them). A failing issue about a
  // URL without a page or redirect record still gets a test case, so no failure is lost.
  const unnamed = new Set(failing.map((i) => i.url));
  let recorded = 0;
  let leftOut = 0;
  for (const r of input.records) {
    if (!isPage(r) && !r.redirect) {
      leftOut++;
      continue;
    }
    recorded++;
    unnamed.delete(r.url);
  }
  const extra: Case[] = [];
  for (const i of failing) {
    if (!unnamed.has(i.url)) continue;
    unnamed.delete(i.url);
    extra.push({ name: i.url, ms: null });
  }
  const counts = { '@_tests': String(recorded + extra.length), '@_failures': String(failing.length), '@_errors': '0' };
  const suite = (testcase: unknown): unknown => ({
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
        properties: {
          property: [
            { '@_name': 'fail-on', '@_value': xmlSafe(input.failOn.join(',')) },
            { '@_name': 'left-out', '@_value': junitLeftOut(leftOut) },
          ],
        },
        testcase,
      },
    },
  });
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true });
  if (recorded + extra.length === 0) {
    sink.write(builder.build(suite([])) as string);
    return;
  }
  const sentinel = { '@_classname': 'spacrawl:sentinel', '@_name': 'spacrawl:sentinel', '@_time': '0.000' };
  const { head, tail } = xmlAround(builder, suite([sentinel]), WRAP, 'testcase', sentinel);
  sink.write(head);
  // The same URL twice (should not happen) gets its failures once.
  const emitted = new Set<string>();
  const write = (c: Case): void => {
    const e = emitted.has(c.name) ? undefined : byUrl.get(c.name);
    if (e) emitted.add(c.name);
    const tc: Record<string, unknown> = { '@_classname': c.classname ?? 'spacrawl.pages', '@_name': xmlSafe(c.name), '@_time': seconds(c.ms) };
    if (e?.failures.length) {
      tc.failure = e.failures.map((i) => ({ '@_type': i.rule, '@_message': xmlSafe(oneLine(i.message)), '#text': xmlSafe(failureBody(i)) }));
    }
    const out = [...(c.out ? [c.out] : []), ...(e?.others ?? []).map((i) => `${i.ignored ? '[ignored] ' : ''}${i.rule} (${i.severity}): ${oneLine(i.message, 2000)}`)];
    if (out.length) tc['system-out'] = xmlSafe(out.join('\n'));
    sink.write(xmlItem(builder, WRAP, 'testcase', tc));
  };
  for (const r of input.records) if (isPage(r)) write({ name: r.url, ms: r.timings.total ?? r.timings.settledMs });
  // Redirect records are test cases of their own class: where each URL forwards to.
  for (const r of input.records) {
    if (!r.redirect) continue;
    write({ name: r.url, ms: r.timings.total, classname: 'spacrawl.redirects', out: `redirects${r.status !== null ? ` (${r.status})` : ''} to ${r.finalUrl ?? '?'}${r.skipped === 'scope' ? ' (off-site: not followed)' : ''}` });
  }
  for (const c of extra) write(c);
  sink.write(tail);
}

/** {@link writeJunit} as one string. */
export function renderJunit(input: ReportInput): string {
  const s = stringSink();
  writeJunit(input, s);
  return s.text();
}
