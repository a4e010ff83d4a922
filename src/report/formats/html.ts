import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RULES, failingIssues, type AuditIssue, type RuleId } from '../audit.js';
import type { ReportInput, ReportSink } from '../input.js';
import { isPage, type PageRecord } from '../../model/record.js';
import { CSP, CSS, JS } from './html-assets.js';
import { describeFailOn, formatElapsed, issuesByUrl, SEVERITY_ORDER, stringSink } from './shared.js';
import { auditView } from '../audit-view.js';
import { otherSkipped } from '../summary.js';
import { auditSectionsHtml } from './audit-sections.js';

/** Referrers listed per issue; the rest are counted (report.json has them all). */
export const HTML_MAX_REFERRERS = 100;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escape text for HTML element content and double-quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

const esc = escapeHtml;

/** A link to a crawled URL, or plain text when it is not http(s) (never a `javascript:` href). */
function urlLink(u: string): string {
  return /^https?:\/\//i.test(u) ? `<a href="${esc(u)}" rel="noopener noreferrer">${esc(u)}</a>` : `<span class="url">${esc(u)}</span>`;
}

/**
 * The `src` of a screenshot as seen from the report: relative to the report's folder, or a
 * `file:` URL when the report goes to stdout (its folder is unknown) or lives on another drive.
 */
export function screenshotHref(screenshotsDir: string, screenshot: string, outPath: string | null): string {
  const abs = path.resolve(screenshotsDir, screenshot);
  if (outPath === null) return pathToFileURL(abs).href;
  const rel = path.relative(path.dirname(outPath), abs);
  if (path.isAbsolute(rel)) return pathToFileURL(abs).href;
  return rel.split(path.sep).map(encodeURIComponent).join('/');
}

function stat(key: string, label: string, value: number | string, bad = false): string {
  return `<div class="stat${bad ? ' bad' : ''}"><dt>${esc(label)}</dt><dd data-count="${esc(key)}">${esc(String(value))}</dd></div>`;
}

function issueItem(i: AuditIssue, failing: boolean, isNew: ((i: AuditIssue) => boolean) | undefined, notCompared?: (i: AuditIssue) => boolean): string {
  const refs = i.referrers.slice(0, HTML_MAX_REFERRERS).map((r) => `<li>from ${urlLink(r.url)}${r.text ? ` “<span class="anchor">${esc(r.text)}</span>”` : ' <span class="none">(no anchor text)</span>'}</li>`);
  if (i.referrers.length > HTML_MAX_REFERRERS) refs.push(`<li class="more">and ${i.referrers.length - HTML_MAX_REFERRERS} more (report.json lists them all)</li>`);
  const fresh = notCompared?.(i)
    ? ' <span class="tag known" title="not compared with the --baseline crawl (its check did not run there, or that crawl left the page for its page budget): never fails">not compared</span>'
    : isNew
      ? isNew(i)
        ? ' <span class="tag new" title="not in the --baseline crawl">new</span>'
        : ' <span class="tag known" title="also in the --baseline crawl: never fails">known</span>'
      : '';
  const tags = `${fresh}${i.ignored ? ' <span class="tag ignored" title="matched --ignore-url or .spacrawlignore">ignored</span>' : ''}${failing ? ' <span class="tag failing">fails the build</span>' : ''}`;
  return `<li class="issue${i.ignored ? ' ignored' : ''}" data-url="${esc(i.url)}"${i.ignored ? ' data-ignored="true"' : ''}>${urlLink(i.url)}${tags} <span class="msg">${esc(i.message)}</span>${refs.length ? `<ul class="refs">${refs.join('')}</ul>` : ''}</li>`;
}

/** The issues grouped by rule (failing rules first, then by severity), written group by group. */
function writeIssueGroups(sink: ReportSink, input: ReportInput, failing: ReadonlySet<AuditIssue>): void {
  const groups = new Map<RuleId, AuditIssue[]>();
  for (const i of input.audit.issues) {
    const list = groups.get(i.rule);
    if (list) list.push(i);
    else groups.set(i.rule, [i]);
  }
  if (groups.size === 0) {
    sink.write('<p class="none" id="no-issues">No issues found.</p>');
    return;
  }
  const failingRules = new Set([...failing].map((i) => i.rule));
  const order = [...groups.keys()].sort(
    (a, b) => Number(failingRules.has(b)) - Number(failingRules.has(a)) || SEVERITY_ORDER[RULES[a].severity] - SEVERITY_ORDER[RULES[b].severity] || a.localeCompare(b),
  );
  order.forEach((rule, n) => {
    const list = groups.get(rule)!;
    const active = list.filter((i) => !i.ignored).length;
    const ignored = list.length - active;
    const sev = RULES[rule].severity;
    const open = failingRules.has(rule) || sev === 'error' ? ' open' : '';
    sink.write(
      `${n ? '\n' : ''}<details class="issue-group sev-${sev}${failingRules.has(rule) ? ' failing' : ''}" data-rule="${esc(rule)}" data-severity="${sev}" data-count="${active}" data-ignored="${ignored}"${open}>` +
        `<summary><span class="sev ${sev}">${sev}</span> <code>${esc(rule)}</code> — <span class="n">${active}</span>${ignored ? ` <span class="muted">(+${ignored} ignored)</span>` : ''}${failingRules.has(rule) ? ' <span class="tag failing">fails the build</span>' : ''}</summary>` +
        `<p class="desc muted">${esc(RULES[rule].description)}</p><ul class="issues">`,
    );
    for (const i of list) sink.write(issueItem(i, failing.has(i), input.isNew, input.notCompared));
    sink.write('</ul></details>');
  });
}

function pageRow(r: PageRecord, issues: readonly AuditIssue[], failing: ReadonlySet<AuditIssue>, shots: { dir: string; outPath: string | null } | null): string {
  const error = r.error !== null || (r.status !== null && r.status >= 400);
  const active = issues.filter((i) => !i.ignored);
  const rules = [...new Set(issues.map((i) => `${i.rule}\u0000${i.ignored}\u0000${failing.has(i)}`))].map((k) => {
    const [rule, ignored, fails] = k.split('\u0000') as [string, string, string];
    return `<span class="tag${ignored === 'true' ? ' ignored' : ''}${fails === 'true' ? ' failing' : ''}">${esc(rule)}</span>`;
  });
  const cells: string[] = [];
  if (shots) {
    if (r.screenshot) {
      const href = esc(screenshotHref(shots.dir, r.screenshot, shots.outPath));
      cells.push(`<td class="shot"><a href="${href}"><img class="thumb" src="${href}" loading="lazy" alt="screenshot of ${esc(r.url)}" width="160" height="100"></a></td>`);
    } else cells.push('<td class="shot"><span class="none">—</span></td>');
  }
  cells.push(`<td class="url">${urlLink(r.url)}${r.finalUrl && r.finalUrl !== r.url ? `<div class="muted">→ ${esc(r.finalUrl)}</div>` : ''}</td>`);
  cells.push(
    r.status !== null
      ? `<td class="status num" data-v="${r.status}">${r.status}${r.soft404 ? ' <span class="tag">soft 404</span>' : ''}</td>`
      : `<td class="status num" data-v=""${r.error ? ` title="${esc(r.error.message)}"` : ''}>${esc(r.error?.code ?? '—')}</td>`,
  );
  cells.push(r.title ? `<td class="title">${esc(r.title)}</td>` : '<td class="title" data-v=""><span class="none">—</span></td>');
  cells.push(`<td class="depth num" data-v="${r.depth}">${r.depth}</td>`);
  cells.push(`<td class="settled num" data-v="${r.timings.settledMs ?? ''}">${r.timings.settledMs === null ? '<span class="none">—</span>' : `${r.timings.settledMs} ms`}</td>`);
  cells.push(`<td class="issues" data-v="${active.length}">${rules.join(' ')}</td>`);
  return `<tr class="${error ? 'error' : 'ok'}" data-url="${esc(r.url)}" data-issues="${active.length}">${cells.join('')}</tr>`;
}

/** What the report's header needs from the records, counted in one pass before anything is written. */
interface Tally {
  pages: number;
  redirects: number;
  skipped: number;
  /** The skipped URLs of the skipped table, by reason (an off-site redirect is in the redirects table, not here). */
  skippedBy: Map<string, number>;
  /** Canonical URLs of the seed pages (depth 0), in crawl order. */
  seeds: string[];
  /** The first record's URL (for the site's name when no seed was a page). */
  first: string | null;
}

function tally(records: Iterable<PageRecord>): Tally {
  const t: Tally = { pages: 0, redirects: 0, skipped: 0, skippedBy: new Map(), seeds: [], first: null };
  for (const r of records) {
    t.first ??= r.url;
    if (isPage(r)) {
      t.pages++;
      if (r.depth === 0) t.seeds.push(r.url);
    } else if (r.redirect) t.redirects++;
    else {
      t.skipped++;
      const why = r.skipped ?? 'unknown';
      t.skippedBy.set(why, (t.skippedBy.get(why) ?? 0) + 1);
    }
  }
  return t;
}

/** `<tr>` rows of the records `pick` selects, joined by `sep`, read from the records as they come. */
function writeRows(sink: ReportSink, records: Iterable<PageRecord>, pick: (r: PageRecord) => boolean, row: (r: PageRecord) => string, sep: string): void {
  let first = true;
  for (const r of records) {
    if (!pick(r)) continue;
    sink.write(first ? row(r) : `${sep}${row(r)}`);
    first = false;
  }
}

function redirectRow(r: PageRecord): string {
  return `<tr data-url="${esc(r.url)}"><td class="url">${urlLink(r.url)}</td><td class="num">${r.status ?? '—'}</td><td class="url">→ ${r.finalUrl ? urlLink(r.finalUrl) : '?'}${r.skipped === 'scope' ? ' <span class="tag">off-site, not followed</span>' : ''}${r.redirectChain.length > 1 ? ` <span class="muted">(${r.redirectChain.length} hops)</span>` : ''}</td><td class="url">${r.referrer ? urlLink(r.referrer) : '<span class="none">—</span>'}</td></tr>`;
}

function skippedRow(r: PageRecord): string {
  return `<tr data-url="${esc(r.url)}"><td class="url">${urlLink(r.url)}</td><td>${esc(r.skipped ?? '')}${r.duplicateOf ? ` of ${urlLink(r.duplicateOf)}` : ''}</td><td class="url">${r.referrer ? urlLink(r.referrer) : '<span class="none">—</span>'}</td></tr>`;
}

/**
 * `html`: one self-contained report a person opens (inline CSS and script, nothing from the
 * network, works from `file://`): the summary numbers (`#summary [data-count=…]`), issues grouped
 * by rule (`.issue-group[data-rule=…]`) with every affected URL, its referrers and anchor text,
 * a page table (`#pages`) that sorts on a header click and filters as you type into `#filter`
 * (`#shown` counts the rows shown), and, when screenshots were taken, thumbnails linking to the
 * full images by a path relative to the report's own folder.
 *
 * Written row by row: the records are read once to count them, then once per table (pages,
 * redirects, skipped URLs).
 * @param outPath - where the report is written (screenshot links are relative to its folder); `null` for stdout
 */
export function writeHtml(input: ReportInput, sink: ReportSink, outPath: string | null): void {
  const { summary, audit } = input;
  const failingList = failingIssues(audit, input.failOn).filter((i) => input.isNew?.(i) ?? true);
  const failing = new Set(failingList);
  const t = tally(input.records);
  const activeIssues = audit.issues.filter((i) => !i.ignored).length;
  const seeds = t.seeds;
  const site = (() => {
    try {
      return new URL(seeds[0] ?? t.first ?? '').host;
    } catch {
      return '';
    }
  })();
  const shots = input.screenshotsDir ? { dir: input.screenshotsDir, outPath } : null;

  const head = [
    shots ? '<th class="shot" data-key="screenshot">screenshot</th>' : '',
    '<th data-key="url" data-type="text" aria-sort="none">URL</th>',
    '<th class="num" data-key="status" data-type="num" aria-sort="none">status</th>',
    '<th data-key="title" data-type="text" aria-sort="none">title</th>',
    '<th class="num" data-key="depth" data-type="num" aria-sort="none">depth</th>',
    '<th class="num" data-key="settled" data-type="num" aria-sort="none">settled</th>',
    '<th data-key="issues" data-type="num" aria-sort="none">issues</th>',
  ].join('');

  const verdict = failingList.length
    ? `<p class="verdict fail" id="verdict" data-verdict="fail">Fails under --fail-on ${esc(describeFailOn(input.failOn))}: ${failingList.length} issue${failingList.length === 1 ? '' : 's'}.</p>`
    : summary.endReason === 'interrupted'
      ? `<p class="verdict incomplete" id="verdict" data-verdict="incomplete">Incomplete: the crawl was interrupted; no issue under --fail-on ${esc(describeFailOn(input.failOn))} in the ${summary.pages} page${summary.pages === 1 ? '' : 's'} it reached.</p>`
      : `<p class="verdict pass" id="verdict" data-verdict="pass">Passes under --fail-on ${esc(describeFailOn(input.failOn))}.</p>`;

  const notes = summary.notes.length ? `<ul id="notes" class="muted">${summary.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';

  sink.write(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="spacrawl">
<title>spacrawl report${site ? ` — ${esc(site)}` : ''}</title>
<style>${CSS}</style>
</head>
<body>
<header>
<h1>spacrawl report${site ? ` — ${esc(site)}` : ''}</h1>
${verdict}
<p class="meta">${seeds.length ? `Seed${seeds.length === 1 ? '' : 's'}: ${seeds.map(urlLink).join(', ')}. ` : ''}Crawl ended: ${esc(summary.endReason)} after ${esc(formatElapsed(summary.elapsedMs))}.</p>
</header>
<section id="summary"><h2>Summary</h2>
<dl class="stats">
${stat('pages', 'pages', summary.pages)}
${stat('ok', 'ok (2xx)', summary.ok)}
${stat('errors', 'errors', summary.errors, summary.errors > 0)}
${stat('soft404', 'soft 404s', summary.soft404, summary.soft404 > 0)}
${stat('redirects', 'redirects', summary.redirects ?? 0)}
${stat('robotsSkipped', 'robots skipped', summary.robotsSkipped)}
${otherSkipped(summary)
  .map(([reason, n]) => `${stat(`skipped-${reason}`, `skipped (${reason})`, n)}\n`)
  .join('')}${stat('uniqueUrls', 'unique URLs', summary.uniqueUrls)}
${stat('issues', 'issues', activeIssues)}
${stat('failing', 'failing', failingList.length, failingList.length > 0)}
<div class="stat"><dt>elapsed</dt><dd data-elapsed-ms="${summary.elapsedMs}">${esc(formatElapsed(summary.elapsedMs))}</dd></div>
</dl>
${notes}
</section>
<section id="issues"><h2>Issues by rule</h2>
`);
  writeIssueGroups(sink, input, failing);
  sink.write(`
</section>
${auditSectionsHtml(auditView(input.records, input.budget ?? null))}
<section id="pages"><h2>Pages</h2>
<div class="controls">
<input id="filter" type="search" placeholder="Filter pages: URL, title, status, rule…" aria-label="Filter pages" autocomplete="off">
<label><input type="checkbox" id="only-issues"> only pages with issues</label>
<span class="muted"><span id="shown">${t.pages}</span> of <span id="total">${t.pages}</span> pages shown</span>
</div>
<table>
<thead><tr>${head}</tr></thead>
<tbody>
`);
  const byUrl = issuesByUrl(audit.issues);
  writeRows(sink, input.records, isPage, (r) => pageRow(r, byUrl.get(r.url) ?? [], failing, shots), '\n');
  sink.write(`
</tbody>
</table>
</section>
`);
  if (t.redirects) {
    sink.write(
      `<section id="redirects"><h2>Redirects</h2><details><summary>${t.redirects} URL${t.redirects === 1 ? '' : 's'} that only forward to another page</summary><table><thead><tr><th>URL</th><th>status</th><th>leads to</th><th>found on</th></tr></thead><tbody>`,
    );
    writeRows(sink, input.records, (r) => r.redirect, redirectRow, '');
    sink.write('</tbody></table></details></section>');
  }
  sink.write('\n');
  if (t.skipped) {
    const reasons = [...t.skippedBy]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${esc(k)}: ${v}`)
      .join(', ');
    sink.write(
      `<section id="skipped"><h2>Skipped URLs</h2><details><summary>${t.skipped} URL${t.skipped === 1 ? '' : 's'} not visited (${reasons})</summary><table><thead><tr><th>URL</th><th>reason</th><th>found on</th></tr></thead><tbody>`,
    );
    writeRows(sink, input.records, (r) => !isPage(r) && !r.redirect, skippedRow, '');
    sink.write('</tbody></table></details></section>');
  }
  sink.write(`
<footer class="muted"><p>Made by spacrawl. The full data is in report.json and pages.jsonl.</p></footer>
<script>${JS}</script>
</body>
</html>
`);
}

/** {@link writeHtml} as one string. */
export function renderHtml(input: ReportInput, outPath: string | null): string {
  const s = stringSink();
  writeHtml(input, s, outPath);
  return s.text();
}
