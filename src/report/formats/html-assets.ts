import { createHash } from 'node:crypto';

/** The HTML report's inline style sheet and script, and the Content-Security-Policy that allows exactly them. */

/** The report's style sheet (light and dark). */
export const CSS = `
:root{--fg:#1d2125;--muted:#5f6b76;--bg:#fff;--panel:#f5f7f9;--line:#dde2e7;--err:#c62828;--warn:#a15c00;--note:#2f6690;--ok:#2e7d32;--link:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ea;--muted:#9aa5b0;--bg:#16191c;--panel:#1f2327;--line:#343a40;--err:#ef6b6b;--warn:#e0a040;--note:#74a9d8;--ok:#6cc070;--link:#8ab4f8}}
*{box-sizing:border-box}
body{margin:0;padding:1.5rem 2rem 4rem;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}
h1{font-size:1.5rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:2rem 0 .75rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
code{font:12px/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.verdict{font-weight:600;margin:.25rem 0}.verdict.fail{color:var(--err)}.verdict.pass{color:var(--ok)}.verdict.incomplete{color:var(--warn)}
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
.tag.new{background:var(--err);border-color:var(--err);color:#fff}.tag.known{color:var(--muted)}
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

/** The page table's filter and sort. Plain ES5-style script: no modules, no network, works from file://. */
export const JS = `
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
export const CSP = `default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; script-src '${SCRIPT_HASH}'; base-uri 'none'; form-action 'none'`;
