import { redisServerPath } from '../../fixtures/redis-server.js';
import type { Frontier, FrontierEntry } from '../../src/store/frontier.js';
import { blankRecord, type PageRecord } from '../../src/model/record.js';

/** A frontier entry for `http://site.test{p}`. */
export function entry(p: string, depth: number, referrer: string | null = null, extra: Partial<FrontierEntry> = {}): FrontierEntry {
  const url = `http://site.test${p}`;
  return { url, requestedUrl: url, depth, referrer, ...extra };
}

/** The record of a visit of `e` that answered `status`. */
export function pageRecord(e: FrontierEntry, status = 200): PageRecord {
  const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
  r.status = status;
  r.finalUrl = e.requestedUrl;
  r.attempts = 1;
  r.title = `title of ${e.url}`;
  return r;
}

export async function allRecords(f: Frontier): Promise<PageRecord[]> {
  const out: PageRecord[] = [];
  for await (const r of f.records()) out.push(r);
  return out;
}

/** Lease and complete everything claimable; the paths in claim order. */
export async function drainLeases(f: Frontier): Promise<string[]> {
  const urls: string[] = [];
  for (let l = await f.next(); l; l = await f.next()) {
    urls.push(new URL(l.entry.url).pathname);
    await f.complete(l, pageRecord(l.entry), []);
  }
  return urls;
}

/** Wait until `cond` holds (polled every 20 ms), at most `ms`. */
export async function until(cond: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * `true` when the Redis store tests of `file` are to be skipped: redis-server is not installed
 * and neither `CI` nor `SPACRAWL_REQUIRE_REDIS` is set (then a missing server is a failure:
 * starting it throws). Says so on stderr.
 */
export function skipRedis(file: string): boolean {
  const skip = redisServerPath() === null && !process.env.CI && !process.env.SPACRAWL_REQUIRE_REDIS;
  if (skip) process.stderr.write(`\n*** ${file}: Redis tests SKIPPED: redis-server is not installed (apt-get install redis-server) ***\n\n`);
  return skip;
}
