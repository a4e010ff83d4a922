import { SCHEMA_VERSION, isErrorPage, isPage, isRedirectRecord, isUnreachable, type PageRecord } from '../model/record.js';
import type { CrawlSummary, EndReason } from '../model/summary.js';
import type { RecordSource } from './record-source.js';

export type { CrawlSummary, EndReason } from '../model/summary.js';

/**
 * The summary's skipped URLs other than robots.txt's (which every format shows as
 * `robotsSkipped`), by reason in the summary's order: `[['budget', 36], ['trap', 2]]`. Every
 * format that shows the totals shows these too, so that none leaves out what another counts.
 */
export function otherSkipped(s: Pick<CrawlSummary, 'skipped'>): [reason: string, count: number][] {
  return Object.entries(s.skipped).filter(([k, n]) => k !== 'robots' && n > 0);
}

/**
 * Accumulates a {@link CrawlSummary} from records as they stream past.
 *
 * Memory: counters, plus one set entry per unique URL (`uniqueUrls` must know every URL it has
 * counted). For `orphans` it either keeps the page URLs and linked URLs as they pass (no
 * `records` given), or reads them back once from `records` in {@link snapshot}, keeping only the
 * sitemap URLs' share.
 */
export class SummaryCounter {
  private pages = 0;
  private redirects = 0;
  private ok = 0;
  private errors = 0;
  private unreachable = 0;
  private robots = 0;
  private robotsUnavailable = 0;
  private unsettled = 0;
  private soft404 = 0;
  private readonly skipped = new Map<string, number>();
  private readonly seen = new Set<string>();
  private readonly linked: Set<string> | null;
  private readonly pageUrls: Set<string> | null;

  /**
   * @param records - the same records, readable again when {@link snapshot} runs (e.g. the JSON
   *   Lines file they are written to): then no page or link lists are kept for `orphans`
   */
  constructor(private readonly records: RecordSource | null = null) {
    this.linked = records ? null : new Set();
    this.pageUrls = records ? null : new Set();
  }

  /** Count one record (and every URL it links to, for `uniqueUrls`). */
  add(r: PageRecord): void {
    this.seen.add(r.url);
    for (const u of r.links) {
      this.seen.add(u);
      this.linked?.add(u);
    }
    for (const u of r.externalLinks) this.seen.add(u);
    if (isPage(r)) {
      this.pages++;
      this.pageUrls?.add(r.url);
      if (r.status !== null && r.status >= 200 && r.status < 300 && r.error === null) this.ok++;
      if (isErrorPage(r)) this.errors++;
      if (isUnreachable(r)) this.unreachable++;
      if (!r.settled && r.status !== null && r.error === null) this.unsettled++;
      if (r.soft404) this.soft404++;
    } else if (isRedirectRecord(r)) {
      this.redirects++;
    } else if (r.skipped) {
      this.skipped.set(r.skipped, (this.skipped.get(r.skipped) ?? 0) + 1);
      if (r.skipped === 'robots') {
        this.robots++;
        if (r.error?.code === 'robots-unavailable') this.robotsUnavailable++;
      }
    }
  }

  /** Number of pages with errors so far. */
  get errorCount(): number {
    return this.errors;
  }

  /**
   * The totals now.
   * @param sitemapUrls - canonical URLs that were seeded from sitemaps, for `orphans`
   */
  snapshot(
    elapsedMs: number,
    endReason: EndReason,
    sitemapUrls: ReadonlySet<string> = new Set(),
    notes: readonly string[] = [],
    learnedParams: readonly string[] = [],
  ): CrawlSummary {
    const orphans = this.orphans(sitemapUrls);
    return {
      schemaVersion: SCHEMA_VERSION,
      pages: this.pages,
      redirects: this.redirects,
      ok: this.ok,
      errors: this.errors,
      robotsSkipped: this.robots,
      robotsUnavailable: this.robotsUnavailable,
      unreachable: this.unreachable,
      skipped: Object.fromEntries([...this.skipped].sort()),
      uniqueUrls: this.seen.size,
      soft404: this.soft404,
      unsettled: this.unsettled,
      sitemapUrls: sitemapUrls.size,
      orphans,
      notes: [...notes],
      learnedParams: [...learnedParams],
      elapsedMs: Math.round(elapsedMs),
      endReason,
    };
  }

  /** Sitemap URLs that were crawled as pages and that no page links to, sorted. */
  private orphans(sitemapUrls: ReadonlySet<string>): string[] {
    if (sitemapUrls.size === 0) return [];
    let pageUrls = this.pageUrls;
    let linked = this.linked;
    if (this.records) {
      pageUrls = new Set();
      linked = new Set();
      for (const r of this.records) {
        if (isPage(r) && sitemapUrls.has(r.url)) pageUrls.add(r.url);
        for (const u of r.links) if (sitemapUrls.has(u)) linked.add(u);
      }
    }
    return [...sitemapUrls].filter((u) => pageUrls!.has(u) && !linked!.has(u)).sort();
  }
}
