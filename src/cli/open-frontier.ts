/**
 * The crawl command's composition root: which frontier a crawl runs on (memory, a SQLite state
 * file, or a Redis crawl shared by workers), a worker joining a shared crawl without seeds, and
 * a resumed durable crawl going on where its budget stopped.
 * @module
 */
import { applyCrawlKey, crawlKeyOf } from '../crawl/crawl-key.js';
import { DEFAULT_MAX_PAGES, OptionsError, type CrawlOptions } from '../crawl/options.js';
import type { SqliteFrontier } from '../store/sqlite/frontier.js';
import type { PageRecord } from '../model/record.js';

/** Where the frontier lives: the crawl command's store flags, in the library's units. */
export interface FrontierChoice {
  /** `--state`: absolute path of the SQLite state file, or `null`. */
  state: string | null;
  /** `--redis` URL, or `null` (checked by `checkSharedFlags` together with `crawlId`). */
  redis: string | null;
  /** `--crawl-id` (with `redis`). */
  crawlId: string | null;
  /** `--force`: resume or join even when the stored crawl's seeds, scope or URL rules differ. */
  force: boolean;
  /** `--lease-ttl` (ms). */
  leaseTtlMs: number;
  /** `--redis-timeout`: how long to keep reconnecting to Redis (ms). */
  redisRetryMs: number;
}

/** A crawl's options with its frontier, and what a resumed durable crawl brings along. */
export interface OpenedFrontier {
  /**
   * The options with `frontier` set (none: a new in-memory frontier); for a worker that joins a
   * shared crawl without seeds, with the stored crawl's seeds, scope and URL rules.
   */
  options: CrawlOptions;
  /** A durable (`--state`) crawl: records of its earlier runs. */
  earlier?: AsyncIterable<PageRecord>;
  /** A durable or shared crawl resumed with a larger budget: URLs queued again (their old records are replaced). */
  reopened: string[];
  /**
   * A durable (`--state`) crawl: whether the state file still waits to decide a URL (its record
   * in `--out` is stale; see `CrawlOutput.undecided`).
   */
  undecided?: (url: string) => boolean;
  /** The records go on from earlier runs (`--state`): append to `--out`. */
  durable: boolean;
  /** The frontier is shared with other workers (`--redis`). */
  shared: boolean;
  /** In a shared crawl (`--redis`): its name and this worker's id, e.g. for the metrics' labels. */
  worker?: { crawlId: string; workerId: string };
}

/**
 * Open the frontier a crawl runs on. Call it after every usage check, so that a usage error
 * leaves a state file or a shared crawl untouched.
 * @param log - told one line when a worker joins a shared crawl without seeds
 * @throws OptionsError for a state file or shared crawl of another crawl (without `force`), or a
 * shared crawl that does not exist and no seeds; `StateFileError`/`RedisStoreError` for a store
 * that cannot be used
 */
export async function openFrontier(options: CrawlOptions, choice: FrontierChoice, log: (line: string) => void): Promise<OpenedFrontier> {
  let opts: CrawlOptions = { ...options };
  let durable: SqliteFrontier | null = null;
  let earlier: AsyncIterable<PageRecord> | undefined;
  let worker: OpenedFrontier['worker'];
  // Each store's module (and its driver: better-sqlite3, ioredis) is loaded only for a crawl that uses it.
  if (choice.state) {
    const { SqliteFrontier } = await import('../store/sqlite/frontier.js');
    durable = SqliteFrontier.open(choice.state, { crawlKey: crawlKeyOf(opts), force: choice.force });
    opts.frontier = durable;
    earlier = durable.records();
  }
  if (choice.redis) {
    const { NoSuchCrawlError, RedisFrontier } = await import('../store/redis/frontier.js');
    const store = await RedisFrontier.open(choice.redis, {
      crawlId: choice.crawlId ?? '',
      crawlKey: opts.seeds.length ? crawlKeyOf(opts) : null,
      force: choice.force,
      leaseTtlMs: choice.leaseTtlMs,
      retryMs: choice.redisRetryMs,
      maxPages: opts.maxPages ?? DEFAULT_MAX_PAGES,
    }).catch((err: unknown) => {
      if (err instanceof NoSuchCrawlError) throw new OptionsError(`${err.message}: give seed URLs to start it`);
      throw err;
    });
    if (!opts.seeds.length) {
      opts = applyCrawlKey(opts, store.crawlKey);
      log(`joining crawl ${store.crawlId}: ${opts.seeds.join(' ')}`);
    }
    opts.frontier = store;
    worker = { crawlId: store.crawlId, workerId: store.workerId };
  }
  // A resume with a larger --max-pages or --max-depth goes on where the budget stopped, for a
  // state file and a shared crawl alike (runCrawl takes the reopened URLs' old records out of --out).
  const budget = { maxPages: opts.maxPages ?? DEFAULT_MAX_PAGES, maxDepth: opts.maxDepth ?? Infinity };
  const reopened = (await opts.frontier?.reopenBudget?.(budget)) ?? [];
  const undecided = durable ? durable.undecided.bind(durable) : undefined;
  return { options: opts, ...(earlier ? { earlier } : {}), ...(undecided ? { undecided } : {}), reopened, durable: durable !== null, shared: choice.redis !== null, ...(worker ? { worker } : {}) };
}
