/**
 * Performance budgets (`--budget lcp=2500,cls=0.1,tbt=300,bytes=2MB`): limits on the vitals a
 * page's record carries (`vitals`, with `--vitals`), checked by the `budget` rule, and the pages
 * over budget ranked worst first for reports.
 * @module
 */
import { UsageError } from '../model/errors.js';
import type { PageRecord, PageVitals } from '../model/record.js';

/** A metric a budget can limit: the times (ms), CLS (unitless), transfer size (bytes), request count. */
export type BudgetMetric = 'lcp' | 'cls' | 'tbt' | 'fcp' | 'ttfb' | 'bytes' | 'requests';

/** Limits per metric; a page exceeds one when its value is above it. */
export type Budget = Partial<Record<BudgetMetric, number>>;

/** Every budget metric, in report order. */
export const BUDGET_METRICS: readonly BudgetMetric[] = ['lcp', 'cls', 'tbt', 'fcp', 'ttfb', 'bytes', 'requests'];

/** Thrown for a `--budget` that cannot be read (the CLI maps it to exit code 2). */
export class BudgetError extends UsageError {
  readonly code = 'bad-budget';
  constructor(message: string) {
    super(message);
    this.name = 'BudgetError';
  }
}

const BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1024, kib: 1024, mb: 1024 ** 2, mib: 1024 ** 2, gb: 1024 ** 3, gib: 1024 ** 3 };

/**
 * Parse `--budget`: comma-separated `metric=value`. Times (`lcp`, `tbt`, `fcp`, `ttfb`) in ms, or
 * with `ms` or `s`; `cls` unitless; `bytes` in bytes or with `KB`, `MB`, `GB` (1024-based, as
 * Lighthouse's budgets count them; `KiB`, `MiB`, `GiB` too); `requests` a count.
 * @throws BudgetError for an unknown metric, a repeated one, or a value that is not a positive number
 */
export function parseBudget(spec: string): Budget {
  const out: Budget = {};
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z]+)\s*=\s*(\d*\.?\d+)\s*([a-z]*)$/i.exec(part);
    const metric = m?.[1]?.toLowerCase() as BudgetMetric | undefined;
    if (!m || !metric || !BUDGET_METRICS.includes(metric)) {
      throw new BudgetError(`--budget: expected metric=value with a metric among ${BUDGET_METRICS.join(', ')}, got ${JSON.stringify(part)}`);
    }
    if (out[metric] !== undefined) throw new BudgetError(`--budget: ${metric} is given twice`);
    const n = Number(m[2]);
    const unit = (m[3] ?? '').toLowerCase();
    let value: number | undefined;
    if (metric === 'bytes') value = BYTE_UNITS[unit] !== undefined ? n * BYTE_UNITS[unit]! : undefined;
    else if (metric === 'cls' || metric === 'requests') value = unit === '' ? n : undefined;
    else value = unit === '' || unit === 'ms' ? n : unit === 's' ? n * 1000 : undefined;
    if (value === undefined) throw new BudgetError(`--budget: unknown unit ${JSON.stringify(m[3])} for ${metric} in ${JSON.stringify(part)}`);
    if (!(value > 0)) throw new BudgetError(`--budget: ${metric} must be above 0, got ${JSON.stringify(part)}`);
    out[metric] = value;
  }
  if (Object.keys(out).length === 0) throw new BudgetError('--budget: give at least one metric=value, e.g. lcp=2500,cls=0.1,tbt=300,bytes=2MB');
  return out;
}

/** A metric's value in a page's vitals, or `null` when not measured. */
export function metricValue(v: PageVitals, metric: BudgetMetric): number | null {
  switch (metric) {
    case 'bytes':
      return v.transferBytes;
    case 'requests':
      return v.requests;
    default:
      return v[metric];
  }
}

/** A metric's value with its unit: `3120 ms`, `0.25`, `2.4 MB`, `87 requests`. */
export function metricText(metric: BudgetMetric, n: number): string {
  if (metric === 'cls') return String(Math.round(n * 1000) / 1000);
  if (metric === 'requests') return `${Math.round(n)} requests`;
  if (metric === 'bytes') {
    if (n >= 1024 ** 2) return `${Math.round((n / 1024 ** 2) * 10) / 10} MB`;
    if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
    return `${Math.round(n)} B`;
  }
  return `${Math.round(n)} ms`;
}

/** One metric of a page over its budget. */
export interface Overrun {
  metric: BudgetMetric;
  value: number;
  limit: number;
  /** `value / limit` (above 1). */
  ratio: number;
}

/** The metrics of `vitals` over `budget`, in report order. */
export function overruns(vitals: PageVitals, budget: Budget): Overrun[] {
  const out: Overrun[] = [];
  for (const metric of BUDGET_METRICS) {
    const limit = budget[metric];
    const value = metricValue(vitals, metric);
    if (limit === undefined || value === null || !(value > limit)) continue;
    out.push({ metric, value, limit, ratio: value / limit });
  }
  return out;
}

/**
 * The pages over budget, per metric, worst first (largest `value / limit`): what a report shows
 * under the `budget` rule. Records without vitals are left out.
 */
export function rankOverruns(records: Iterable<PageRecord>, budget: Budget): { metric: BudgetMetric; pages: { url: string; value: number; limit: number; ratio: number }[] }[] {
  const per = new Map<BudgetMetric, { url: string; value: number; limit: number; ratio: number }[]>();
  for (const r of records) {
    if (!r.vitals) continue;
    for (const o of overruns(r.vitals, budget)) {
      const list = per.get(o.metric) ?? [];
      list.push({ url: r.url, value: o.value, limit: o.limit, ratio: o.ratio });
      per.set(o.metric, list);
    }
  }
  return BUDGET_METRICS.filter((m) => per.has(m)).map((metric) => ({ metric, pages: per.get(metric)!.sort((a, b) => b.ratio - a.ratio || a.url.localeCompare(b.url)) }));
}
