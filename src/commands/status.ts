import path from 'node:path';
import { SpacrawlCommand } from '../cli/base-command.js';
import { classifyError } from '../cli/errors.js';
import { flagsOf, variant } from '../cli/flags.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { toLibraryUnit } from '../crawl/option-spec.js';
import type { CrawlStatus } from '../store/redis/frontier.js';
import type { StateFileStatus } from '../store/sqlite/reader.js';
import type { CrawlProgress } from '../store/policy.js';
import { formatElapsed } from '../report/formats/shared.js';

/**
 * A duration for people, in the reports' words from a second on (`42.1 s`, `12 min 05 s`,
 * `3 h 02 min`; see `formatElapsed`), so stderr and summary.md never disagree on a crawl's
 * time; below a second in seconds too (`0.4 s`).
 * @param ms - the duration (ms)
 */
export function humanDuration(ms: number): string {
  return ms < 1000 ? `${(ms / 1000).toFixed(1)} s` : formatElapsed(ms);
}

/**
 * The crawl time of an ended crawl: the runs that recorded their end. A run that was killed
 * (`kill -9`) recorded none, so its time is not known: after an interrupted end the text says so,
 * so that "0.0 s" does not read as a crawl that did nothing.
 */
export function crawlTime(p: CrawlProgress): string {
  const t = `${humanDuration(p.elapsedMs)} of crawling`;
  return p.endReason === 'interrupted' ? `${t} (a run that was killed counts no time)` : t;
}

/** The lines of a stored crawl's progress shared by `status --redis` and `status --state`. */
function progressLines(p: CrawlProgress, skippedBy?: Record<string, number>): string[] {
  const reasons = skippedBy && Object.keys(skippedBy).length ? ` (${Object.entries(skippedBy).sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
  const when = p.running
    ? `running; started ${p.startedAt ?? 'at an unknown time'}; ${humanDuration(p.elapsedMs)} of crawling so far`
    : `ended${p.endReason ? ` (${p.endReason})` : ''}${p.endedAt ? ` at ${p.endedAt}` : ''}; started ${p.startedAt ?? 'at an unknown time'}; ${crawlTime(p)}`;
  return [
    `  ${when}`,
    `  pages: ${p.done} done, ${p.failed} failed; ${p.skipped} skipped${reasons}`,
    `  frontier: ${p.queued} queued, ${p.inFlight} in flight`,
    `  seeds: ${p.seeds.length ? p.seeds.join(' ') : '(none stored)'}`,
  ];
}

/** What `status --redis` prints: a one-line summary, then the shared lines. */
export function statusLine(s: CrawlStatus): string {
  return (
    `crawl ${s.crawlId}: ${s.queued} queued, ${s.inFlight} in flight, ${s.done} done, ${s.failed} failed, ${s.skipped} skipped` +
    ` (${s.claimed} claimed); ${s.pagesPerSecond} pages/s over the last minute; ${s.workers} live worker${s.workers === 1 ? '' : 's'}`
  );
}

/** What `status --redis` prints. */
export function redisStatusText(s: CrawlStatus): string {
  return [statusLine(s), ...progressLines(s)].join('\n');
}

/** What `status --state` prints. */
export function stateStatusText(s: StateFileStatus): string {
  const head =
    `state file ${s.file}: ${s.queued} queued, ${s.inFlight} in flight, ${s.done} done, ${s.failed} failed, ${s.skipped} skipped; ` +
    `${s.visited} pages visited; ${s.running ? 'a crawl is running on it' : 'no crawl is running on it'}`;
  return [head, ...progressLines(s, s.skippedBy)].join('\n');
}

/** `spacrawl status --redis URL --crawl-id NAME` or `spacrawl status --state FILE`: progress of a stored crawl. */
export default class Status extends SpacrawlCommand {
  static override summary = 'Show the progress of a shared (--redis) or durable (--state) crawl';
  static override description =
    'Reads the frontier of a crawl, also while it runs: URLs queued, in flight, done, failed and skipped (by reason for a state file); when it started, how long it has crawled, and, once it ended, why. For --redis also pages per second over the last minute and workers alive (a heartbeat within the last 10 s). A state file is opened read-only, never changed, and read while a crawl in another process writes it. Exit codes: 0 shown; 2 bad usage, no such crawl, or a file that is missing, not a spacrawl state file or newer; 3 Redis cannot be reached.';
  static override examples = [
    '<%= config.bin %> status --redis redis://127.0.0.1:6379 --crawl-id docs',
    '<%= config.bin %> status --redis redis://127.0.0.1:6379 --crawl-id docs --json',
    '<%= config.bin %> status --state crawl.db',
  ];
  static override enableJsonFlag = true;
  static override flags = flagsOf(
    variant(X.state, { help: 'the SQLite state file of a crawl (read-only, also while it runs)', exactlyOne: ['state', 'redis'] }),
    variant(X.redis, { help: 'the Redis of a shared crawl (with --crawl-id)', dependsOn: ['crawl-id'] }),
    variant(X.crawlId, { help: 'with --redis: the name of the shared crawl' }),
    variant(X.redisRetryMs, { help: 'with --redis: seconds to keep trying to reach Redis before exiting 3' }),
  );

  async run(): Promise<CrawlStatus | StateFileStatus> {
    const { flags } = await this.parse(Status);
    try {
      // The stores load only now, and only the one asked for: `--help` and a bad flag answer without them.
      if (flags.state !== undefined) {
        const { readStateFile } = await import('../store/sqlite/reader.js');
        const s = readStateFile(path.resolve(flags.state));
        if (!this.jsonEnabled()) this.io.stdout.write(`${stateStatusText(s)}\n`);
        return s;
      }
      const { checkRedisTarget } = await import('../cli/redis-target.js');
      checkRedisTarget(flags.redis!, flags['crawl-id']!);
      const { RedisFrontier } = await import('../store/redis/frontier.js');
      const store = await RedisFrontier.open(flags.redis!, {
        crawlId: flags['crawl-id']!,
        crawlKey: null,
        heartbeat: false,
        retryMs: toLibraryUnit(X.redisRetryMs, flags['redis-timeout']),
      });
      try {
        const s = await store.status();
        if (!this.jsonEnabled()) this.io.stdout.write(`${redisStatusText(s)}\n`);
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
