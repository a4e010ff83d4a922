import fs from 'node:fs';
import { SqliteFrontier } from '../../src/store/sqlite/frontier.js';
import type { PageRecord } from '../../src/model/record.js';
import type { CrawlDiff, Finding } from '../../src/diff/types.js';

/** Write records as JSON Lines (what `--out` writes). */
export function writeJsonl(file: string, records: readonly object[]): void {
  fs.writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/**
 * Write records into a new state file through the store itself: every URL added to the
 * frontier, then leased and completed with its record, in order.
 */
export async function writeStateFile(file: string, records: readonly PageRecord[]): Promise<void> {
  const seeds = records.filter((r) => r.depth === 0).map((r) => r.url);
  const store = SqliteFrontier.open(file, { crawlKey: { seeds, scope: 'host' } });
  try {
    const byUrl = new Map(records.map((r) => [r.url, r]));
    await store.add(records.map((r) => ({ url: r.url, requestedUrl: r.requestedUrl ?? r.url, depth: r.depth, referrer: r.referrer })));
    for (let lease = await store.next(); lease; lease = await store.next()) await store.complete(lease, byUrl.get(lease.entry.url)!, []);
  } finally {
    await store.close();
  }
}

/** Path (and query) of a URL, or the string itself when it is not one. */
export function pathOf(url: string): string {
  try {
    const x = new URL(url);
    return `${x.pathname}${x.search}`;
  } catch {
    return url;
  }
}

/** A finding as `rule page-path → url-path`, for exact list assertions. */
export function identity(f: Finding): string {
  return `${f.rule} ${f.page === null ? '(none)' : pathOf(f.page)} → ${pathOf(f.url)}`;
}

/** The URL-level part of a diff (everything but sides, thresholds and findings). */
export function urlChanges(d: CrawlDiff): Record<string, unknown> {
  const { pages, statusChanges, titleChanges, redirectChanges, soft404s, lostLinks, timingChanges } = d;
  return { pages, statusChanges, titleChanges, redirectChanges, soft404s, lostLinks, timingChanges };
}
