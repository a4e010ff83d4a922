/**
 * `diffCrawls()`: what changed between two crawls of one site.
 * @module
 */
import type { Budget } from '../report/budget.js';
import { compareUrls } from './changes.js';
import { CHECK_IDS, checkOfFinding, type CheckId, type UncomparedCheck } from './checks.js';
import { DEFAULT_THRESHOLD_MS, DEFAULT_THRESHOLD_RATIO } from './defaults.js';
import { DiffInputError } from './errors.js';
import { auditSource, compareFindings, findingKey, matchFindings, toFindings, unexploredIn, type CrawlChecks } from './findings.js';
import { checkSameOrigins, indexSide, siteOrigins, type SideIndex } from './side.js';
import { mapOriginHint } from './map-origin.js';
import type { RecordSource } from './source.js';
import { DIFF_SCHEMA_VERSION, type CrawlDiff, type DiffSide, type Finding, type FindingsDiff, type VisualDiff } from './types.js';
import { compareShots, DEFAULT_VISUAL_THRESHOLD, shotsOf, visualFindings } from './visual.js';

/** Options of {@link diffCrawls}. */
export interface DiffOptions {
  /** Smallest timing change that counts (ms). @default 1000 */
  thresholdMs?: number;
  /** Smallest timing change that counts, relative to the old value (0.5 = 50 %). @default 0.5 */
  thresholdRatio?: number;
  /** Compare crawls of different sites (no seed origin in common) instead of refusing. @default false */
  force?: boolean;
  /** `slow-page` threshold of the audit of each side (ms). @default 3000 */
  slowMs?: number;
  /** Findings whose URL matches one of these are reported as ignored and never fail. */
  ignore?: readonly RegExp[];
  /** `--budget` of the audit of each side: `budget` findings, compared where both crawls measured vitals. @default none */
  budget?: Budget | null;
  /**
   * The screenshot comparison. Each side's folder defaults to its source's `screenshotsDir`;
   * without a folder on both sides there is none (`visual: null`).
   */
  visual?: {
    /** Changed-pixel ratio above which a page changed (0.001 = 0.1 %). @default 0.001 */
    threshold?: number;
    /** Folder for the diff images, or `null` for none. @default none */
    diffDir?: string | null;
    /** The baseline's screenshots folder. @default `older.screenshotsDir` */
    oldDir?: string | null;
    /** The new crawl's screenshots folder. @default `newer.screenshotsDir` */
    newDir?: string | null;
  };
}

/** `findings` with the visual diff's `visual-change` findings added as new ones (they have no "before"). */
function withVisualFindings(f: FindingsDiff, v: VisualDiff | null): FindingsDiff {
  const extra = v ? visualFindings(v) : [];
  if (!extra.length) return f;
  const byRule = { ...f.byRule, 'visual-change': { new: extra.length, fixed: 0, unchanged: 0 } };
  return { ...f, new: [...f.new, ...extra].sort(compareFindings), byRule };
}

/**
 * The screenshot comparison of a diff, or `null` when neither crawl has screenshots. Never
 * silent: when only one crawl has screenshots, when a side's screenshots folder is unknown (its
 * records name screenshots, but neither the source nor a flag says where they are), or when
 * named files are missing, a line goes to `notices` (and unknown or missing files are counted in
 * `missing`).
 */
async function visualPart(older: RecordSource, newer: RecordSource, o: NonNullable<DiffOptions['visual']>, notices: string[]): Promise<VisualDiff | null> {
  const a = await shotsOf(older);
  const b = await shotsOf(newer);
  if (a.size === 0 && b.size === 0) return null;
  const shots = (n: number): string => `${n} screenshot${n === 1 ? '' : 's'}`;
  if (a.size === 0 || b.size === 0) {
    const [has, hasNot] = a.size ? [`OLD (${older.label})`, `NEW (${newer.label})`] : [`NEW (${newer.label})`, `OLD (${older.label})`];
    notices.push(`screenshots not compared: ${has} has ${shots(Math.max(a.size, b.size))}, ${hasNot} none`);
    return null;
  }
  const oldDir = o.oldDir ?? older.screenshotsDir;
  const newDir = o.newDir ?? newer.screenshotsDir;
  const threshold = o.threshold ?? DEFAULT_VISUAL_THRESHOLD;
  if (!oldDir || !newDir) {
    let both = 0;
    for (const url of b.keys()) if (a.has(url)) both++;
    const unknown = [!oldDir ? `OLD (${older.label}, --old-screenshots)` : null, !newDir ? `NEW (${newer.label}, --new-screenshots)` : null].filter(Boolean).join(' and ');
    notices.push(`screenshots not compared: the records name them, but the screenshots folder of ${unknown} was not found next to the records: give it with that flag (${shots(both)} not compared)`);
    return { threshold, compared: 0, missing: both, changes: [] };
  }
  const v = compareShots(a, b, { oldDir, newDir, threshold, diffDir: o.diffDir ?? null });
  if (v.missing) {
    const listed = v.missingFiles ?? [];
    notices.push(`${shots(v.missing)} named in the records could not be read, those pages not compared: ${listed.join(', ')}${v.missing > listed.length ? ` and ${v.missing - listed.length} more` : ''}`);
  }
  return v;
}

export { DEFAULT_THRESHOLD_MS, DEFAULT_THRESHOLD_RATIO };

/**
 * Refuse two crawls that share no site: the origins of their seeds (depth-0 records) have
 * nothing in common.
 * @throws DiffInputError (`different-sites`)
 */
function checkSameSite(older: SideIndex, newer: SideIndex, labels: [string, string], given?: ReadonlyMap<string, string>): void {
  const a = siteOrigins(older);
  const b = siteOrigins(newer);
  checkSameOrigins(a, b, labels, `${mapOriginHint(a, b, given)}; else --force to compare them anyway`);
}

/**
 * The checks that ran in one crawl only, each with its number of findings not compared.
 * @param notCompared - the findings of checks that did not run on the other side
 */
function uncomparedChecks(a: SideIndex, b: SideIndex, notCompared: readonly Finding[]): UncomparedCheck[] {
  const out: UncomparedCheck[] = [];
  for (const check of CHECK_IDS) {
    if (a.checks.has(check) === b.checks.has(check)) continue;
    const ranIn = a.checks.has(check) ? 'old' : 'new';
    const own = ranIn === 'old' ? a : b;
    const findings = notCompared.filter((f) => checkOfFinding(f, (u) => own.urls.has(u)) === check).length;
    out.push({ check, ranIn, findings });
  }
  return out;
}

const ordered = (s: ReadonlySet<CheckId>): CheckId[] => CHECK_IDS.filter((c) => s.has(c));

/**
 * The note for findings not compared because the other crawl left their page (or link target)
 * for its page budget, per crawl that has them; `null` for none.
 * @param oldFindings - the older crawl's findings by key (the others are the newer crawl's)
 * @param labels - the two crawls' labels, older first
 */
function leftForBudgetNote(notCompared: readonly Finding[], oldFindings: ReadonlyMap<string, Finding>, sides: { old: CrawlChecks; new: CrawlChecks }, labels: [string, string]): string | null {
  const counts = [0, 0];
  for (const f of notCompared) {
    const fromOld = oldFindings.has(findingKey(f));
    const other = fromOld ? sides.new : sides.old;
    if ((f.page !== null && other.leftForBudget?.(f.page)) || other.leftForBudget?.(f.url)) counts[fromOld ? 0 : 1]!++;
  }
  const parts = [0, 1].filter((i) => counts[i]! > 0).map((i) => `${counts[i]} of ${labels[i]}'s (${labels[1 - i]} left their pages for its page budget)`);
  return parts.length ? `findings not compared, neither new nor fixed: ${parts.join('; ')}` : null;
}

/**
 * The note for findings raised by click discovery (see `click-errors.ts`), or found in a state its
 * clicks revealed, not compared because the other crawl did not work that control (check that
 * state) on that page, per crawl that has them; `null` for none.
 * @param oldFindings - the older crawl's findings by key (the others are the newer crawl's)
 * @param labels - the two crawls' labels, older first
 */
function unclickedNote(notCompared: readonly Finding[], oldFindings: ReadonlyMap<string, Finding>, sides: { old: CrawlChecks; new: CrawlChecks }, labels: [string, string]): string | null {
  const counts = [0, 0];
  for (const f of notCompared) {
    const fromOld = oldFindings.has(findingKey(f));
    if (unexploredIn(f, fromOld ? sides.new : sides.old)) counts[fromOld ? 0 : 1]!++;
  }
  const parts = [0, 1].filter((i) => counts[i]! > 0).map((i) => `${counts[i]} of ${labels[i]}'s (found after clicks ${labels[1 - i]} did not make on that page)`);
  return parts.length ? `findings not compared, neither new nor fixed: ${parts.join('; ')}` : null;
}

function side(label: string, idx: SideIndex): DiffSide {
  return { source: label, records: idx.records, pages: idx.pages, seeds: idx.seeds };
}

/**
 * Compare two crawls: pages added and removed, status, title and redirect target changes, new
 * soft 404s, lost links, timing and vitals changes (see `compareUrls`), the audit findings
 * of both crawls matched by identity (new, fixed, unchanged; see `Finding`), and, when both
 * sides have screenshots, the pages whose screenshot changed (`visual`, with a new
 * `visual-change` finding each; see `diffScreenshots`).
 *
 * Each source is read twice, one side at a time: once into a compact index by canonical URL (a
 * few fields per URL, link strings shared), then once for its audit, whose records are released
 * before the other side's audit. Memory is two indexes plus one side's records while it is
 * audited.
 * @param older - the earlier crawl (the baseline)
 * @param newer - the later crawl
 * @throws DiffInputError `not-a-crawl` when a source holds no record; `different-sites` when
 *   the crawls share no seed origin and `force` is not set
 * @throws what the sources throw while read (a state store's errors)
 */
export async function diffCrawls(older: RecordSource, newer: RecordSource, opts: DiffOptions = {}): Promise<CrawlDiff> {
  const thresholds = { ms: opts.thresholdMs ?? DEFAULT_THRESHOLD_MS, ratio: opts.thresholdRatio ?? DEFAULT_THRESHOLD_RATIO };
  const intern = new Map<string, string>();
  const a = await indexSide(older, intern);
  const b = await indexSide(newer, intern);
  intern.clear();
  if (!opts.force) checkSameSite(a, b, [older.label, newer.label], older.originMap);
  const auditOpts = { slowMs: opts.slowMs, ignore: opts.ignore, budget: opts.budget ?? null };
  const oldFindings = toFindings(await auditSource(older, auditOpts));
  const newFindings = toFindings(await auditSource(newer, auditOpts));
  const sideChecks = (x: SideIndex): CrawlChecks => ({
    checks: x.checks,
    hasRecord: (u) => x.urls.has(u),
    leftForBudget: (u) => x.urls.get(u)?.skipped === 'budget',
    worked: (u, subject) => x.urls.get(u)?.clicked?.has(subject) === true,
    checkedState: (u, state) => x.urls.get(u)?.a11yStates?.has(state) === true,
  });
  const sides = { old: sideChecks(a), new: sideChecks(b) };
  const findings = matchFindings(oldFindings, newFindings, sides);
  const notices: string[] = [];
  const budgetNote = leftForBudgetNote(findings.notCompared, oldFindings, sides, [older.label, newer.label]);
  if (budgetNote) notices.push(budgetNote);
  const clickNote = unclickedNote(findings.notCompared, oldFindings, sides, [older.label, newer.label]);
  if (clickNote) notices.push(clickNote);
  const visual = await visualPart(older, newer, opts.visual ?? {}, notices);
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    old: side(older.label, a),
    new: side(newer.label, b),
    thresholds,
    ...compareUrls(a, b, thresholds),
    checks: { old: ordered(a.checks), new: ordered(b.checks), uncompared: uncomparedChecks(a, b, findings.notCompared) },
    visual,
    findings: withVisualFindings(findings, visual),
    notices,
  };
}
