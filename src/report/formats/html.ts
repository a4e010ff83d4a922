import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RULES, failingIssues, type AuditIssue, type RuleId, type Severity } from '../audit.js';
import type { ReportInput } from '../formats.js';
import { isPage, type PageRecord } from '../../model/record.js';
import { describeFailOn, formatElapsed } from './markdown.js';
import { auditView } from '../audit-view.js';
import { auditSectionsHtml } from './audit-sections.js';

/** Referrers listed per issue; the rest are counted (report.json has them all). */
export const HTML_MAX_REFERRERS = 100;

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

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

const CSS = `
:root{--fg:#1d2125;--muted:#5f6b76;--bg:#fff;--panel:#f5f7f9;--line:#dde2e7;--err:#c62828;--warn:#a15c00;--note:#2f6690;--ok:#2e7d32;--link:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ea;--muted:#9aa5b0;--bg:#16191c;--panel:#1f2327;--line:#343a40;--err:#ef6b6b;--warn:#e0a040;--note:#74a9d8;--ok:#6cc070;--link:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0;padding:1.5rem 2rem 4rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:2rem 0 .75rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
code{font:12px/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.verdict{font-weight:600;margin:.25rem 0}.verdict.fail{color:var(--err)}.verdict.pass{color:var(--ok)}
.meta,.muted{color:var(--muted)}
.stats{display:flex;flex-wrap:wrap;gap:.75rem;margin:0}
.stat{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.5rem .9rem;min-width:7rem}
.stat dt{color:var(--muted);font-size:12px}.stat dd{margin:0;font-size:1.4rem;font-weight:600}
.stat.bad dd{color:var(--err)}
.issue-group{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;background:var(--panel)}
.issue-group>summary{cursor:pointer;padding:.5rem .75rem;list-style-position:inside}
.issue-group>p{margin:0 .75rem .5rem}
.issue-group ul.issues{margin:0;padding:.25rem .75rem .75rem 2rem;background:var(--bg);border-top:1px solid var(--line)}
.issue{margin:.3rem 0;overflow-wrap:anywhere}
.issue.ignored{opacity:.6}
.refs{margin:.15rem 0 .15rem 0;padding-left:1.25rem;color:var(--muted)}
.sev{display:inline-block;font-size:11px;font-weight:600;text-transform:uppercase;border-radius:3px;padding:0 .35rem;color:#fff}
.sev.error{background:var(--err)}.sev.warning{background:var(--warn)}.sev.notice{background:var(--note)}
.tag{display:inline-block;font-size:11px;border:1px solid var(--line);border-radius:3px;padding:0 .3rem;margin:0 .15rem .1rem 0;white-space:nowrap}
.tag.ignored{text-decoration:line-through;color:var(--muted)}
.tag.failing{border-color:var(--err);color:var(--err)}
.controls{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin-bottom:.5rem}
#filter{font:inherit;padding:.35rem .6rem;min-width:22rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid var(--line)}
td.url,td.title{overflow-wrap:anywhere}
td.num,th.num{text-align:right}
th{position:sticky;top:0;background:var(--panel);white-space:nowrap;user-select:none}
th[data-type]{cursor:pointer}
th[data-type]::after{content:" \\2195";color:var(--muted)}
th[aria-sort=ascending]::after{content:" \\25B2";color:var(--fg)}
th[aria-sort=descending]::after{content:" \\25BC";color:var(--fg)}
tr.error td.status{color:var(--err);font-weight:600}
img.thumb{display:block;width:160px;height:100px;object-fit:cover;object-position:top;border:1px solid var(--line);border-radius:3px;background:var(--panel)}
.none{color:var(--muted)}
`;

// Plain ES5-style script: no modules, no network, works from file://.
const JS = `
(function () {
  var tbody = document.querySelector('#pages tbody');
  if (!tbody) return;
  var rows = Array.prototype.slice.call(tbody.rows);
  var texts = rows.map(function (r) { return r.textContent.toLowerCase(); });
  var filter = document.getElementById('filter');
  var only = document.getElementById('only-issues');
  var shown = document.getElementById('shown');
  function apply() {
    var terms = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var n = 0;
    rows.forEach(function (r, i) {
      var ok = (!only.checked || r.getAttribute('data-issues') !== '0') &&
        terms.every(function (t) { return texts[i].indexOf(t) >= 0; });
      r.hidden = !ok;
      if (ok) n++;
    });
    shown.textContent = String(n);
  }
  filter.addEventListener('input', apply);
  only.addEventListener('change', apply);
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  var heads = Array.prototype.slice.call(document.querySelectorAll('#pages thead th[data-type]'));
  function sortBy(th) {
    var col = th.cellIndex;
    var num = th.getAttribute('data-type') === 'num';
    var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
    heads.forEach(function (h) { h.setAttribute('aria-sort', 'none'); });
    th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
    var keyed = rows.map(function (r, i) {
      var c = r.cells[col];
      var v = c.getAttribute('data-v');
      if (num) v = v === null || v === '' ? null : Number(v);
      else v = v === null ? c.textContent : v;
      return { r: r, i: i, v: v };
    });
    keyed.sort(function (a, b) {
      if (a.v === null || b.v === null) return a.v === b.v ? a.i - b.i : a.v === null ? 1 : -1;
      var d = num ? a.v - b.v : collator.compare(a.v, b.v);
      return d * dir || a.i - b.i;
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) { frag.appendChild(k.r); });
    tbody.appendChild(frag);
  }
  heads.forEach(function (th) {
    th.tabIndex = 0;
    th.addEventListener('click', function () { sortBy(th); });
    th.addEventListener('keydown', function (e) { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(th); } });
  });
  if (filter.value || only.checked) apply();
})();
`;

const SCRIPT_HASH = `sha256-${createHash('sha256').update(JS).digest('base64')}`;

/**
 * Content-Security-Policy of the report: nothing loads from anywhere but local images, and only
 * our own script (by hash) runs, so even a page title that slipped through escaping could not.
 */
const CSP = `default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src '${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;

function stat(key: string, label: string, value: number | string, bad = false): string {
  return `<div class="stat${bad ? ' bad' : ''}"><dt>${esc(label)}</dt><dd data-count="${esc(key)}">${esc(String(value))}</dd></div>`;
}

function issueItem(i: AuditIssue, failing: boolean): string {
  const refs = i.referrers.slice(0, HTML_MAX_REFERRERS).map((r) => `<li>from ${urlLink(r.url)}${r.text ? ` “<span class="anchor">${esc(r.text)}</span>”` : ' <span class="none">(no anchor text)</span>'}</li>`);
  if (i.referrers.length > HTML_MAX_REFERRERS) refs.push(`<li class="more">and ${i.referrers.length - HTML_MAX_REFERRERS} more (report.json lists them all)</li>`);
  const tags = `${i.ignored ? ' <span class="tag ignored" title="matched --ignore-url or .spacrawlignore">ignored</span>' : ''}${failing ? ' <span class="tag failing">fails the build</span>' : ''}`;
  return `<li class="issue${i.ignored ? ' ignored' : ''}" data-url="${esc(i.url)}"${i.ignored ? ' data-ignored="true"' : ''}>${urlLink(i.url)}${tags} <span class="msg">${esc(i.message)}</span>${refs.length ? `<ul class="refs">${refs.join('')}</ul>` : ''}</li>`;
}

function issueGroups(input: ReportInput, failing: ReadonlySet<AuditIssue>): string {
  const groups = new Map<RuleId, AuditIssue[]>();
  for (const i of input.audit.issues) {
    const list = groups.get(i.rule);
    if (list) list.push(i);
    else groups.set(i.rule, [i]);
  }
  if (groups.size === 0) return '<p class="none" id="no-issues">No issues found.</p>';
  const failingRules = new Set([...failing].map((i) => i.rule));
  const order = [...groups.keys()].sort(
    (a, b) => Number(failingRules.has(b)) - Number(failingRules.has(a)) || SEVERITY_ORDER[RULES[a].severity] - SEVERITY_ORDER[RULES[b].severity] || a.localeCompare(b),
  );
  return order
    .map((rule) => {
      const list = groups.get(rule)!;
      const active = list.filter((i) => !i.ignored).length;
      const ignored = list.length - active;
      const sev = RULES[rule].severity;
      const open = failingRules.has(rule) || sev === 'error' ? ' open' : '';
      return (
        `<details class="issue-group sev-${sev}${failingRules.has(rule) ? ' failing' : ''}" data-rule="${esc(rule)}" data-severity="${sev}" data-count="${active}" data-ignored="${ignored}"${open}>` +
        `<summary><span class="sev ${sev}">${sev}</span> <code>${esc(rule)}</code> — <span class="n">${active}</span>${ignored ? ` <span class="muted">(+${ignored} ignored)</span>` : ''}${failingRules.has(rule) ? ' <span class="tag failing">fails the build</span>' : ''}</summary>` +
        `<p class="desc muted">${esc(RULES[rule].description)}</p>` +
        `<ul class="issues">${list.map((i) => issueItem(i, failing.has(i))).join('')}</ul></details>`
      );
    })
    .join('\n');
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

/**
 * `html`: one self-contained report a person opens (inline CSS and script, nothing from the
 * network, works from `file://`): the summary numbers (`#summary [data-count=…]`), issues grouped
 * by rule (`.issue-group[data-rule=…]`) with every affected URL, its referrers and anchor text,
 * a page table (`#pages`) that sorts on a header click and filters as you type into `#filter`
 * (`#shown` counts the rows shown), and, when screenshots were taken, thumbnails linking to the
 * full images by a path relative to the report's own folder.
 * @param outPath - where the report is written (screenshot links are relative to its folder); `null` for stdout
 */
export function renderHtml(input: ReportInput, outPath: string | null): string {
  const { summary, audit } = input;
  const failingList = failingIssues(audit, input.failOn);
  const failing = new Set(failingList);
  const pages = input.records.filter(isPage);
  const redirects = input.records.filter((r) => r.redirect);
  const skipped = input.records.filter((r) => !isPage(r) && !r.redirect);
  const byUrl = new Map<string, AuditIssue[]>();
  for (const i of audit.issues) {
    const list = byUrl.get(i.url);
    if (list) list.push(i);
    else byUrl.set(i.url, [i]);
  }
  const activeIssues = audit.issues.filter((i) => !i.ignored).length;
  const seeds = pages.filter((r) => r.depth === 0).map((r) => r.url);
  const site = (() => {
    try {
      return new URL(seeds[0] ?? input.records[0]?.url ?? '').host;
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
    : `<p class="verdict pass" id="verdict" data-verdict="pass">Passes under --fail-on ${esc(describeFailOn(input.failOn))}.</p>`;

  const skippedSection = skipped.length
    ? `<section id="skipped"><h2>Skipped URLs</h2><details><summary>${skipped.length} URL${skipped.length === 1 ? '' : 's'} not visited (${Object.entries(summary.skipped)
        .map(([k, v]) => `${esc(k)}: ${v}`)
        .join(', ')})</summary><table><thead><tr><th>URL</th><th>reason</th><th>found on</th></tr></thead><tbody>${skipped
        .map((r) => `<tr data-url="${esc(r.url)}"><td class="url">${urlLink(r.url)}</td><td>${esc(r.skipped ?? '')}${r.duplicateOf ? ` of ${urlLink(r.duplicateOf)}` : ''}</td><td class="url">${r.referrer ? urlLink(r.referrer) : '<span class="none">—</span>'}</td></tr>`)
        .join('')}</tbody></table></details></section>`
    : '';

  const redirectSection = redirects.length
    ? `<section id="redirects"><h2>Redirects</h2><details><summary>${redirects.length} URL${redirects.length === 1 ? '' : 's'} that only forward to another page</summary><table><thead><tr><th>URL</th><th>status</th><th>leads to</th><th>found on</th></tr></thead><tbody>${redirects
        .map(
          (r) =>
            `<tr data-url="${esc(r.url)}"><td class="url">${urlLink(r.url)}</td><td class="num">${r.status ?? '—'}</td><td class="url">→ ${r.finalUrl ? urlLink(r.finalUrl) : '?'}${r.skipped === 'scope' ? ' <span class="tag">off-site, not followed</span>' : ''}${r.redirectChain.length > 1 ? ` <span class="muted">(${r.redirectChain.length} hops)</span>` : ''}</td><td class="url">${r.referrer ? urlLink(r.referrer) : '<span class="none">—</span>'}</td></tr>`,
        )
        .join('')}</tbody></table></details></section>`
    : '';

  const notes = summary.notes.length ? `<ul id="notes" class="muted">${summary.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';

  return `<!doctype html>
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
${stat('uniqueUrls', 'unique URLs', summary.uniqueUrls)}
${stat('issues', 'issues', activeIssues)}
${stat('failing', 'failing', failingList.length, failingList.length > 0)}
<div class="stat"><dt>elapsed</dt><dd data-elapsed-ms="${summary.elapsedMs}">${esc(formatElapsed(summary.elapsedMs))}</dd></div>
</dl>
${notes}
</section>
<section id="issues"><h2>Issues by rule</h2>
${issueGroups(input, failing)}
</section>
${auditSectionsHtml(auditView(input.records, input.budget ?? null))}
<section id="pages"><h2>Pages</h2>
<div class="controls">
<input id="filter" type="search" placeholder="Filter pages: URL, title, status, rule…" aria-label="Filter pages" autocomplete="off">
<label><input type="checkbox" id="only-issues"> only pages with issues</label>
<span class="muted"><span id="shown">${pages.length}</span> of <span id="total">${pages.length}</span> pages shown</span>
</div>
<table>
<thead><tr>${head}</tr></thead>
<tbody>
${pages.map((r) => pageRow(r, byUrl.get(r.url) ?? [], failing, shots)).join('\n')}
</tbody>
</table>
</section>
${redirectSection}
${skippedSection}
<footer class="muted"><p>Made by spacrawl. The full data is in report.json and pages.jsonl.</p></footer>
<script>${JS}</script>
</body>
</html>
`;
}
