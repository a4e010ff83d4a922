/**
 * Links offered while discovery goes on. A page's record, with every link it found, goes to the
 * frontier when its visit ends; on a page that clicks (a sidebar of collapsed groups, 30 clicks
 * at ~100 ms each) that is seconds after its anchors were read, and at the start of a crawl the
 * other tabs wait for them with nothing to do. So the links the page shows without discovery are
 * offered to the frontier as soon as discovery starts, and each click's links as soon as it found
 * them, when nothing can still decide against following them; the record, when the visit ends,
 * lists them all (the frontier knows them already).
 * @module
 */
import type { FoundLink } from '../browser/discovery.js';
import type { VisitResult } from '../browser/visit.js';
import type { FrontierEntry } from '../store/frontier.js';
import type { LinkPipeline } from './link-pipeline.js';
import type { DocumentClaims } from './redirects.js';
import { robotsRulesFor } from './robots-directives.js';

/** What {@link offerEarlyLinks} needs of the crawl. */
export interface EarlyLinkParts {
  pipeline: LinkPipeline;
  claims: DocumentClaims;
  /** The crawler's robots product token (`--robots-agent`). */
  robotsAgent: string;
  /** `--follow-nofollow`: links of a `nofollow` page are followed too. */
  followNofollow: boolean;
  /** Told once the frontier took links it did not know (the crawl's idle tabs look again). */
  offered: () => void;
}

/**
 * Offer `links` of `entry`'s page (see `VisitOptions.linksFound`; `sofar` is the visit's result
 * as read so far) to the frontier at `entry.depth + 1`, unless the page may yet end without its links followed: an
 * error, a status other than 2xx (a retry, a broken page), not HTML, a navigation stopped, a
 * page read under another URL than its own (it may become a redirect record), or robots rules
 * that say `nofollow` (`<meta name="robots">`, `X-Robots-Tag`; RFC 9309 does not cover these,
 * see robots-directives.ts) without `--follow-nofollow`. Does not wait: a failure of the
 * frontier shows again, and stops the crawl, when the page's record is stored.
 * @returns whether the links were offered
 */
export function offerEarlyLinks(parts: EarlyLinkParts, entry: FrontierEntry, sofar: Readonly<VisitResult>, links: readonly FoundLink[]): boolean {
  if (sofar.error || sofar.nonHtml || sofar.stopped || sofar.status === null || sofar.status < 200 || sofar.status > 299) return false;
  if (sofar.redirectChain.length > 0 || !sofar.finalUrl || parts.claims.isElsewhere(entry, sofar.finalUrl)) return false;
  const robots = robotsRulesFor(parts.robotsAgent, { headers: sofar.robotsHeaders, metas: sofar.robotsMeta });
  if (robots.nofollow && !parts.followNofollow) return false;
  const { candidates } = parts.pipeline.classify(links);
  void parts.pipeline.offer(candidates, entry.depth + 1, entry.url).then(
    (fresh) => {
      // New URLs to visit, or queued ones brought nearer.
      if (fresh.some((e) => !e.skip && !e.held)) parts.offered();
    },
    () => {},
  );
  return true;
}
