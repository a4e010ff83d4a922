/**
 * The audit rules of issue 17, each from one rendered page's record alone: accessibility
 * (`a11y-*`, from `a11y`), performance budgets (`budget`, from `vitals`), single-page-app
 * defects (from `spa`: `unrendered-template`, `hydration-error`, `stuck-loading`,
 * `empty-render`) and what a client without JavaScript gets (from `serverHtml`:
 * `js-only-title`, `js-only-links`, `js-only-content`). `audit()` calls them for every page
 * rendered with a status below 400; their severities live in its `RULES` table.
 * @module
 */
import type { A11yImpact, PageRecord } from '../model/record.js';
import { metricText, overruns, type Budget } from './budget.js';
import { hydrationText } from './finding-text.js';

/** The rules of this module. */
export type PageRuleId =
  | 'a11y-critical'
  | 'a11y-serious'
  | 'a11y-moderate'
  | 'a11y-minor'
  | 'budget'
  | 'unrendered-template'
  | 'hydration-error'
  | 'stuck-loading'
  | 'empty-render'
  | 'js-only-title'
  | 'js-only-links'
  | 'js-only-content';

/** Adds one issue about `url`. */
export type AddIssue = (rule: PageRuleId, url: string, message: string, subject?: string) => void;

/** The `a11y-*` rule of an axe-core impact (no impact counts as minor). */
export function a11yRule(impact: A11yImpact | null): PageRuleId {
  return impact === 'critical' ? 'a11y-critical' : impact === 'serious' ? 'a11y-serious' : impact === 'moderate' ? 'a11y-moderate' : 'a11y-minor';
}

/** `js-only-content`: the rendered page has at least this many characters of text … */
export const JS_ONLY_MIN_RENDERED_TEXT = 200;
/** … and the server's HTML less than this share of it. */
export const JS_ONLY_TEXT_SHARE = 0.1;

/** Quote `s` for a message: `"…"`, cut at 80 characters. */
function quote(s: string): string {
  return JSON.stringify(s.length > 80 ? `${s.slice(0, 77)}…` : s);
}

/**
 * The issues of one rendered page (status below 400, no error, a title):
 * - one `a11y-<impact>` per axe-core rule violated, per state (the page as read, each revealed
 *   state): `color-contrast: Elements must … — 3 elements (#a, #b, …)`, with the state's name;
 * - one `budget` when any vital is over `budget`, naming each;
 * - one each of `unrendered-template`, `hydration-error`, `stuck-loading` (busy indicators at
 *   read time on a page read at the settle cap), `empty-render` (an empty app root on a 200);
 * - `js-only-title` (the server's HTML has no title, the rendered page has one), `js-only-links`
 *   (link targets only the rendered page has, with their number), `js-only-content` (the server's
 *   HTML has less than {@link JS_ONLY_TEXT_SHARE} of the rendered text, and the rendered page at
 *   least {@link JS_ONLY_MIN_RENDERED_TEXT} characters).
 * Fields a record from an older version lacks count as not measured.
 */
export function pageRuleIssues(r: PageRecord, add: AddIssue, budget: Budget | null): void {
  for (const v of r.a11y?.violations ?? []) {
    const targets = v.targets.join(', ') + (v.nodes > v.targets.length ? ', …' : '');
    const message = `${v.rule}: ${v.help} — ${v.nodes} element${v.nodes === 1 ? '' : 's'} (${targets})${v.state ? `; ${v.state}` : ''}`;
    add(a11yRule(v.impact), r.url, message, v.state ? `${v.rule} ${v.state}` : v.rule);
  }
  if (budget && r.vitals) {
    const over = overruns(r.vitals, budget);
    if (over.length) add('budget', r.url, over.map((o) => `${o.metric} ${metricText(o.metric, o.value)} > ${metricText(o.metric, o.limit)}`).join(', '));
  }
  const spa = r.spa;
  if (spa) {
    if (spa.unrendered.length) add('unrendered-template', r.url, `${spa.unrendered.length} unrendered text${spa.unrendered.length === 1 ? '' : 's'}: ${spa.unrendered.map(quote).join(', ')}`);
    if (spa.hydration.length) add('hydration-error', r.url, hydrationText(spa.hydration));
    if (!r.settled && spa.busy.length) add('stuck-loading', r.url, `still loading when read at the settle cap: ${spa.busy.join(', ')}`);
    if (spa.emptyRoot && r.status === 200) add('empty-render', r.url, `the app root ${spa.emptyRoot} rendered nothing (no text, no links)`);
  }
  const sh = r.serverHtml;
  if (sh) {
    if (!sh.title && r.title) add('js-only-title', r.url, `the server's HTML has no title; the rendered page's is ${quote(r.title)}`);
    if (sh.jsOnlyLinks > 0) {
      const eg = sh.jsOnlyLinkSamples.slice(0, 3).join(', ');
      add('js-only-links', r.url, `${sh.jsOnlyLinks} of ${sh.renderedLinks} links only after JavaScript (the server's HTML has ${sh.links}), e.g. ${eg}`);
    }
    if (sh.renderedTextLength >= JS_ONLY_MIN_RENDERED_TEXT && sh.textLength < JS_ONLY_TEXT_SHARE * sh.renderedTextLength) {
      add('js-only-content', r.url, `the server's HTML has ${sh.textLength} characters of text, the rendered page ${sh.renderedTextLength}`);
    }
  }
}
