import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RULES, type RuleId } from '../../report/audit.js';
import { escapeHtml as esc } from '../../report/formats/html.js';
import { uncomparedText } from '../checks.js';
import { failingFindings, matchesFailOn } from '../findings.js';
import { isEmptyDiff, type Finding } from '../types.js';
import type { DiffReportInput } from './input.js';
import { changeCounts, failOnText, percentText, plural, statusText, timingText } from './words.js';

const CSS = `
:root{--fg:#1d2125;--muted:#5f6b76;--bg:#fff;--panel:#f5f7f9;--line:#dde2e7;--err:#c62828;--ok:#2e7d32;--link:#0b57d0;--add:#e6f4ea;--del:#fdecea}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ea;--muted:#9aa5b0;--bg:#16191c;--panel:#1f2327;--line:#343a40;--err:#ef6b6b;--ok:#6cc070;--link:#8ab4f8;--add:#1e3a26;--del:#42201e}}
body{margin:0;padding:1.5rem 2rem 4rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:2rem 0 .75rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
.verdict{font-weight:600}.verdict.fail{color:var(--err)}.verdict.pass{color:var(--ok)}.muted{color:var(--muted)}
.stats{display:flex;flex-wrap:wrap;gap:.75rem;margin:0}.stat{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.5rem .9rem}
.stat dt{color:var(--muted);font-size:12px}.stat dd{margin:0;font-size:1.3rem;font-weight:600}
table{border-collapse:collapse;width:100%}th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
th{background:var(--panel);white-space:nowrap}td.rule,td.sev{white-space:nowrap}td.num,th.num{text-align:right}
tr.new-finding{background:var(--del)}
.shots{display:grid;grid-template-columns:repeat(3,1fr);gap:.5rem}.shots figure{margin:0}.shots img{width:100%;border:1px solid var(--line)}.shots figcaption{color:var(--muted);font-size:12px}
tr.fixed-finding{background:var(--add)}tr.failing td.rule{color:var(--err);font-weight:600}
`;

/** A link to a crawled URL, or plain text when it is not http(s) (never a `javascript:` href). */
function link(u: string | null): string {
  if (u === null) return '<span class="muted">none</span>';
  return /^https?:\/\//i.test(u) ? `<a href="${esc(u)}" rel="noopener noreferrer">${esc(u)}</a>` : esc(u);
}

function text(s: string | null): string {
  return s === null ? '<span class="muted">none</span>' : esc(s);
}

/** A table of one section, or nothing when it has no rows. */
function table<T>(title: string, id: string, items: readonly T[], heads: readonly string[], row: (x: T) => string): string {
  if (!items.length) return '';
  return `<h2 id="${id}">${esc(title)} (${items.length})</h2>\n<table><thead><tr>${heads.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>\n${items.map(row).join('\n')}\n</tbody></table>\n`;
}

function findingRow(f: Finding, kind: 'new' | 'fixed', failing: boolean): string {
  const where = f.page === f.url ? '<span class="muted">the page</span>' : f.page === null ? '<span class="muted">no crawled page</span>' : `${link(f.page)}${f.text ? ` <span class="muted">“${esc(f.text)}”</span>` : ''}`;
  const cls = `${kind}-finding${failing ? ' failing' : ''}`;
  return `<tr class="${cls}"><td class="rule">${failing ? '✗ ' : ''}${esc(f.rule)}</td><td class="sev">${esc(f.severity)}</td><td>${link(f.url)}</td><td>${where}</td><td>${esc(f.message)}${f.ignored ? ' <span class="muted">(ignored)</span>' : ''}</td></tr>`;
}

/** An image's `src`: relative to the report's folder, or a `file:` URL when the report goes to stdout. */
function imageHref(file: string, outPath: string | null): string {
  if (outPath === null) return pathToFileURL(file).href;
  return path.relative(path.dirname(outPath), file).split(path.sep).map(encodeURIComponent).join('/');
}

const SEVERITY_ORDER = { error: 0, warning: 1, notice: 2 } as const;

/**
 * `html`: one page (no script, no network; screenshots are linked files): the verdict under `--fail-on`, the
 * counts, findings per rule, then one table per kind of change, new findings first (failing
 * ones marked ✗), and, for pages whose screenshot changed, before / after / difference side by
 * side (images linked relative to the report's folder). Every text from pages is escaped.
 */
export function renderDiffHtml(input: DiffReportInput): string {
  const { diff: d, failOn } = input;
  const f = d.findings;
  const failing = failingFindings(d, failOn).length;
  const rules = failOnText(failOn);
  const parts: string[] = [];
  parts.push(
    failing
      ? `<p class="verdict fail">Fails under <code>--fail-on ${esc(rules)}</code>: ${plural(failing, 'new finding')}.</p>`
      : `<p class="verdict pass">Passes under <code>--fail-on ${esc(rules)}</code>: no new finding of those rules.</p>`,
  );
  parts.push(`<p class="muted">${esc(d.old.source)} (${plural(d.old.pages, 'page')}) → ${esc(d.new.source)} (${plural(d.new.pages, 'page')})</p>`);
  const stats = [
    { label: 'new findings', count: f.new.length },
    { label: 'fixed findings', count: f.fixed.length },
    { label: 'unchanged findings', count: f.unchanged.length },
    ...changeCounts(d),
  ];
  parts.push(`<dl class="stats">${stats.map((s) => `<div class="stat"><dt>${esc(s.label)}</dt><dd>${s.count}</dd></div>`).join('')}</dl>`);
  for (const u of d.checks.uncompared) parts.push(`<p class="muted">Not compared: ${esc(uncomparedText(u))}: its findings are neither new nor fixed.</p>`);
  for (const n of d.notices) parts.push(`<p class="muted">Note: ${esc(n)}</p>`);
  if (isEmptyDiff(d)) parts.push('<p>No changes: the same pages, statuses, titles, redirects, links and findings.</p>');
  const ruleIds = (Object.keys(f.byRule) as RuleId[]).sort((a, b) => SEVERITY_ORDER[RULES[a].severity] - SEVERITY_ORDER[RULES[b].severity] || a.localeCompare(b));
  parts.push(
    table('Findings by rule', 'rules', ruleIds, ['rule', 'severity', 'new', 'fixed', 'unchanged'], (r) => {
      const c = f.byRule[r]!;
      return `<tr><td>${esc(r)}</td><td>${RULES[r].severity}</td><td class="num">${c.new}</td><td class="num">${c.fixed}</td><td class="num">${c.unchanged}</td></tr>`;
    }),
  );
  const fHeads = ['rule', 'severity', 'URL', 'on page', 'message'];
  parts.push(table('New findings', 'new', f.new, fHeads, (x) => findingRow(x, 'new', matchesFailOn(x, failOn))));
  parts.push(table('Fixed findings', 'fixed', f.fixed, fHeads, (x) => findingRow(x, 'fixed', false)));
  parts.push(table('Pages added', 'added', d.pages.added, ['URL', 'status', 'title'], (x) => `<tr><td>${link(x.url)}</td><td>${esc(String(x.status ?? x.error ?? 'no response'))}</td><td>${text(x.title)}</td></tr>`));
  parts.push(
    table('Pages removed', 'removed', d.pages.removed, ['URL', 'title', 'now'], (x) => `<tr><td>${link(x.url)}</td><td>${text(x.title)}</td><td>${x.otherSkipped ? `skipped: ${esc(x.otherSkipped)}` : '<span class="muted">not crawled</span>'}</td></tr>`),
  );
  parts.push(table('Status changes', 'status', d.statusChanges, ['URL', 'before', 'after'], (x) => `<tr><td>${link(x.url)}</td><td>${esc(statusText(x.old))}</td><td>${esc(statusText(x.new))}</td></tr>`));
  parts.push(table('Title changes', 'titles', d.titleChanges, ['URL', 'before', 'after'], (x) => `<tr><td>${link(x.url)}</td><td>${text(x.old)}</td><td>${text(x.new)}</td></tr>`));
  parts.push(table('Redirect changes', 'redirects', d.redirectChanges, ['URL', 'before', 'after'], (x) => `<tr><td>${link(x.url)}</td><td>${link(x.old)}</td><td>${link(x.new)}</td></tr>`));
  parts.push(table('New soft 404s', 'soft404', d.soft404s, ['URL', 'why'], (x) => `<tr><td>${link(x.url)}</td><td>${text(x.reason)}</td></tr>`));
  parts.push(table('Links that disappeared', 'links', d.lostLinks, ['page', 'no longer links to'], (x) => `<tr><td>${link(x.url)}</td><td>${x.links.map(link).join('<br>')}</td></tr>`));
  parts.push(
    table(`Timing changes (at least ${d.thresholds.ms} ms and ${Math.round(d.thresholds.ratio * 100)} %)`, 'timings', d.timingChanges, ['URL', 'change'], (x) => `<tr><td>${link(x.url)}</td><td>${esc(timingText(x))}</td></tr>`),
  );
  if (d.visual) {
    const v = d.visual;
    parts.push(
      table(`Visual changes (above ${percentText(v.threshold)} of pixels; ${plural(v.compared, 'page')} compared)`, 'visual', v.changes, ['page', 'before / after / difference'], (x) => {
        const fig = (file: string | null, caption: string): string =>
          file === null ? `<figure><figcaption>${caption}: not written (no --visual-dir)</figcaption></figure>` : `<figure><a href="${esc(imageHref(file, input.outPath ?? null))}"><img src="${esc(imageHref(file, input.outPath ?? null))}" loading="lazy" alt="${caption} of ${esc(x.url)}"></a><figcaption>${caption}</figcaption></figure>`;
        return `<tr><td>${link(x.url)}<br>${esc(percentText(x.ratio))} of pixels changed${x.sizeChanged ? ', and the page size' : ''}</td><td><div class="shots">${fig(x.old, 'before')}${fig(x.new, 'after')}${fig(x.diff, 'difference')}</div></td></tr>`;
      }),
    );
  }
  const title = `spacrawl diff: ${d.old.source} → ${d.new.source}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body>
<h1>spacrawl diff</h1>
${parts.filter(Boolean).join('\n')}
</body></html>
`;
}
