/**
 * The terminal summary of a diff (stderr): new findings first, then fixed and unchanged counts,
 * then the URL changes, counted per kind, and the verdict.
 * @module
 */
import { uncomparedText } from './checks.js';
import { failingFindings, matchesFailOn } from './findings.js';
import { changeCountsText, countByRule, diffOrigin, failOnText, oneLine, percentText, plural, shortUrl, statusText, timingText, whereText } from './formats/words.js';
import { isEmptyDiff, type CrawlDiff } from './types.js';

/** Items listed per section of the terminal summary; the rest are counted. */
export const TERMINAL_MAX_LISTED = 10;

/**
 * The summary as lines of text (no colour, no trailing newline on the last line).
 * @param d - the diff
 * @param failOn - parsed `--fail-on` (marks failing findings with `✗`, gives the verdict)
 * @param maxListed - items listed per section
 */
export function diffSummary(d: CrawlDiff, failOn: readonly string[], maxListed = TERMINAL_MAX_LISTED): string {
  const origin = diffOrigin(d);
  const short = (u: string): string => shortUrl(u, origin);
  const out: string[] = [];
  out.push(`spacrawl diff: ${d.old.source} (${plural(d.old.pages, 'page')}) → ${d.new.source} (${plural(d.new.pages, 'page')})`);
  const list = <T>(items: readonly T[], line: (x: T) => string): void => {
    for (const x of items.slice(0, maxListed)) out.push(`  ${line(x)}`);
    if (items.length > maxListed) out.push(`  … and ${items.length - maxListed} more`);
  };
  const f = d.findings;
  out.push(`${plural(f.new.length, 'new finding')}${f.new.length ? ` (${countByRule(f.new)})` : ''}`);
  list(f.new, (x) => `${matchesFailOn(x, failOn) ? '✗' : '·'} ${x.rule} ${short(x.url)}${whereText(x, short)}: ${oneLine(x.message)}${x.ignored ? ' [ignored]' : ''}`);
  out.push(`${plural(f.fixed.length, 'fixed finding')}${f.fixed.length ? ` (${countByRule(f.fixed)})` : ''}, ${f.unchanged.length} unchanged`);
  list(f.fixed, (x) => `✓ ${x.rule} ${short(x.url)}${whereText(x, short)}`);
  for (const u of d.checks.uncompared) out.push(`not compared: ${uncomparedText(u)}`);
  for (const n of d.notices) out.push(`note: ${n}`);
  out.push(`changes: ${changeCountsText(d)}`);
  list(d.pages.added, (x) => `+ ${short(x.url)}${x.title !== null ? ` "${x.title}"` : ''}${x.status !== null && x.status !== 200 ? ` (${x.status})` : ''}`);
  list(d.pages.removed, (x) => `- ${short(x.url)}${x.title !== null ? ` "${x.title}"` : ''}${x.otherSkipped ? ` (now skipped: ${x.otherSkipped})` : ''}`);
  list(d.statusChanges, (x) => `status ${short(x.url)}: ${statusText(x.old)} → ${statusText(x.new)}`);
  list(d.titleChanges, (x) => `title ${short(x.url)}: ${x.old === null ? 'none' : JSON.stringify(oneLine(x.old))} → ${x.new === null ? 'none' : JSON.stringify(oneLine(x.new))}`);
  list(d.redirectChanges, (x) => `redirect ${short(x.url)}: ${x.old === null ? 'none' : short(x.old)} → ${x.new === null ? 'none' : short(x.new)}`);
  list(d.soft404s, (x) => `soft 404 ${short(x.url)}${x.reason ? ` (${x.reason})` : ''}`);
  list(d.lostLinks, (x) => `lost links ${short(x.url)}: ${x.links.slice(0, 5).map(short).join(', ')}${x.links.length > 5 ? ` and ${x.links.length - 5} more` : ''}`);
  list(d.timingChanges, (x) => `timing ${short(x.url)}: ${timingText(x)}`);
  if (d.visual) list(d.visual.changes, (x) => `visual ${short(x.url)}: ${percentText(x.ratio)} of pixels changed${x.diff ? ` (diff: ${x.diff})` : ''}`);
  const failing = failingFindings(d, failOn).length;
  const rules = failOnText(failOn);
  if (isEmptyDiff(d)) out.push('no changes');
  out.push(failing ? `fails under --fail-on ${rules}: ${plural(failing, 'new finding')}` : `passes under --fail-on ${rules}: no new finding of those rules`);
  return out.join('\n');
}
