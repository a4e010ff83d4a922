/**
 * The audit rules of issue 17 from records alone (src/report/page-rules.ts, budget.ts,
 * a11y-groups.ts): thresholds, budgets and their units, the a11y grouping, records of older
 * versions. No browser.
 */
import { describe, expect, it } from 'vitest';
import { blankRecord, type A11yViolation, type PageRecord, type PageVitals, type ServerHtml } from '../../src/model/record.js';
import { a11yGroupLine, A11yGroups, groupA11y } from '../../src/report/a11y-groups.js';
import { audit, failingIssues, RULES } from '../../src/report/audit.js';
import { BudgetError, parseBudget, rankOverruns } from '../../src/report/budget.js';

/** A rendered 200 page at `path` with `over` applied. */
function page(path: string, over: Partial<PageRecord> = {}): PageRecord {
  const url = `https://example.test${path}`;
  return {
    ...blankRecord(url, url, 1, null),
    finalUrl: url,
    status: 200,
    title: `Page ${path}`,
    settled: true,
    attempts: 1,
    meta: { description: 'd', canonical: null, h1Count: 1 },
    ...over,
  };
}

const vitals = (over: Partial<PageVitals>): PageVitals => ({ lcp: 1000, cls: 0, tbt: 0, fcp: 800, ttfb: 100, transferBytes: 1000, requests: 3, alone: false, throttle: 'none', ...over });
const server = (over: Partial<ServerHtml>): ServerHtml => ({
  title: 'T',
  links: 0,
  textLength: 0,
  renderedLinks: 0,
  renderedTextLength: 0,
  jsOnlyLinks: 0,
  jsOnlyLinkSamples: [],
  bytes: 100,
  truncated: false,
  ...over,
});
const violation = (rule: string, impact: A11yViolation['impact'], nodes: number, state: string | null = null): A11yViolation => ({
  rule,
  impact,
  help: `help of ${rule}`,
  helpUrl: `https://dequeuniversity.com/rules/axe/4.13/${rule}`,
  nodes,
  targets: Array.from({ length: Math.min(nodes, 3) }, (_, i) => `#e${i}`),
  state,
});
const a11y = (violations: A11yViolation[]): PageRecord['a11y'] => ({ engine: 'axe-core 4.13.0', tags: ['wcag2a'], violations, states: [], error: null });

/** `rule path` of every issue of the new rules. */
function found(records: PageRecord[], budget = parseBudget('lcp=2500')): string[] {
  const mine = new Set(['a11y-critical', 'a11y-serious', 'a11y-moderate', 'a11y-minor', 'budget', 'unrendered-template', 'hydration-error', 'stuck-loading', 'empty-render', 'js-only-title', 'js-only-links', 'js-only-content']);
  return audit(records, { budget })
    .issues.filter((i) => mine.has(i.rule))
    .map((i) => `${i.rule} ${new URL(i.url).pathname}`);
}

describe('parseBudget', () => {
  it('reads times in ms or s, CLS, bytes with 1024-based units, requests', () => {
    expect(parseBudget('lcp=2500,cls=0.1,tbt=300,bytes=2MB')).toEqual({ lcp: 2500, cls: 0.1, tbt: 300, bytes: 2 * 1024 * 1024 });
    expect(parseBudget(' fcp = 1.5s , ttfb=800ms, bytes=500KiB, requests=40 ')).toEqual({ fcp: 1500, ttfb: 800, bytes: 500 * 1024, requests: 40 });
    expect(parseBudget('bytes=1000')).toEqual({ bytes: 1000 });
  });

  it('refuses unknown metrics and units, repeats, zero and empty budgets', () => {
    for (const bad of ['inp=200', 'lcp=fast', 'cls=0.1s', 'bytes=2MBs', 'lcp=1,lcp=2', 'tbt=0', '', ' , ']) expect(() => parseBudget(bad), bad).toThrow(BudgetError);
  });
});

describe('the rules, from records alone', () => {
  it('a11y: one issue per page, axe rule and state, by impact; severities from the table', () => {
    const r = page('/a', {
      a11y: a11y([violation('image-alt', 'critical', 4), violation('color-contrast', 'serious', 1), violation('color-contrast', 'serious', 2, 'after clicking "Menu" (button) on /a'), violation('list', 'moderate', 1), violation('x', null, 1)]),
    });
    const issues = audit([r]).issues.filter((i) => i.rule.startsWith('a11y-'));
    expect(issues.map((i) => [i.rule, i.severity, i.message])).toEqual([
      ['a11y-critical', 'warning', 'image-alt: help of image-alt — 4 elements (#e0, #e1, #e2, …)'],
      ['a11y-serious', 'warning', 'color-contrast: help of color-contrast — 1 element (#e0)'],
      ['a11y-serious', 'warning', 'color-contrast: help of color-contrast — 2 elements (#e0, #e1); after clicking "Menu" (button) on /a'],
      ['a11y-minor', 'notice', 'x: help of x — 1 element (#e0)'],
      ['a11y-moderate', 'notice', 'list: help of list — 1 element (#e0)'],
    ]);
    // Warnings by default, errors of the build only when asked for.
    expect(failingIssues(audit([r]), ['broken-link'])).toEqual([]);
    expect(failingIssues(audit([r]), ['a11y-critical']).map((i) => i.rule)).toEqual(['a11y-critical']);
    expect(failingIssues(audit([r]), ['warnings']).map((i) => i.rule)).toEqual(['a11y-critical', 'a11y-serious', 'a11y-serious']);
  });

  it('budget: only pages with vitals, only metrics over their limit', () => {
    const records = [page('/slow', { vitals: vitals({ lcp: 2501, transferBytes: 3 * 1024 * 1024 }) }), page('/edge', { vitals: vitals({ lcp: 2500 }) }), page('/none')];
    expect(found(records, parseBudget('lcp=2500,bytes=2MB'))).toEqual(['budget /slow']);
    expect(audit(records, { budget: parseBudget('lcp=2500,bytes=2MB') }).issues.find((i) => i.rule === 'budget')!.message).toBe('lcp 2501 ms > 2500 ms, bytes 3 MB > 2 MB');
    // A metric the page did not measure is not over budget.
    expect(found([page('/nolcp', { vitals: vitals({ lcp: null }) })], parseBudget('lcp=1'))).toEqual([]);
  });

  it('budget: worst pages first, per metric', () => {
    const records = [page('/a', { vitals: vitals({ lcp: 3000, cls: 0.3 }) }), page('/b', { vitals: vitals({ lcp: 5000 }) }), page('/c', { vitals: vitals({ lcp: 100 }) })];
    expect(rankOverruns(records, parseBudget('lcp=2500,cls=0.1')).map((m) => [m.metric, m.pages.map((p) => new URL(p.url).pathname)])).toEqual([
      ['lcp', ['/b', '/a']],
      ['cls', ['/a']],
    ]);
  });

  it('SPA defects: stuck-loading needs the settle cap, empty-render a 200', () => {
    const busy = { unrendered: [], busy: ['skeleton div.card'], emptyRoot: null, hydration: [] };
    const empty = { unrendered: [], busy: [], emptyRoot: '#root', hydration: [] };
    expect(
      found([
        page('/stuck', { settled: false, spa: busy }),
        page('/settled-busy', { settled: true, spa: busy }),
        page('/empty', { spa: empty }),
        page('/empty-203', { status: 203, spa: empty }),
        page('/tpl', { spa: { unrendered: ['{{ a }}'], busy: [], emptyRoot: null, hydration: ['Vue: Hydration completed but contains mismatches.'] } }),
      ]),
    ).toEqual(['empty-render /empty', 'hydration-error /tpl', 'stuck-loading /stuck', 'unrendered-template /tpl']);
  });

  it('what clients without JavaScript get: title, links with their number, text under 10 % of at least 200 characters', () => {
    const records = [
      page('/shell', { serverHtml: server({ title: null, jsOnlyLinks: 12, renderedLinks: 40, links: 28, jsOnlyLinkSamples: ['https://example.test/x'], textLength: 19, renderedTextLength: 200 }) }),
      page('/share', { serverHtml: server({ textLength: 20, renderedTextLength: 200 }) }),
      page('/short', { serverHtml: server({ textLength: 0, renderedTextLength: 199 }) }),
      page('/untitled-both', { title: '', serverHtml: server({ title: null }) }),
    ];
    // A page with no title rendered either has no js-only-title (missing-title says it).
    expect(found(records)).toEqual(['js-only-content /shell', 'js-only-title /shell', 'js-only-links /shell']);
    expect(audit(records).issues.find((i) => i.rule === 'js-only-links')!.message).toBe("12 of 40 links only after JavaScript (the server's HTML has 28), e.g. https://example.test/x");
  });

  it('pages not rendered, and records of older versions (no new fields), give none of the new issues', () => {
    const old = page('/old') as Partial<PageRecord>;
    delete old.a11y;
    delete old.vitals;
    delete old.spa;
    delete old.serverHtml;
    const broken = page('/broken', { status: 500, spa: { unrendered: ['{{ a }}'], busy: [], emptyRoot: '#root', hydration: [] } });
    expect(found([old as PageRecord, broken], parseBudget('lcp=1'))).toEqual([]);
  });

  it('every new rule is in the table, with a severity', () => {
    expect(
      ['a11y-critical', 'a11y-serious', 'a11y-moderate', 'a11y-minor', 'budget', 'unrendered-template', 'hydration-error', 'stuck-loading', 'empty-render', 'js-only-title', 'js-only-links', 'js-only-content'].map(
        (r) => [r, RULES[r as keyof typeof RULES].severity],
      ),
    ).toEqual([
      ['a11y-critical', 'warning'],
      ['a11y-serious', 'warning'],
      ['a11y-moderate', 'notice'],
      ['a11y-minor', 'notice'],
      ['budget', 'warning'],
      ['unrendered-template', 'warning'],
      ['hydration-error', 'warning'],
      ['stuck-loading', 'warning'],
      ['empty-render', 'error'],
      ['js-only-title', 'warning'],
      ['js-only-links', 'notice'],
      ['js-only-content', 'warning'],
    ]);
  });
});

describe('a11y groups', () => {
  it('one group per axe rule across pages: most severe first, then most pages; elements summed, states named', () => {
    const s = 'after clicking "Menu" (button) on /b';
    const records = [
      page('/a', { a11y: a11y([violation('color-contrast', 'serious', 3), violation('image-alt', 'critical', 1)]) }),
      page('/b', { a11y: a11y([violation('color-contrast', 'serious', 1), violation('color-contrast', 'serious', 5, s)]) }),
      page('/c', { a11y: a11y([violation('list', 'moderate', 1), violation('label', 'critical', 1)]) }),
      page('/d'),
    ];
    const groups = groupA11y(records);
    expect(groups.map((g) => [g.rule, g.pages.map((p) => [new URL(p.url).pathname, p.nodes, p.states])])).toEqual([
      ['image-alt', [['/a', 1, []]]],
      ['label', [['/c', 1, []]]],
      ['color-contrast', [['/b', 6, [s]], ['/a', 3, []]]],
      ['list', [['/c', 1, []]]],
    ]);
    expect(a11yGroupLine(groups[2]!)).toBe('color-contrast (serious) on 2 pages, 9 elements');
    // Streaming: one record at a time gives the same groups.
    const g = new A11yGroups();
    for (const r of records) g.add(r);
    expect(g.groups()).toEqual(groups);
  });
});
