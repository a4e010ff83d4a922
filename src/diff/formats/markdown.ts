import { RULES, type RuleId } from '../../report/audit.js';
import { mdText, mdUrl } from '../../report/formats/markdown.js';
import { uncomparedText } from '../checks.js';
import { failingFindings, matchesFailOn } from '../findings.js';
import { isEmptyDiff, type Finding } from '../types.js';
import type { DiffReportInput } from './input.js';
import { changeCounts, diffOrigin, failOnText, percentText, plural, shortUrl, statusText, timingText } from './words.js';

/** GitHub's limit on a pull-request comment body, in characters. */
export const GITHUB_COMMENT_MAX_CHARS = 65_536;

/** Links listed per page under "Links that disappeared"; the rest are counted. */
const MAX_LOST_LINKS = 10;

/** A line of the markdown: `item` lines are the ones truncation counts ("N more"). */
interface Line {
  text: string;
  item: boolean;
}

const SEVERITY_ORDER = { error: 0, warning: 1, notice: 2 } as const;

/**
 * A markdown link to a URL whose text is the URL shortened against the crawl's origin (`/guide`
 * for `https://site.test/guide`); other schemes as escaped text (`mdUrl`).
 */
function mdLink(u: string, origin: string | null): string {
  const full = mdUrl(u);
  const text = shortUrl(u, origin);
  if (text === u || !full.startsWith('[')) return full;
  // mdUrl gives `[text](<target>)`: keep its escaped target, shorten its text.
  return `[${mdText(text, 300)}]${full.slice(full.lastIndexOf('](<') + 1)}`;
}

/** `“About”`, or `_none_`. */
function quoted(s: string | null): string {
  return s === null ? '_none_' : `“${mdText(s)}”`;
}

function findingLine(f: Finding, failing: boolean, link: (u: string) => string): string {
  const where = f.page === f.url ? '' : f.page === null ? ' (no crawled page links to it)' : ` on ${link(f.page)}${f.text ? ` (“${mdText(f.text, 80)}”)` : ''}`;
  return `- ${failing ? '❌ ' : ''}\`${f.rule}\` ${link(f.url)}${where}: ${mdText(f.message)}${f.ignored ? ' _(ignored)_' : ''}`;
}

/** The whole markdown as lines, before any truncation. */
function lines(input: DiffReportInput): Line[] {
  const { diff: d, failOn } = input;
  const origin = diffOrigin(d);
  const link = (u: string): string => mdLink(u, origin);
  const out: Line[] = [];
  const head = (...texts: string[]): void => {
    for (const text of texts) out.push({ text, item: false });
  };
  const section = <T>(title: string, items: readonly T[], line: (x: T) => string, note?: string): void => {
    if (!items.length) return;
    head(`### ${title} (${items.length})`, '');
    if (note) head(note, '');
    for (const x of items) out.push({ text: line(x), item: true });
    head('');
  };
  const failing = failingFindings(d, failOn).length;
  const rules = failOnText(failOn);
  head('## spacrawl diff', '');
  head(
    failing
      ? `**❌ Fails** under \`--fail-on ${rules}\`: ${plural(failing, 'new finding')}.`
      : `**✅ Passes** under \`--fail-on ${rules}\`: no new finding of those rules.`,
    '',
  );
  head(`${mdText(d.old.source)} (${plural(d.old.pages, 'page')}) → ${mdText(d.new.source)} (${plural(d.new.pages, 'page')})`, '');
  const f = d.findings;
  const ruleIds = (Object.keys(f.byRule) as RuleId[]).sort((a, b) => SEVERITY_ORDER[RULES[a].severity] - SEVERITY_ORDER[RULES[b].severity] || a.localeCompare(b));
  if (ruleIds.length) {
    const failingRules = new Set(f.new.filter((x) => matchesFailOn(x, failOn)).map((x) => x.rule));
    head('| findings | severity | new | fixed | unchanged |', '|---|---|---:|---:|---:|');
    for (const rule of ruleIds) {
      const c = f.byRule[rule]!;
      head(`| ${failingRules.has(rule) ? `**\`${rule}\`** ❌` : `\`${rule}\``} | ${RULES[rule].severity} | ${c.new} | ${c.fixed} | ${c.unchanged} |`);
    }
    head(`| **total** | | ${f.new.length} | ${f.fixed.length} | ${f.unchanged.length} |`, '');
  }
  for (const u of d.checks.uncompared) head(`_Not compared: ${mdText(uncomparedText(u))}: its findings are neither new nor fixed._`, '');
  for (const n of d.notices) head(`_Note: ${mdText(n)}_`, '');
  if (isEmptyDiff(d)) {
    head('No changes: the same pages, statuses, titles, redirects, links and findings.', '');
    return out;
  }
  const counts = changeCounts(d);
  head(`| ${counts.map((c) => c.label).join(' | ')} |`, `|${counts.map(() => '---:').join('|')}|`, `| ${counts.map((c) => c.count).join(' | ')} |`, '');
  section('New findings', f.new, (x) => findingLine(x, matchesFailOn(x, failOn), link));
  section('Fixed findings', f.fixed, (x) => findingLine(x, false, link));
  section('Pages added', d.pages.added, (x) => `- ${link(x.url)} ${quoted(x.title)}${x.status !== 200 ? ` (${x.status ?? x.error ?? 'no response'})` : ''}`);
  section('Pages removed', d.pages.removed, (x) => `- ${link(x.url)} ${quoted(x.title)}${x.otherSkipped ? ` (now skipped: ${x.otherSkipped})` : ''}`);
  section('Status changes', d.statusChanges, (x) => `- ${link(x.url)}: ${statusText(x.old)} → ${statusText(x.new)}`);
  section('Title changes', d.titleChanges, (x) => `- ${link(x.url)}: ${quoted(x.old)} → ${quoted(x.new)}`);
  section('Redirect changes', d.redirectChanges, (x) => `- ${link(x.url)}: ${x.old === null ? '_no redirect_' : link(x.old)} → ${x.new === null ? '_no redirect_' : link(x.new)}`);
  section('New soft 404s', d.soft404s, (x) => `- ${link(x.url)}${x.reason ? ` (${x.reason})` : ''}`);
  section('Links that disappeared', d.lostLinks, (x) => {
    const more = x.links.length > MAX_LOST_LINKS ? ` and ${x.links.length - MAX_LOST_LINKS} more` : '';
    return `- ${link(x.url)} no longer links to ${x.links.slice(0, MAX_LOST_LINKS).map(link).join(', ')}${more}`;
  });
  section('Timing changes', d.timingChanges, (x) => `- ${link(x.url)} ${mdText(timingText(x))}`, `_Changes of at least ${d.thresholds.ms} ms and ${Math.round(d.thresholds.ratio * 100)} % of the old value._`);
  if (d.visual) {
    section('Visual changes', d.visual.changes, (x) => `- ${link(x.url)}: ${percentText(x.ratio)} of pixels changed${x.sizeChanged ? ', and the page size' : ''}`, `_Pages whose screenshot changed in more than ${percentText(d.visual.threshold)} of its pixels (${plural(d.visual.compared, 'page')} compared); the html report shows before, after and the difference._`);
  }
  return out;
}

/**
 * `markdown`: the diff for a pull-request comment or `GITHUB_STEP_SUMMARY`: the verdict under
 * `--fail-on`, findings per rule (new, fixed, unchanged), URL changes per kind, then the lists:
 * new findings first (failing ones marked ❌), fixed findings, pages added and removed, status,
 * title and redirect changes, new soft 404s, lost links, timing changes, visual changes.
 *
 * At most `maxChars` characters (GitHub's comment limit by default): when the lists do not
 * fit, whole lines are kept from the top and a last line says how many items were left out.
 * Text from pages is escaped (`mdText`), so a title can neither format the comment nor mention
 * a user.
 * @param maxChars - the budget in UTF-16 code units (at least the number of characters GitHub counts)
 */
export function renderDiffMarkdown(input: DiffReportInput, maxChars = GITHUB_COMMENT_MAX_CHARS): string {
  const all = lines(input);
  const full = `${all.map((l) => l.text).join('\n')}\n`;
  if (full.length <= maxChars) return full;
  const totalItems = all.filter((l) => l.item).length;
  // The tail's own length, with a count of up to 7 digits (well over any crawl's items).
  const tail = (n: number): string => `\n_… and ${plural(n, 'more item')} not shown: the json and html reports list them all._\n`;
  const budget = maxChars - tail(9_999_999).length;
  const kept: string[] = [];
  let used = 0;
  let shown = 0;
  for (const l of all) {
    const cost = l.text.length + 1;
    if (used + cost > budget) break;
    kept.push(l.text);
    used += cost;
    if (l.item) shown++;
  }
  // A section heading whose items were all cut goes too.
  while (kept.length && (kept.at(-1) === '' || kept.at(-1)!.startsWith('### '))) kept.pop();
  return `${kept.join('\n')}\n${tail(totalItems - shown)}`;
}
