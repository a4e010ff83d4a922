/**
 * What the reports show of the audit of issue 17 beyond the finding list: accessibility grouped
 * by axe-core rule across pages, each vital's worst pages first (with the `--budget` limits),
 * and what clients without JavaScript get next to the rendered page, worst first. Fed one record
 * at a time ({@link AuditView.add}) and keeping only the worst {@link VIEW_MAX_PAGES} pages per
 * list, so a report that reads the records as a stream holds no more than that.
 * @module
 */
import type { PageRecord } from '../model/record.js';
import { A11yGroups, type A11yGroup } from './a11y-groups.js';
import { BUDGET_METRICS, metricValue, type Budget, type BudgetMetric } from './budget.js';

/** Pages listed per vital and in the server-HTML table (the worst ones). */
export const VIEW_MAX_PAGES = 10;

/** One page in a vital's list. */
export interface VitalPage {
  url: string;
  /** The metric's value (ms, unitless for `cls`, bytes, requests). */
  value: number;
  /** The `--budget` limit it is over, or `null` when within it or without a limit. */
  overLimit: number | null;
}

/** One vital across the crawl: its worst pages first. */
export interface VitalRanking {
  metric: BudgetMetric;
  /** Its `--budget` limit, or `null`. */
  limit: number | null;
  /** Pages over the limit (all of them, not only the listed ones). */
  over: number;
  /** The worst {@link VIEW_MAX_PAGES} pages, highest value first. */
  pages: VitalPage[];
}

/** One page's server HTML next to its rendered page (see `ServerHtml`). */
export interface BotPage {
  url: string;
  /** The server's HTML has a `<title>`. */
  serverTitle: boolean;
  serverLinks: number;
  renderedLinks: number;
  jsOnlyLinks: number;
  serverText: number;
  renderedText: number;
}

/** The view, once every record was added. */
export interface AuditViewResult {
  /** axe-core rules across pages, most severe first (empty without `--a11y`). */
  a11y: A11yGroup[];
  /** Pages the accessibility check ran on. */
  a11yPages: number;
  /** Per vital (lcp, cls, tbt, fcp, ttfb, bytes, requests) the worst pages (empty without `--vitals`). */
  vitals: VitalRanking[];
  /** Pages with vitals, how many measured alone, and under which throttling. */
  vitalsPages: { measured: number; alone: number; throttled: number };
  /** Pages whose server HTML was read, and the worst {@link VIEW_MAX_PAGES} (most links only after JavaScript, then least server text). */
  bots: { pages: number; jsOnlyLinkPages: number; noServerTitle: number; worst: BotPage[] };
}

/** Keep `list` sorted by `worse` (worst first) and at most `max` long after adding `item`. */
function keepWorst<T>(list: T[], item: T, worse: (a: T, b: T) => number, max: number): void {
  list.push(item);
  list.sort(worse);
  if (list.length > max) list.length = max;
}

/** The reports' view of the audit (see the module comment). */
export class AuditView {
  private readonly groups = new A11yGroups();
  private a11yPages = 0;
  private readonly vitals = new Map<BudgetMetric, { over: number; pages: VitalPage[] }>();
  private readonly vitalsPages = { measured: 0, alone: 0, throttled: 0 };
  private readonly bots = { pages: 0, jsOnlyLinkPages: 0, noServerTitle: 0, worst: [] as BotPage[] };

  /** @param budget - `--budget` limits, or `null` */
  constructor(private readonly budget: Budget | null = null) {}

  /** Add one record (records without `a11y`, `vitals` or `serverHtml` add nothing to those parts). */
  add(r: PageRecord): void {
    if (r.a11y) {
      this.a11yPages++;
      this.groups.add(r);
    }
    if (r.vitals) {
      const v = r.vitals;
      this.vitalsPages.measured++;
      if (v.alone) this.vitalsPages.alone++;
      if (v.throttle !== 'none') this.vitalsPages.throttled++;
      for (const metric of BUDGET_METRICS) {
        const value = metricValue(v, metric);
        if (value === null) continue;
        const limit = this.budget?.[metric];
        const overLimit = limit !== undefined && value > limit ? limit : null;
        let entry = this.vitals.get(metric);
        if (!entry) this.vitals.set(metric, (entry = { over: 0, pages: [] }));
        if (overLimit !== null) entry.over++;
        keepWorst(entry.pages, { url: r.url, value, overLimit }, (a, b) => b.value - a.value || a.url.localeCompare(b.url), VIEW_MAX_PAGES);
      }
    }
    const sh = r.serverHtml;
    if (sh) {
      this.bots.pages++;
      if (sh.jsOnlyLinks > 0) this.bots.jsOnlyLinkPages++;
      if (!sh.title && r.title) this.bots.noServerTitle++;
      const page: BotPage = {
        url: r.url,
        serverTitle: sh.title !== null,
        serverLinks: sh.links,
        renderedLinks: sh.renderedLinks,
        jsOnlyLinks: sh.jsOnlyLinks,
        serverText: sh.textLength,
        renderedText: sh.renderedTextLength,
      };
      const share = (p: BotPage): number => (p.renderedText > 0 ? p.serverText / p.renderedText : 1);
      keepWorst(this.bots.worst, page, (a, b) => b.jsOnlyLinks - a.jsOnlyLinks || share(a) - share(b) || a.url.localeCompare(b.url), VIEW_MAX_PAGES);
    }
  }

  /** The view of the records added so far. */
  result(): AuditViewResult {
    return {
      a11y: this.groups.groups(),
      a11yPages: this.a11yPages,
      vitals: BUDGET_METRICS.filter((m) => this.vitals.has(m)).map((metric) => {
        const e = this.vitals.get(metric)!;
        return { metric, limit: this.budget?.[metric] ?? null, over: e.over, pages: [...e.pages] };
      }),
      vitalsPages: { ...this.vitalsPages },
      bots: { ...this.bots, worst: [...this.bots.worst] },
    };
  }
}

/** {@link AuditView} of `records` at once. */
export function auditView(records: Iterable<PageRecord>, budget: Budget | null = null): AuditViewResult {
  const v = new AuditView(budget);
  for (const r of records) v.add(r);
  return v.result();
}
