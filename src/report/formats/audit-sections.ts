/**
 * The audit sections of the HTML report and the markdown summary (issue 17): accessibility by
 * axe-core rule across pages, Web Vitals worst pages first with the `--budget` limits and how
 * they were measured, and "server HTML / rendered" for links and text. Rendered from an
 * {@link AuditViewResult}; a section is left out when the crawl has nothing for it.
 * @module
 */
import type { A11yImpact } from '../../model/record.js';
import { a11yGroupLine } from '../a11y-groups.js';
import type { AuditViewResult, VitalRanking } from '../audit-view.js';
import { metricText, type BudgetMetric } from '../budget.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
const link = (u: string): string => (/^https?:\/\//i.test(u) ? `<a href="${esc(u)}" rel="noopener noreferrer">${esc(u)}</a>` : esc(u));
const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The report's severity colour of an axe-core impact (the rules' severities: critical/serious warn, the rest notice). */
function sevOf(impact: A11yImpact | null): 'warning' | 'notice' {
  return impact === 'critical' || impact === 'serious' ? 'warning' : 'notice';
}

/** What each vital is called in the reports. */
export const METRIC_NAMES: Record<BudgetMetric, string> = {
  lcp: 'Largest Contentful Paint (LCP)',
  cls: 'Cumulative Layout Shift (CLS)',
  tbt: 'Total Blocking Time (TBT)',
  fcp: 'First Contentful Paint (FCP)',
  ttfb: 'Time to First Byte (TTFB)',
  bytes: 'transfer size',
  requests: 'requests',
};

/** How the vitals were measured, in one sentence (alone or side by side, throttled or not). */
export function vitalsConditions(v: AuditViewResult['vitalsPages']): string {
  const alone =
    v.alone === v.measured
      ? 'each page measured alone (--vitals-concurrency)'
      : v.alone === 0
        ? "pages measured while other pages of the crawl loaded on the same CPU cores: the times include the crawler's own load, not only the site's (--vitals-concurrency 1 measures each page alone)"
        : `${v.alone} of ${v.measured} pages measured alone`;
  const throttle = v.throttled === 0 ? 'no throttling' : v.throttled === v.measured ? "Lighthouse's mobile throttling (CPU 4x, 150 ms RTT, 1.6 Mbps down)" : `${v.throttled} pages under mobile throttling`;
  return `${plural(v.measured, 'page')} measured; ${alone}; ${throttle}.`;
}

function vitalHtml(r: VitalRanking): string {
  const limit = r.limit === null ? '' : ` — budget ${esc(metricText(r.metric, r.limit))}: <span class="n">${r.over}</span> over`;
  const rows = r.pages
    .map((p) => `<tr data-url="${esc(p.url)}"><td class="url">${link(p.url)}</td><td class="num" data-v="${p.value}">${esc(metricText(r.metric, p.value))}${p.overLimit !== null ? ' <span class="tag failing">over budget</span>' : ''}</td></tr>`)
    .join('');
  return `<details class="issue-group" data-metric="${r.metric}" data-over="${r.over}"${r.over > 0 ? ' open' : ''}><summary><code>${r.metric}</code> ${esc(METRIC_NAMES[r.metric])}${limit}</summary><table><thead><tr><th>URL (worst first)</th><th class="num">${esc(r.metric)}</th></tr></thead><tbody>${rows}</tbody></table></details>`;
}

/** The HTML sections `#a11y`, `#vitals` and `#bots` (each only when the crawl has data for it). */
export function auditSectionsHtml(v: AuditViewResult): string {
  const out: string[] = [];
  if (v.a11yPages > 0) {
    const groups = v.a11y
      .map((g) => {
        const sev = sevOf(g.impact);
        const pages = g.pages
          .map((p) => `<li class="issue" data-url="${esc(p.url)}">${link(p.url)} <span class="msg">${plural(p.nodes, 'element')}</span>${p.states.length ? `<ul class="refs">${p.states.map((s) => `<li class="state">${esc(s)}</li>`).join('')}</ul>` : ''}</li>`)
          .join('');
        return (
          `<details class="issue-group sev-${sev}" data-a11y-rule="${esc(g.rule)}" data-impact="${esc(g.impact ?? '')}" data-pages="${g.pages.length}" data-nodes="${g.nodes}">` +
          `<summary><span class="sev ${sev}">${esc(g.impact ?? 'no impact')}</span> <code>${esc(g.rule)}</code> on <span class="n">${plural(g.pages.length, 'page')}</span>, ${plural(g.nodes, 'element')}</summary>` +
          `<p class="desc muted">${esc(g.help)} (<a href="${esc(g.helpUrl)}" rel="noopener noreferrer">axe-core's page</a>)</p><ul class="issues">${pages}</ul></details>`
        );
      })
      .join('\n');
    out.push(
      `<section id="a11y"><h2>Accessibility by axe rule</h2><p class="muted">axe-core on ${plural(v.a11yPages, 'page')} and the states their clicks revealed; one entry per rule across pages, most severe first.</p>\n${groups || '<p class="none">No violations found.</p>'}\n</section>`,
    );
  }
  if (v.vitalsPages.measured > 0) {
    out.push(`<section id="vitals"><h2>Web Vitals, worst pages first</h2><p class="muted" id="vitals-conditions">${esc(vitalsConditions(v.vitalsPages))}</p>\n${v.vitals.map(vitalHtml).join('\n')}\n</section>`);
  }
  if (v.bots.pages > 0) {
    const b = v.bots;
    const rows = b.worst
      .map(
        (p) =>
          `<tr data-url="${esc(p.url)}"><td class="url">${link(p.url)}</td><td>${p.serverTitle ? 'yes' : '<span class="tag failing">none</span>'}</td><td class="num" data-v="${p.jsOnlyLinks}">${p.serverLinks} / ${p.renderedLinks}</td><td class="num" data-v="${p.serverText}">${p.serverText} / ${p.renderedText}</td></tr>`,
      )
      .join('');
    out.push(
      `<section id="bots"><h2>What clients without JavaScript see</h2><p class="muted">The server's HTML of ${plural(b.pages, 'page')} next to the rendered page: ${b.jsOnlyLinkPages} with links only after JavaScript, ${b.noServerTitle} with a title only after JavaScript. The worst ${b.worst.length}:</p>` +
        `<table><thead><tr><th>URL</th><th>title in server HTML</th><th class="num">links: server HTML / rendered</th><th class="num">text (characters): server HTML / rendered</th></tr></thead><tbody>${rows}</tbody></table></section>`,
    );
  }
  return out.join('\n');
}

/** How the markdown summary writes page text and URLs (its escaping, given by `markdown.ts`). */
export interface MarkdownWriters {
  /** Text from a page, escaped, cut to `max` characters. */
  text: (s: string, max?: number) => string;
  /** A URL as a link. */
  url: (u: string) => string;
}

/** The markdown lines of the same sections (short: a PR comment). */
export function auditSectionsMarkdown(v: AuditViewResult, md: MarkdownWriters): string[] {
  const mdText = md.text;
  const mdUrl = md.url;
  const out: string[] = [];
  if (v.a11yPages > 0) {
    out.push('### Accessibility by axe rule', '');
    if (v.a11y.length === 0) out.push(`No violations on ${plural(v.a11yPages, 'page')}.`);
    for (const g of v.a11y.slice(0, 20)) out.push(`- \`${g.rule}\` ${mdText(a11yGroupLine(g).slice(g.rule.length + 1))}: ${mdText(g.help, 120)}; worst: ${mdUrl(g.pages[0]!.url)}`);
    if (v.a11y.length > 20) out.push(`- and ${v.a11y.length - 20} more rules (see the HTML report)`);
    out.push('');
  }
  if (v.vitalsPages.measured > 0) {
    out.push('### Web Vitals, worst pages first', '', mdText(vitalsConditions(v.vitalsPages), 400), '');
    out.push('| metric | budget | over | worst page | value |', '|---|---:|---:|---|---:|');
    for (const r of v.vitals) {
      const worst = r.pages[0];
      out.push(`| ${r.metric} | ${r.limit === null ? '—' : metricText(r.metric, r.limit)} | ${r.limit === null ? '—' : r.over} | ${worst ? mdUrl(worst.url) : '—'} | ${worst ? metricText(r.metric, worst.value) : '—'} |`);
    }
    out.push('');
  }
  if (v.bots.pages > 0 && (v.bots.jsOnlyLinkPages > 0 || v.bots.noServerTitle > 0)) {
    out.push('### What clients without JavaScript see', '', '| page | links: server HTML / rendered | text: server HTML / rendered |', '|---|---:|---:|');
    for (const p of v.bots.worst.slice(0, 5)) out.push(`| ${mdUrl(p.url)} | ${p.serverLinks} / ${p.renderedLinks} | ${p.serverText} / ${p.renderedText} |`);
    out.push('');
  }
  return out;
}
