/**
 * The shape of a crawl diff: what changed between two crawls of one site, as `diffCrawls()`
 * computes it and every diff format renders it. Plain data (JSON-serializable), no behaviour.
 * @module
 */
import type { SkipReason, Soft404Reason } from '../model/record.js';
import type { RuleId, Severity } from '../report/audit.js';

/** Version of the diff object's shape (the `json` report and `--json`); bumped on breaking changes. */
export const DIFF_SCHEMA_VERSION = 1;

/**
 * An optional check: one named by its flag (`a11y`, `vitals`, `check-external`,
 * `check-fragments`), or one every crawl makes today whose data records of older spacrawl
 * versions lack, named by that data (`server-html`: `serverHtml`; `meta`: `meta`; `spa`: `spa`;
 * `server-wait`: `timings.serverWaitMs`; `mixed-content`: `mixedContent`).
 */
export type CheckId = 'a11y' | 'vitals' | 'check-external' | 'check-fragments' | 'server-html' | 'meta' | 'spa' | 'server-wait' | 'mixed-content';

/** A check that ran in one crawl only: its findings there are neither new nor fixed. */
export interface UncomparedCheck {
  check: CheckId;
  /** The crawl it ran in. */
  ranIn: 'old' | 'new';
  /** That crawl's findings of the check (counted in `findings.notCompared`). */
  findings: number;
}

/** One crawl of the two, as the diff saw it. */
export interface DiffSide {
  /** Where its records were read: the path as given (a JSON Lines file, a state file, a report folder). */
  source: string;
  /** Records read (every URL the crawl decided about). */
  records: number;
  /** Pages among them (DESIGN.md "Counting": not skipped, not a redirect record). */
  pages: number;
  /** Seeds: canonical URLs of the records at depth 0. */
  seeds: string[];
}

/** A page present in one crawl only. */
export interface PagePresence {
  /** Canonical URL. */
  url: string;
  /** Its status in the crawl where it is a page (`null`: no response, see `error`). */
  status: number | null;
  /** Its error code there (`timeout`, `network` …), or `null`. */
  error: string | null;
  /** Its title there. */
  title: string | null;
  /**
   * In the other crawl: why the URL was not a page there (its skip reason: `robots`, `budget`,
   * `non-html` …), or `null` when the other crawl has no record of it at all.
   */
  otherSkipped: SkipReason | null;
}

/** What a URL answered in one crawl. */
export interface StatusValue {
  /** HTTP status; for a redirect record, the URL's own (the first hop's 3xx). `null` without a response. */
  status: number | null;
  /** Error code when there was no usable response, else `null`. */
  error: string | null;
  /** `true` when the record is a redirect record (the URL only forwards). */
  redirect: boolean;
}

/** A URL answered differently (200 → 404, 200 → 301, 200 → timeout). */
export interface StatusChange {
  url: string;
  old: StatusValue;
  new: StatusValue;
}

/** A page whose title changed (both crawls rendered it without an error, status below 400). */
export interface TitleChange {
  url: string;
  old: string | null;
  new: string | null;
}

/**
 * Where a URL forwards to changed: the `finalUrl` of a redirect record, or of a page reached
 * through a redirect chain. `null` on a side where the URL did not redirect.
 */
export interface RedirectChange {
  url: string;
  old: string | null;
  new: string | null;
}

/** A page that answered normally before and is a soft 404 now. */
export interface Soft404Change {
  url: string;
  /** Why it is judged a soft 404 now. */
  reason: Soft404Reason | null;
}

/** In-scope links a page had before and has no more (the page rendered in both crawls). */
export interface LostLinks {
  /** The page (canonical URL). */
  url: string;
  /** The canonical URLs it no longer links to, in the old page's order. */
  links: string[];
}

/** A timing of a page that changed beyond both thresholds. */
export interface TimingChange {
  url: string;
  /** `total` or `serverWaitMs` (from `timings`), or `vitals.NAME` for a web vital. */
  metric: string;
  old: number;
  new: number;
  /** `new - old`: positive is slower (or, for `vitals.cls`, more layout shift). */
  delta: number;
}

/**
 * One finding of the audit, as the diff matches it across crawls. Its identity is
 * `rule` + `page` + `url`, never the message text:
 * - page rules (`missing-title`, `js-error`, `slow-page` …): `url` and `page` are the page;
 *   several issues of one rule on one page are one finding (`count`);
 * - link rules (`broken-link`, `redirect-chain`, `insecure-link` …): `url` is the link target and
 *   `page` each page that links to it (one finding per referrer), `null` when no crawled page
 *   links to it (a seed, a sitemap URL).
 */
export interface Finding {
  rule: RuleId;
  severity: Severity;
  /** The page (page rules) or the link target (link rules). */
  url: string;
  /** Where the finding shows: the page itself, or the referrer of a link rule (`null`: none). */
  page: string | null;
  /** For link rules: the link's anchor text on `page`; `''` otherwise. */
  text: string;
  /** One line saying what is wrong, from the newer crawl that has it. Not part of the identity. */
  message: string;
  /** Audit issues folded into this finding (several failed requests on one page count 1 finding). */
  count: number;
  /** Matched an ignore pattern: reported, never fails the build. */
  ignored: boolean;
  /** For rules with several findings per page (`a11y-*`: the axe rule and state): part of the identity. */
  subject?: string;
}

/** A page whose screenshot changed beyond the threshold (see `diffScreenshots`). */
export interface VisualChange {
  /** The page (canonical URL). */
  url: string;
  /** Changed pixels / compared pixels (0.02 = 2 %). */
  ratio: number;
  /** Pixels that differ beyond pixelmatch's colour threshold, anti-aliasing left out. */
  changedPixels: number;
  /** Size compared (px): the larger of the two shots in each direction. */
  width: number;
  height: number;
  /** The two shots differ in size. */
  sizeChanged: boolean;
  /** Absolute path of the baseline's screenshot. */
  old: string;
  /** Absolute path of the new screenshot. */
  new: string;
  /** Absolute path of the diff image, or `null` when none was written. */
  diff: string | null;
}

/** The screenshots of the two crawls compared (both had screenshots). */
export interface VisualDiff {
  /** Changed-pixel ratio above which a page changed (`--visual-threshold` / 100). */
  threshold: number;
  /** Pages whose two screenshots were compared. */
  compared: number;
  /**
   * Pages both crawls have a screenshot of (named in a record) that could not be compared: a
   * file missing or unreadable on disk, or a side whose screenshots folder is unknown (then
   * every such page; `notices` says which side).
   */
  missing: number;
  /** Some of the files not found (absolute paths, at most 5), for the notice. */
  missingFiles?: string[];
  /** Pages above the threshold, largest ratio first. */
  changes: VisualChange[];
}

/** Findings of each rule, by how they changed. */
export interface RuleCounts {
  new: number;
  fixed: number;
  unchanged: number;
}

/** The findings of the two crawls, matched by identity. */
export interface FindingsDiff {
  /** In the new crawl only; most severe first (severity, rule, URL, page). */
  new: Finding[];
  /** In the old crawl only (their messages are the old crawl's). */
  fixed: Finding[];
  /** In both (with the new crawl's message). */
  unchanged: Finding[];
  /**
   * In one crawl only, from an optional check that did not run in the other (`--a11y` in the
   * baseline only …): neither new nor fixed, never failing. `checks.uncompared` says which.
   */
  notCompared: Finding[];
  /** Counts per rule that has any finding on either side. */
  byRule: Partial<Record<RuleId, RuleCounts>>;
}

/** The thresholds timing changes were judged with. */
export interface DiffThresholds {
  /** Smallest change that counts, in ms (`--threshold-ms`). */
  ms: number;
  /** Smallest change that counts, relative to the old value (0.5 = 50 %, `--threshold-percent`). */
  ratio: number;
}

/** Everything that changed from one crawl to the next (see `diffCrawls`). */
export interface CrawlDiff {
  schemaVersion: number;
  old: DiffSide;
  new: DiffSide;
  thresholds: DiffThresholds;
  /** Pages (by canonical URL) in one crawl only. A page that became a redirect is a status change, not a removed page. */
  pages: { added: PagePresence[]; removed: PagePresence[] };
  statusChanges: StatusChange[];
  titleChanges: TitleChange[];
  redirectChanges: RedirectChange[];
  /** Pages that became soft 404s. */
  soft404s: Soft404Change[];
  /** Links that disappeared from pages. */
  lostLinks: LostLinks[];
  /** Timings and web vitals that changed beyond the thresholds; slowest-getting first. */
  timingChanges: TimingChange[];
  /** The optional checks each crawl ran (read from its records, see `checks.ts`), and those that ran in one only. */
  checks: { old: CheckId[]; new: CheckId[]; uncompared: UncomparedCheck[] };
  /** Screenshots compared, or `null` when a side has none (no screenshots folder). */
  visual: VisualDiff | null;
  findings: FindingsDiff;
  /**
   * What the diff could not compare, one line each, never silent: screenshots named by the
   * records but not found, screenshots in one crawl only. Not changes (see `isEmptyDiff`).
   */
  notices: string[];
}

/** A diff as reported: the diff plus the `--fail-on` verdict (the `json` report, `--json`). */
export interface DiffReport extends CrawlDiff {
  /** The `--fail-on` rules the verdict used. */
  failOn: string[];
  /** New findings that match `--fail-on` (ignored ones never do): exit 1 when above 0. */
  failing: number;
}

/** `true` when nothing changed: no page change, no new or fixed finding, no timing or visual change. */
export function isEmptyDiff(d: CrawlDiff): boolean {
  return (
    d.pages.added.length + d.pages.removed.length + d.statusChanges.length + d.titleChanges.length + d.redirectChanges.length +
      d.soft404s.length + d.lostLinks.length + d.timingChanges.length + (d.visual?.changes.length ?? 0) + d.findings.new.length + d.findings.fixed.length ===
    0
  );
}
