import type { HttpClient } from '../net/http-client.js';
import { RobotsCache, type RobotsStore } from '../url/robots.js';
import { Politeness } from './politeness.js';

/** Robots.txt `Crawl-delay` values above this are capped (ms). */
export const MAX_CRAWL_DELAY_MS = 30_000;

/** What {@link robotsForCrawl} needs. */
export interface CrawlRobotsOptions {
  /** The crawl's client for requests outside the browser. */
  http: HttpClient;
  /** The robots.txt product token (`--robots-agent`). */
  agent: string;
  /** The cache shared with the other workers of a Redis crawl, if any. */
  shared: RobotsStore | null;
  /** Where each origin's `Crawl-delay` goes. */
  politeness: Politeness;
  /** A note for the summary (an unusable robots.txt, a capped `Crawl-delay`). */
  remark: (note: string) => void;
}

/**
 * The crawl's robots.txt cache: an origin whose robots.txt cannot be used is noted (and treated
 * as disallowed, RFC 9309 §2.3.1.4; one whose robots.txt redirects lead to no file, as having
 * none, §2.3.1.2); its `Crawl-delay` (a de-facto extension, not in RFC 9309)
 * spaces the navigations to its host, capped at {@link MAX_CRAWL_DELAY_MS}.
 */
export function robotsForCrawl(o: CrawlRobotsOptions): RobotsCache {
  return new RobotsCache({
    request: o.http,
    agent: o.agent,
    ...(o.shared ? { shared: o.shared } : {}),
    onProblem: (origin, outcome) =>
      o.remark(
        outcome.unanswered
          ? `${origin} could not be reached, not even for robots.txt (${outcome.detail}): nothing on it is requested`
          : outcome.kind === 'allow-all'
            ? `robots.txt of ${origin} not found (${outcome.detail}): taken as none, everything allowed (RFC 9309 §2.3.1.2)`
            : `robots.txt of ${origin} unusable (${outcome.detail}): treating the whole origin as disallowed`,
      ),
    onOutcome: (origin, outcome) => {
      if (outcome.crawlDelayMs === null) return;
      let ms = outcome.crawlDelayMs;
      if (ms > MAX_CRAWL_DELAY_MS) {
        o.remark(`robots.txt of ${origin} asks for Crawl-delay ${ms / 1000} s; capped at ${MAX_CRAWL_DELAY_MS / 1000} s`);
        ms = MAX_CRAWL_DELAY_MS;
      }
      o.politeness.setCrawlDelay(Politeness.key(origin), ms);
    },
  });
}
