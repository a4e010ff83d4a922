import { OptionsError } from '../crawl/options-error.js';
import { redisTargetProblem } from '../store/redis/target.js';

/**
 * Check `--redis` and `--crawl-id` values (in the flags' words; the store checks the same with
 * `redisTargetProblem`).
 * @throws OptionsError for a URL that is not `redis://` or `rediss://`, or a bad crawl id
 */
export function checkRedisTarget(url: string, crawlId: string): void {
  const problem = redisTargetProblem(url, crawlId);
  if (problem === 'url') throw new OptionsError(`--redis must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  if (problem === 'crawl-id') throw new OptionsError(`--crawl-id must be 1 to 100 letters, digits, dots, underscores or dashes, got ${JSON.stringify(crawlId)}`);
}
