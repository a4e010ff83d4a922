import type { VisitResult } from '../browser/visit.js';
import { blankRecord, observationOf, type PageRecord } from '../model/record.js';
import type { FrontierEntry } from '../store/frontier.js';
import { robotsRulesFor } from './robots-directives.js';

/**
 * The record of a visited URL, from what the visit saw: the observed fields as they are (see
 * `PageObservation`), plus the few the record computes from them. Links, `externalLinks` and a
 * `skipped: "scope"` for an off-site final URL are added by the crawler.
 * @param entry - the frontier entry that was visited
 * @param res - what the (last) visit saw
 * @param attempts - navigations made for this URL, retries included
 * @param screenshotName - file name inside the screenshots folder, when one was written
 * @param robotsAgent - the crawler's robots product token (`--robots-agent`): `noindex` and
 *   `nofollow` come from the general robots rules and those addressed to it
 */
export function recordFromVisit(entry: FrontierEntry, res: VisitResult, attempts: number, screenshotName: string | null, robotsAgent = 'spacrawl'): PageRecord {
  const robots = robotsRulesFor(robotsAgent, { headers: res.robotsHeaders, metas: res.robotsMeta });
  return {
    ...blankRecord(entry.url, entry.requestedUrl, entry.depth, entry.referrer),
    ...observationOf(res),
    // A page without an answer, or not HTML, has no title.
    title: res.nonHtml || res.status === null ? null : res.title,
    attempts,
    screenshot: res.screenshot ? screenshotName : null,
    noindex: robots.noindex,
    nofollow: robots.nofollow,
    // A non-HTML target is not a page; a broken one still is (it is a broken link).
    skipped: res.nonHtml && res.status !== null && res.status < 400 ? 'non-html' : null,
  };
}
