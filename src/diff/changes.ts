/**
 * What changed about the URLs of two indexed crawls: pages added and removed, statuses, titles,
 * redirect targets, soft 404s, lost links, timings and web vitals. Pure functions over two
 * {@link SideIndex}es.
 * @module
 */
import type { SideIndex, UrlState } from './side.js';
import type {
  DiffThresholds,
  LostLinks,
  PagePresence,
  RedirectChange,
  Soft404Change,
  StatusChange,
  StatusValue,
  TimingChange,
  TitleChange,
} from './types.js';

/** The URL-level part of a diff (everything but the findings). */
export interface UrlChanges {
  pages: { added: PagePresence[]; removed: PagePresence[] };
  statusChanges: StatusChange[];
  titleChanges: TitleChange[];
  redirectChanges: RedirectChange[];
  soft404s: Soft404Change[];
  lostLinks: LostLinks[];
  timingChanges: TimingChange[];
}

/** Smallest change of `vitals.cls` that counts (unitless): web.dev's "good" CLS bound, 0.1. */
export const CLS_THRESHOLD = 0.1;

/** `true` when the URL was requested and answered (or failed): a page, a redirect, a non-HTML file. */
function answered(s: UrlState): boolean {
  return s.kind !== 'skipped';
}

/** `true` for a page the browser rendered normally: no error, status below 400, not a soft 404. */
function rendered(s: UrlState): boolean {
  return s.kind === 'page' && s.error === null && s.status !== null && s.status < 400 && !s.soft404;
}

function statusValue(s: UrlState): StatusValue {
  return { status: s.status, error: s.error, redirect: s.kind === 'redirect' };
}

function presence(url: string, s: UrlState, other: UrlState | undefined): PagePresence {
  return { url, status: s.status, error: s.error, title: s.title, otherSkipped: other?.skipped ?? null };
}

/**
 * `true` when a change from `a` to `b` counts: both thresholds are passed. For ms values, the
 * change must reach `t.ms` and `t.ratio` of the old value; for `vitals.cls` (unitless),
 * {@link CLS_THRESHOLD} and the ratio.
 */
export function beyondThreshold(metric: string, a: number, b: number, t: DiffThresholds): boolean {
  const delta = Math.abs(b - a);
  const floor = metric.toLowerCase() === 'vitals.cls' ? CLS_THRESHOLD : t.ms;
  return delta > 0 && delta >= floor && delta >= t.ratio * Math.abs(a);
}

/** Timing and vitals changes of one URL present as a page in both crawls. */
function timingChanges(url: string, a: UrlState, b: UrlState, t: DiffThresholds, out: TimingChange[]): void {
  const pairs: [string, number | null, number | null][] = [
    ['total', a.total, b.total],
    ['serverWaitMs', a.serverWaitMs, b.serverWaitMs],
  ];
  if (a.vitals && b.vitals) {
    for (const [name, v] of Object.entries(a.vitals)) pairs.push([`vitals.${name}`, v, b.vitals[name] ?? null]);
  }
  for (const [metric, x, y] of pairs) {
    if (x === null || y === null || !beyondThreshold(metric, x, y, t)) continue;
    out.push({ url, metric, old: x, new: y, delta: y - x });
  }
}

const byUrl = <T extends { url: string }>(a: T, b: T): number => a.url.localeCompare(b.url);

/**
 * Compare two indexed crawls URL by URL.
 * - **added / removed**: a page on one side with no page, and no redirect record, under that
 *   URL on the other (a page that became a redirect is a status change and a redirect change,
 *   not a removed page);
 * - **status**: URLs answered on both sides (page, redirect record, non-HTML file) whose status
 *   or error code differs; a redirect record counts with its own status (`200 → 301`);
 * - **title**: pages rendered normally on both sides whose title differs;
 * - **redirect target**: URLs answered on both sides whose `finalUrl` through a redirect differs
 *   (including starting or stopping to redirect);
 * - **soft 404**: pages that were not soft 404s and are now;
 * - **lost links**: pages rendered normally on both sides, links in the old `links` and not in
 *   the new (a page that now fails lost them all: its status change says so). A link the old
 *   page found only by clicking, that some page of the new crawl links to, moved and is not lost:
 *   click memory clicks a site-wide control on whichever pages come first, so two crawls of the
 *   same site put those links on different pages;
 * - **timings**: pages on both sides, `timings.total`, `timings.serverWaitMs` and each web
 *   vital both have, changed beyond both thresholds ({@link beyondThreshold}).
 * Every list is sorted by URL, except timings (largest slow-down first).
 */
export function compareUrls(older: SideIndex, newer: SideIndex, t: DiffThresholds): UrlChanges {
  const out: UrlChanges = {
    pages: { added: [], removed: [] },
    statusChanges: [],
    titleChanges: [],
    redirectChanges: [],
    soft404s: [],
    lostLinks: [],
    timingChanges: [],
  };
  let linkedNow: Set<string> | null = null;
  /** Every URL some page of the newer crawl links to (built when first needed). */
  const linkedInNewer = (): Set<string> => {
    if (linkedNow) return linkedNow;
    linkedNow = new Set();
    for (const s of newer.urls.values()) for (const l of s.links) linkedNow.add(l);
    return linkedNow;
  };
  const pageOrRedirect = (s: UrlState | undefined): boolean => s !== undefined && (s.kind === 'page' || s.kind === 'redirect');
  for (const [url, a] of older.urls) {
    const b = newer.urls.get(url);
    if (a.kind === 'page' && !pageOrRedirect(b)) out.pages.removed.push(presence(url, a, b));
    if (!b) continue;
    if (answered(a) && answered(b)) {
      if (a.status !== b.status || a.error !== b.error || (a.kind === 'redirect') !== (b.kind === 'redirect')) {
        out.statusChanges.push({ url, old: statusValue(a), new: statusValue(b) });
      }
      if (a.redirectTo !== b.redirectTo) out.redirectChanges.push({ url, old: a.redirectTo, new: b.redirectTo });
    }
    if (a.kind === 'page' && b.kind === 'page') {
      if (!a.soft404 && b.soft404) out.soft404s.push({ url, reason: b.soft404Reason });
      if (rendered(a) && rendered(b)) {
        if (a.title !== b.title) out.titleChanges.push({ url, old: a.title, new: b.title });
        const now = new Set(b.links);
        const lost = a.links.filter((l) => !now.has(l) && !(a.clickOnly?.has(l) && linkedInNewer().has(l)));
        if (lost.length) out.lostLinks.push({ url, links: lost });
      }
      timingChanges(url, a, b, t, out.timingChanges);
    }
  }
  for (const [url, b] of newer.urls) {
    const a = older.urls.get(url);
    if (b.kind === 'page' && !pageOrRedirect(a)) out.pages.added.push(presence(url, b, a));
  }
  out.pages.added.sort(byUrl);
  out.pages.removed.sort(byUrl);
  out.statusChanges.sort(byUrl);
  out.titleChanges.sort(byUrl);
  out.redirectChanges.sort(byUrl);
  out.soft404s.sort(byUrl);
  out.lostLinks.sort(byUrl);
  out.timingChanges.sort((x, y) => y.delta - x.delta || x.url.localeCompare(y.url) || x.metric.localeCompare(y.metric));
  return out;
}
