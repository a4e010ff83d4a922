import type { VisitResult } from '../browser/visit.js';
import { blankRecord, type PageRecord } from '../model/record.js';
import type { FrontierEntry } from '../store/frontier.js';
import { robotsRulesFor } from './robots-directives.js';

/**
 * The record of a visited URL, from what the visit saw. Links, `externalLinks` and a
 * `skipped: "scope"` for an off-site final URL are added by the crawler.
 * @param entry - the frontier entry that was visited
 * @param res - what the (last) visit saw
 * @param attempts - navigations made for this URL, retries included
 * @param screenshotName - file name inside the screenshots folder, when one was written
 * @param robotsAgent - the crawler's robots product token (`--robots-agent`): `noindex` and
 *   `nofollow` come from the general robots rules and those addressed to it
 */
export function recordFromVisit(entry: FrontierEntry, res: VisitResult, attempts: number, screenshotName: string | null, robotsAgent = 'spacrawl'): PageRecord {
  const r = blankRecord(entry.url, entry.requestedUrl, entry.depth, entry.referrer);
  r.attempts = attempts;
  r.finalUrl = res.finalUrl;
  r.redirectChain = res.redirectChain;
  r.status = res.status;
  r.contentType = res.contentType;
  r.title = res.nonHtml || res.status === null ? null : res.title;
  r.settled = res.settled;
  r.timings = res.timings;
  r.consoleErrors = res.consoleErrors;
  r.pageErrors = res.pageErrors;
  r.failedRequests = res.failedRequests;
  r.dialogs = res.dialogs;
  r.downloads = res.downloads;
  r.frames = res.frames;
  r.meta = res.meta;
  r.mixedContent = res.mixedContent;
  r.anchors = res.anchors;
  r.blockedBy = res.blockedBy;
  r.screenshot = res.screenshot ? screenshotName : null;
  r.error = res.error;
  const robots = robotsRulesFor(robotsAgent, { headers: res.robotsHeaders, metas: res.robotsMeta });
  r.noindex = robots.noindex;
  r.nofollow = robots.nofollow;
  // A non-HTML target is not a page; a broken one still is (it is a broken link).
  if (res.nonHtml && res.status !== null && res.status < 400) r.skipped = 'non-html';
  return r;
}
