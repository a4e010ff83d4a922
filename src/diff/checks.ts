/**
 * Optional checks: findings that exist only when a check ran (`--a11y`, `--vitals` with
 * `--budget`, `--check-external`, `--check-fragments`, and the server-HTML comparison that
 * records of older spacrawl versions lack). A finding of such a check is new or fixed only when
 * the check ran in both crawls; otherwise its absence on the other side says nothing, and the
 * diff reports it as "not compared".
 *
 * Which checks ran is read from the records themselves, so it works for every kind of side (the
 * JSON Lines of `--out` carry no metadata): each check leaves its data on every page it looked at
 * (`a11y`, `vitals`, `anchors`, `serverHtml` are `null` without it; off-site `linkChecks` exist
 * only with `--check-external`), and checks every crawl makes today are missing from a crawl
 * whose records lack their field (written by an older spacrawl, {@link VERSION_CHECKS}); an
 * `--output-dir` folder's `report.json` also lists the flag checks it ran.
 * @module
 */
import type { PageRecord } from '../model/record.js';
import type { RuleId } from '../report/audit.js';
import type { CheckId, Finding, UncomparedCheck } from './types.js';

export type { CheckId, UncomparedCheck } from './types.js';

/** Every optional check, in report order. */
export const CHECK_IDS: readonly CheckId[] = ['a11y', 'vitals', 'check-external', 'check-fragments', 'server-html', 'meta', 'spa', 'server-wait', 'mixed-content'];

/**
 * Checks every crawl makes today, by the record field older spacrawl versions did not write
 * (`timings.` for a field inside `timings`). A crawl whose records never carry the field did not
 * make the check. `server-html` is also told by its data (`serverHtml` is `null` on pages not read).
 */
export const VERSION_CHECKS: Readonly<Partial<Record<CheckId, string>>> = {
  'server-html': 'serverHtml',
  meta: 'meta',
  spa: 'spa',
  'server-wait': 'timings.serverWaitMs',
  'mixed-content': 'mixedContent',
};

/**
 * The record fields present in a raw (not yet upgraded) record, as {@link VERSION_CHECKS} names
 * them: its top-level keys, and `timings.KEY` for the keys of its `timings`.
 */
export function fieldsOfRaw(raw: object, into: Set<string>): void {
  for (const k of Object.keys(raw)) into.add(k);
  const t = (raw as { timings?: unknown }).timings;
  if (typeof t === 'object' && t !== null) for (const k of Object.keys(t)) into.add(`timings.${k}`);
}

/**
 * The version checks a crawl made, from the fields its raw records carried (see
 * {@link fieldsOfRaw}); `null` (fields unknown: a state file, whose store upgrades records as it
 * reads them) counts every one as made.
 */
export function versionChecksOf(fields: ReadonlySet<string> | null): CheckId[] {
  return (Object.entries(VERSION_CHECKS) as [CheckId, string][]).filter(([, f]) => fields === null || fields.has(f)).map(([c]) => c);
}

/** The check whose rules these are (page rules; link rules of off-site targets are `check-external`, see {@link checkOfFinding}). */
const RULE_CHECK: Partial<Record<RuleId, CheckId>> = {
  'a11y-critical': 'a11y',
  'a11y-serious': 'a11y',
  'a11y-moderate': 'a11y',
  'a11y-minor': 'a11y',
  budget: 'vitals',
  'broken-fragment': 'check-fragments',
  'js-only-title': 'server-html',
  'js-only-links': 'server-html',
  'js-only-content': 'server-html',
  'missing-description': 'meta',
  'missing-h1': 'meta',
  'multiple-h1': 'meta',
  'canonical-mismatch': 'meta',
  'unrendered-template': 'spa',
  'hydration-error': 'spa',
  'stuck-loading': 'spa',
  'empty-render': 'spa',
  'slow-page': 'server-wait',
  'mixed-content': 'mixed-content',
};

/** Link rules that `--check-external` gives for off-site targets. */
const EXTERNAL_RULES: ReadonlySet<RuleId> = new Set<RuleId>(['broken-link', 'blocked', 'insecure-link']);

/**
 * The optional checks one record shows ran (none for a record that was not rendered, except
 * `check-external` for a redirect record whose off-site target was checked).
 * @param r - a record (upgraded: fields an older version lacks are at their defaults)
 */
export function checksOfRecord(r: PageRecord): CheckId[] {
  const out: CheckId[] = [];
  if (r.a11y) out.push('a11y');
  if (r.vitals) out.push('vitals');
  if (r.linkChecks.length && r.externalLinks.length) {
    const offsite = new Set(r.externalLinks);
    if (r.linkChecks.some((c) => c.kind === 'link' && offsite.has(c.url))) out.push('check-external');
  } else if (r.redirect && r.skipped === 'scope' && r.linkChecks.some((c) => c.kind === 'link')) {
    // The off-site target of a URL that forwards there, checked with --check-external.
    out.push('check-external');
  }
  if (r.anchors || r.fragmentLinks.length) out.push('check-fragments');
  if (r.serverHtml) out.push('server-html');
  return out;
}

/**
 * The optional check a finding comes from, or `null` for findings every crawl can have.
 * `broken-link`, `blocked` and `insecure-link` of a target without a record of its own in that
 * crawl (an off-site URL: DESIGN.md gives those none) come from `--check-external`.
 * @param f - the finding
 * @param hasRecord - whether the finding's crawl has a record of a URL
 */
export function checkOfFinding(f: Pick<Finding, 'rule' | 'url'>, hasRecord: (url: string) => boolean): CheckId | null {
  const c = RULE_CHECK[f.rule];
  if (c) return c;
  if (EXTERNAL_RULES.has(f.rule) && !hasRecord(f.url)) return 'check-external';
  return null;
}

/**
 * `a11y check ran only in OLD (3 findings not compared)`, or for a version check
 * `meta check ran only in OLD: NEW's records have no meta (an older spacrawl) (3 findings not compared)`.
 */
export function uncomparedText(u: UncomparedCheck): string {
  const [ran, not] = u.ranIn === 'old' ? ['OLD', 'NEW'] : ['NEW', 'OLD'];
  const field = VERSION_CHECKS[u.check];
  const why = field ? `: ${not}'s records have no ${field} (an older spacrawl)` : '';
  return `${u.check} check ran only in ${ran}${why} (${u.findings} finding${u.findings === 1 ? '' : 's'} not compared)`;
}
