import type { Browser } from 'playwright';
import { Crawler } from '../../src/crawl/crawler.js';
import type { CrawlOptions } from '../../src/crawl/options.js';
import type { PageRecord } from '../../src/model/record.js';

/**
 * Crawl `seedUrl` alone (`maxDepth: 0`, a 3 s settle cap, no soft-404 probe) in `browser`, with
 * `opts` on top: every record, and the seed's.
 */
export async function crawlSeed(browser: Browser, seedUrl: string, opts: Partial<CrawlOptions> = {}): Promise<{ seed: PageRecord; all: PageRecord[] }> {
  const crawler = new Crawler({ seeds: [seedUrl], maxDepth: 0, settleTimeoutMs: 3000, soft404: false, ...opts, browser });
  const all: PageRecord[] = [];
  for await (const r of crawler.records()) all.push(r);
  return { seed: all.find((r) => r.depth === 0)!, all };
}
