import { RULES, failingIssues, type AuditIssue, type RuleId } from '../audit.js';
import type { ReportInput, ReportSink } from '../input.js';
import { describeFailOn, formatElapsed, SEVERITY_ORDER } from './shared.js';
import { auditView } from '../audit-view.js';
import { otherSkipped } from '../summary.js';
import { auditSectionsMarkdown } from './audit-sections.js';

export { describeFailOn, formatElapsed } from './shared.js';

/** How many issues the markdown summary lists one by one. */
export const MARKDOWN_MAX_LISTED = 20;

/** Text from a page, safe inside markdown (and GitHub's HTML): one line, markdown and HTML characters escaped. */
export function mdText(s: string, max = 200): string {
  let t = s.replace(/\s+/g, ' ').trim();
  if (t.length > max) t = `${t.slice(0, max - 1)}…`;
  // Backslash-escape what markdown would format, entity-escape what GitHub would read as HTML, and
  // put a zero-width space after `@` so that a page title never mentions (notifies) a GitHub user.
  return t
    .replace(/[\\`*_[\]|~]/g, '\\$&')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=\w)/g, '@\u200b');
}

/** A URL as a markdown link when it is http(s), else as escaped text. */
export function mdUrl(u: string): string {
  if (!/^https?:\/\//i.test(u)) return mdText(u, 300);
  const target = u.replace(/[\s<>()\\]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${mdText(u, 300)}](<${target}>)`;
}

/** Non-ignored issues, those that fail the build first, then by severity (the audit's order within). */
function ranked(input: ReportInput, failing: ReadonlySet<AuditIssue>): AuditIssue[] {
  return input.audit.issues
    .filter((i) => !i.ignored)
    .map((i, n) => ({ i, n }))
    .sort((a, b) => Number(failing.has(b.i)) - Number(failing.has(a.i)) || SEVERITY_ORDER[a.i.severity] - SEVERITY_ORDER[b.i.severity] || a.n - b.n)
    .map((x) => x.i);
}

/**
 * `markdown`: a short summary for pull-request comments and `GITHUB_STEP_SUMMARY`: the verdict
 * under `--fail-on`, the totals (skipped URLs by reason too, as the terminal counts them), an issue table (rule, severity, count) and the
 * {@link MARKDOWN_MAX_LISTED} most severe non-ignored issues with their URL and first referrer.
 */
export function renderMarkdown(input: ReportInput): string {
  const { summary, audit } = input;
  const failing = failingIssues(audit, input.failOn);
  const failingSet = new Set(failing);
  const out: string[] = [];
  out.push('## spacrawl', '');
  // An interrupted crawl passes nothing: it found no failing issue among the pages it reached.
  out.push(
    failing.length
      ? `**❌ Fails** under \`--fail-on ${describeFailOn(input.failOn)}\`: ${failing.length} issue${failing.length === 1 ? '' : 's'}.`
      : summary.endReason === 'interrupted'
        ? `**⚠️ Incomplete**: the crawl was interrupted; no issue under \`--fail-on ${describeFailOn(input.failOn)}\` in the ${summary.pages} page${summary.pages === 1 ? '' : 's'} it reached.`
        : `**✅ Passes** under \`--fail-on ${describeFailOn(input.failOn)}\`.`,
    '',
  );
  // A column per other reason a URL was skipped (budget, trap …), as the terminal's summary line has them.
  const skipped = otherSkipped(summary);
  const totals: [string, string | number][] = [
    ['pages', summary.pages],
    ['ok', summary.ok],
    ['errors', summary.errors],
    ['soft 404s', summary.soft404],
    ['redirects', summary.redirects ?? 0],
    ['robots skipped', summary.robotsSkipped],
    ...skipped.map(([reason, n]): [string, number] => [`skipped (${mdText(reason)})`, n]),
    ['unique URLs', summary.uniqueUrls],
    ['elapsed', formatElapsed(summary.elapsedMs)],
  ];
  out.push(`| ${totals.map(([h]) => h).join(' | ')} |`, `|${totals.map(() => '---:|').join('')}`);
  out.push(`| ${totals.map(([, v]) => v).join(' | ')} |`, '');
  if (summary.endReason !== 'done') out.push(`The crawl ended early: \`${summary.endReason}\`.`, '');

  const rules = new Map<RuleId, { count: number; ignored: number }>();
  for (const i of audit.issues) {
    const e = rules.get(i.rule) ?? { count: 0, ignored: 0 };
    if (i.ignored) e.ignored++;
    else e.count++;
    rules.set(i.rule, e);
  }
  const sections = auditSectionsMarkdown(auditView(input.records, input.budget ?? null), { text: mdText, url: mdUrl });
  if (rules.size === 0) {
    out.push('No issues found.', '', ...sections);
    return `${out.join('\n')}`;
  }
  const failingRules = new Set(failing.map((i) => i.rule));
  const anyIgnored = [...rules.values()].some((e) => e.ignored > 0);
  out.push(anyIgnored ? '| rule | severity | count | ignored |' : '| rule | severity | count |', anyIgnored ? '|---|---|---:|---:|' : '|---|---|---:|');
  const ruleOrder = [...rules.keys()].sort((a, b) => SEVERITY_ORDER[RULES[a].severity] - SEVERITY_ORDER[RULES[b].severity] || a.localeCompare(b));
  for (const rule of ruleOrder) {
    const e = rules.get(rule)!;
    const name = failingRules.has(rule) ? `**\`${rule}\`** ❌` : `\`${rule}\``;
    out.push(`| ${name} | ${RULES[rule].severity} | ${e.count} |${anyIgnored ? ` ${e.ignored} |` : ''}`);
  }
  out.push('');
  out.push(...sections);

  const list = ranked(input, failingSet);
  if (list.length) {
    out.push(list.length > MARKDOWN_MAX_LISTED ? `### The ${MARKDOWN_MAX_LISTED} most severe of ${list.length} issues` : '### Issues', '');
    for (const i of list.slice(0, MARKDOWN_MAX_LISTED)) {
      const ref = i.referrers[0];
      const from = ref ? ` — linked from ${mdUrl(ref.url)}${ref.text ? ` (“${mdText(ref.text, 80)}”)` : ''}${i.referrers.length > 1 ? ` and ${i.referrers.length - 1} more` : ''}` : '';
      out.push(`- \`${i.rule}\` ${mdUrl(i.url)}: ${mdText(i.message)}${from}`);
    }
    out.push('');
  }
  return `${out.join('\n')}`;
}

/** {@link renderMarkdown} to a sink (the summary is short: at most {@link MARKDOWN_MAX_LISTED} issues, no page rows). */
export function writeMarkdown(input: ReportInput, sink: ReportSink): void {
  sink.write(renderMarkdown(input));
}

/** Bytes of a string in UTF-8. */
function bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** The longest prefix of `s` of at most `max` UTF-8 bytes, never splitting a character. */
function cutBytes(s: string, max: number): string {
  if (max <= 0) return '';
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= max) return s;
  let end = max;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--; // back up to a character start
  return buf.subarray(0, end).toString('utf8');
}

/**
 * The markdown summary in at most `maxBytes` UTF-8 bytes (for `GITHUB_STEP_SUMMARY`, which takes
 * at most 1 MiB per step: pass what is left of that). When it does not fit, whole lines are kept
 * from the top and a last line points to the full report.
 * @param maxBytes - byte budget, including the pointer line
 * @param pointer - where the full report is, e.g. `the spacrawl-report artifact (index.html)`
 */
export function renderMarkdownCapped(input: ReportInput, maxBytes: number, pointer: string): string {
  const full = renderMarkdown(input);
  if (bytes(full) <= maxBytes) return full;
  const tail = `\n_Summary truncated; the full report is in ${pointer}._\n`;
  const budget = maxBytes - bytes(tail);
  if (budget <= 0) return cutBytes(tail.trimStart(), maxBytes);
  const lines = full.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const b = bytes(line) + 1;
    if (used + b > budget) break;
    kept.push(line);
    used += b;
  }
  // A table cut in half would swallow the pointer line: end with a blank line first.
  const body = kept.length ? `${kept.join('\n')}\n` : '';
  return cutBytes(body, budget) + tail;
}
