/**
 * The check of a Redis URL and crawl id before connecting, in a module that does not load the
 * Redis client, so that the CLI's usage checks can run it cheaply. `connection.ts` re-exports it.
 * @module
 */

/** A crawl id: letters, digits, `.`, `_`, `-`; 1 to 100 characters. */
const CRAWL_ID = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * What is wrong with a Redis URL and crawl id, before connecting: `url` for a URL that is not
 * `redis://` or `rediss://`, `crawl-id` for a crawl id that is not 1 to 100 letters, digits,
 * dots, underscores or dashes; `null` when both are fine.
 */
export function redisTargetProblem(url: string, crawlId: string): 'url' | 'crawl-id' | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'url';
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') return 'url';
  return CRAWL_ID.test(crawlId) ? null : 'crawl-id';
}
