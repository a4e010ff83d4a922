/**
 * The workers of a shared crawl: each writes a heartbeat (the `workers` sorted set, member =
 * worker id, score = the Redis server's time), so `spacrawl status` counts the live ones; and
 * the status snapshot it prints.
 * @module
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { storedEndReason, type CrawlKey, type CrawlProgress } from '../policy.js';
import { luaScript, NOW_MS, type RedisConnection } from './connection.js';

/** A worker counts as live while its last heartbeat is younger than this (ms). */
export const WORKER_LIVE_MS = 10_000;

/** How often a worker writes its heartbeat (ms). */
const HEARTBEAT_MS = 2_000;

// KEYS[1] = the workers set. ARGV: worker id, 1 = alive / 0 = leaving. Entries older than an hour go.
const HEARTBEAT = luaScript(`${NOW_MS}
local now = now_ms()
if ARGV[2] == '1' then redis.call('ZADD', KEYS[1], now, ARGV[1]) else redis.call('ZREM', KEYS[1], ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 3600000)
return 1
`);

/** One worker's entry in the crawl's worker registry. */
export class WorkerHeartbeat {
  /** This worker's id in `status` (`host:pid:random`). */
  readonly workerId = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly conn: RedisConnection) {}

  /**
   * Write the first heartbeat, then one every 2 s (failures of those are ignored: a worker
   * whose Redis is gone finds out through its frontier calls).
   * @throws RedisStoreError when the first one fails
   */
  async start(): Promise<void> {
    await this.beat(true);
    this.timer = setInterval(() => void this.beat(true).catch(() => {}), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Stop, and leave the registry (best effort, 1 s at most). Never throws. */
  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    if (this.conn.ready) {
      await Promise.race([this.beat(false).catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
    }
  }

  private async beat(alive: boolean): Promise<void> {
    await this.conn.eval(HEARTBEAT, [this.conn.key('workers')], [this.workerId, alive ? '1' : '0']);
  }
}

/** A snapshot of a shared crawl, for `spacrawl status` (and the time and end reason `export` reports). */
export interface CrawlStatus extends CrawlProgress {
  crawlId: string;
  /** Distinct URLs claimed so far (what `--max-pages` counts). */
  claimed: number;
  /** Pages completed per second over the last minute. */
  pagesPerSecond: number;
  /** Workers whose heartbeat is younger than {@link WORKER_LIVE_MS}; `running` when there is one. */
  workers: number;
  /** Records stored. */
  records: number;
  /** The stored crawl key (seeds, scope …). */
  crawlKey: CrawlKey;
}

/**
 * The status of a crawl from the figures of the frontier's `counts` script: queued, in flight,
 * done, failed, skipped, marked done, completions in the last minute, live workers, claimed,
 * records, first start, crawl time, last clean end, start of the running period (ms on Redis's
 * clock, -1 for none), Redis's time now; and the end reason the last worker kept.
 */
export function crawlStatus(figures: readonly number[], crawlId: string, crawlKey: CrawlKey, storedReason: string | null): CrawlStatus {
  const s = figures;
  const [started, elapsed, ended, active] = [s[10]!, s[11]!, s[12]!, s[13]!];
  const running = s[7]! > 0;
  // A last run whose workers were all killed kept no end: the reason and time kept are older.
  const clean = ended >= 0 && !(active >= 0 && ended < active);
  const seeds = crawlKey.seeds;
  return {
    crawlId,
    queued: s[0]!,
    inFlight: s[1]!,
    done: s[2]!,
    failed: s[3]!,
    skipped: s[4]!,
    pagesPerSecond: Math.round((s[6]! / 60) * 100) / 100,
    workers: s[7]!,
    claimed: s[8]!,
    records: s[9]!,
    startedAt: started >= 0 ? new Date(started).toISOString() : null,
    endedAt: !running && clean ? new Date(ended).toISOString() : null,
    elapsedMs: elapsed,
    running,
    endReason: running ? null : storedEndReason(clean ? storedReason : null, s[0]! + s[1]!),
    seeds: Array.isArray(seeds) ? seeds : [],
    crawlKey,
  };
}
