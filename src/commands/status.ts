import { SpacrawlCommand } from '../cli/base-command.js';
import { classifyError } from '../cli/errors.js';
import { flagsOf, variant } from '../cli/flags.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { toLibraryUnit } from '../crawl/option-spec.js';
import { RedisFrontier, type CrawlStatus } from '../store/redis/frontier.js';
import { checkRedisTarget } from '../cli/redis-target.js';

/** One line describing a shared crawl's progress. */
export function statusLine(s: CrawlStatus): string {
  return (
    `crawl ${s.crawlId}: ${s.queued} queued, ${s.inFlight} in flight, ${s.done} done, ${s.failed} failed, ${s.skipped} skipped` +
    ` (${s.claimed} claimed); ${s.pagesPerSecond} pages/s over the last minute; ${s.workers} live worker${s.workers === 1 ? '' : 's'}`
  );
}

/** `spacrawl status --redis URL --crawl-id NAME`: progress of a shared crawl. */
export default class Status extends SpacrawlCommand {
  static override summary = 'Show the progress of a shared (--redis) crawl';
  static override description =
    'Reads the shared frontier of a crawl run by several workers: URLs queued, in flight, done, failed and skipped; pages per second over the last minute; workers alive (a heartbeat within the last 10 s). Exit codes: 0 shown; 2 bad usage or no such crawl; 3 Redis cannot be reached.';
  static override examples = [
    '<%= config.bin %> status --redis redis://127.0.0.1:6379 --crawl-id docs',
    '<%= config.bin %> status --redis redis://127.0.0.1:6379 --crawl-id docs --json',
  ];
  static override enableJsonFlag = true;
  static override flags = flagsOf(
    variant(X.redis, { help: 'the Redis of the crawl (redis://[:password@]host:port[/db])', required: true }),
    variant(X.crawlId, { help: 'the name of the shared crawl', required: true }),
    variant(X.redisRetryMs, { help: 'seconds to keep trying to reach Redis before exiting 3' }),
  );

  async run(): Promise<CrawlStatus> {
    const { flags } = await this.parse(Status);
    try {
      checkRedisTarget(flags.redis, flags['crawl-id']);
      const store = await RedisFrontier.open(flags.redis, {
        crawlId: flags['crawl-id'],
        crawlKey: null,
        heartbeat: false,
        retryMs: toLibraryUnit(X.redisRetryMs, flags['redis-timeout']),
      });
      try {
        const s = await store.status();
        if (!this.jsonEnabled()) this.io.stdout.write(`${statusLine(s)}\n`);
        return s;
      } finally {
        await store.close();
      }
    } catch (err) {
      const { message, exit } = classifyError(err);
      this.fail(message, exit);
    }
  }
}
