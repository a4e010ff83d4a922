import type { Browser } from 'playwright';
import type { FixtureServer, LoggedRequest } from '../../fixtures/server.js';
import { crawl, type CrawlOptions, type PageRecord } from '../../src/index.js';
import { collect, pathOf } from '../helpers/records.js';

/** Crawl through the library API with the user's defaults, in a browser the test file owns. */
export function zooCrawl(browser: Browser, seed: string, opts: Partial<CrawlOptions> = {}): Promise<PageRecord[]> {
  return collect(crawl({ seeds: [seed], settleTimeoutMs: 3000, ...opts, browser }));
}

/** `{ path+query: record }` for the records of one origin. */
export function byPath(records: readonly PageRecord[]): Map<string, PageRecord> {
  return new Map(records.map((r) => [pathOf(r.url), r]));
}

/** The raw request targets a server saw under `prefix` (soft-404 probes left out), in order. */
export function targets(site: FixtureServer, prefix = '/'): string[] {
  return site.log.filter((l: LoggedRequest) => l.target.startsWith(prefix) && !l.target.includes('spacrawl-probe')).map((l) => l.target);
}

/** Each record reduced to what most zoo cases check: path, status, title, skipped, error code. */
export function summary(records: readonly PageRecord[]): { path: string; status: number | null; title: string | null; skipped: string | null; error: string | null }[] {
  return records
    .map((r) => ({ path: pathOf(r.url), status: r.status, title: r.title, skipped: r.skipped, error: r.error?.code ?? null }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
