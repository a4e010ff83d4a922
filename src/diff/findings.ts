/**
 * Findings of two crawls matched by identity (rule + page + target), and the `--fail-on`
 * decision on the new ones.
 * @module
 */
import type { PageRecord } from '../model/record.js';
import type { Budget } from '../report/budget.js';
import { RULES, audit, failsOnEveryWarning, type AuditIssue, type AuditResult, type RuleId, type Severity } from '../report/audit.js';
import { checkOfFinding, type CheckId } from './checks.js';
import { isClickSubject } from '../report/click-errors.js';
import { didYouMean } from '../util/nearest-name.js';
import { DiffInputError } from './errors.js';
import type { RecordSource } from './source.js';
import type { Finding, FindingsDiff, RuleCounts } from './types.js';

/**
 * Rules whose issue names a link target (its `url`) and the pages linking to it (`referrers`):
 * their findings are one per target and referrer. Every other rule is about the page itself.
 */
export const LINK_RULES: ReadonlySet<RuleId> = new Set<RuleId>(['broken-link', 'blocked', 'redirect-chain', 'redirect-loop', 'insecure-link', 'broken-fragment']);

export { DEFAULT_DIFF_FAIL_ON } from './defaults.js';

/** Options of the audit run on each side. */
export interface SideAuditOptions {
  /** `slow-page` threshold (ms of `timings.serverWaitMs`). @default 3000 */
  slowMs?: number;
  /** Findings whose URL matches one of these are reported as ignored. */
  ignore?: readonly RegExp[];
  /** `--budget`: limits for the `budget` rule, or `null` for none. @default none */
  budget?: Budget | null;
}

/**
 * The audit of one crawl. The one call of `audit()` in the diff: today it takes an array, so the
 * side's records are held for its duration only (one side at a time); a streaming audit
 * replaces the array here and nowhere else.
 */
export async function auditSource(source: RecordSource, opts: SideAuditOptions = {}): Promise<AuditResult> {
  const records: PageRecord[] = [];
  for await (const r of source.records()) records.push(r);
  return audit(records, { slowMs: opts.slowMs, ignore: opts.ignore, budget: opts.budget ?? null });
}

/**
 * The identity of a finding: rule, page, target and, for rules with several findings per page, its subject
 * (`a11y-*`: the axe rule and state); never its message.
 */
export function findingKey(f: Pick<Finding, 'rule' | 'page' | 'url'> & { subject?: string | undefined }): string {
  return `${f.rule}\u0000${f.page ?? ''}\u0000${f.url}\u0000${f.subject ?? ''}`;
}

/**
 * Fold audit issues into findings keyed by identity (see {@link Finding}): a link rule's issue
 * gives one finding per referrer page (or one with `page: null` when nothing links to it); a
 * page rule's issues on one page give one finding, their number in `count`.
 */
export function toFindings(result: AuditResult): Map<string, Finding> {
  const out = new Map<string, Finding>();
  const put = (i: AuditIssue, page: string | null, text: string): void => {
    const f: Finding = { rule: i.rule, severity: i.severity, url: i.url, page, text, message: i.message, count: 1, ignored: i.ignored };
    if (i.subject !== undefined) f.subject = i.subject;
    const key = findingKey(f);
    const known = out.get(key);
    if (known) {
      known.count++;
      // One unignored issue is enough for the finding to count.
      known.ignored &&= i.ignored;
    } else out.set(key, f);
  };
  for (const i of result.issues) {
    if (!LINK_RULES.has(i.rule)) put(i, i.url, '');
    else if (i.referrers.length === 0) put(i, null, '');
    else {
      const pages = new Set<string>();
      for (const r of i.referrers) {
        if (pages.has(r.url)) continue;
        pages.add(r.url);
        put(i, r.url, r.text);
      }
    }
  }
  return out;
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

/** Most severe first, then by rule, URL and page: a stable order for every report. */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    a.rule.localeCompare(b.rule) ||
    a.url.localeCompare(b.url) ||
    (a.page ?? '').localeCompare(b.page ?? '')
  );
}

/** What each crawl ran, to tell a fixed finding from one whose check did not run (see `checks.ts`). */
export interface CheckSides {
  old: CrawlChecks;
  new: CrawlChecks;
}

/** The optional checks one crawl ran, and which URLs it has records of. */
export interface CrawlChecks {
  checks: ReadonlySet<CheckId>;
  hasRecord(url: string): boolean;
  /**
   * `true` when the crawl recorded `url` as left for its page budget (`skipped: 'budget'`):
   * nothing of it was checked there. Absent: every URL counts as checked.
   */
  leftForBudget?(url: string): boolean;
  /**
   * `true` when this crawl's click discovery worked the control of click subject `subject` (see
   * `clickSubject`) on page `url`; `false` when it did not, or its record does not say. Absent:
   * every control counts as worked everywhere.
   */
  worked?(url: string, subject: string): boolean;
  /**
   * `true` when this crawl's accessibility check checked the revealed state `state` (a name as in
   * `a11y.states`) on page `url`. Absent: every state counts as checked everywhere.
   */
  checkedState?(url: string, state: string): boolean;
}

/**
 * `true` when `f` was found after clicks (a click-raised error, see `click-errors.ts`, or an
 * `a11y-*` finding in a state clicks revealed) that the crawl `other` did not make on `f`'s page:
 * it did not work that control, or did not check that state, there.
 */
export function unexploredIn(f: Pick<Finding, 'rule' | 'page' | 'subject'>, other: CrawlChecks): boolean {
  if (f.page === null || f.subject === undefined) return false;
  if (isClickSubject(f.subject)) return other.worked !== undefined && !other.worked(f.page, f.subject);
  const state = a11yStateOf(f);
  return state !== null && other.checkedState !== undefined && !other.checkedState(f.page, state);
}

/** The revealed state of an `a11y-*` finding (its subject is the axe rule, then the state's name), or `null` for the page as read. */
function a11yStateOf(f: Pick<Finding, 'rule' | 'subject'>): string | null {
  if (!f.rule.startsWith('a11y-') || f.subject === undefined) return null;
  const at = f.subject.indexOf(' ');
  return at < 0 ? null : f.subject.slice(at + 1);
}

/**
 * Match the findings of two crawls by identity. A finding in one crawl only whose optional
 * check (`checkOfFinding`) did not run in the other is neither new nor fixed: it is "not
 * compared" (`notCompared`), and counted in no rule's counts. So is one whose page, or link
 * target, the other crawl left for its page budget (`--max-pages`): that crawl did not look. And
 * so is one raised after click discovery worked a control (its subject says which, see
 * `click-errors.ts`) on a page where the other crawl did not work that control: which pages click a
 * site-wide control depends on which come first, so the other crawl did not look either. The
 * same for an `a11y-*` finding in a state clicks revealed that the other crawl did not check on
 * that page.
 * @param sides - the checks of each crawl; without it every check counts as run on both sides
 * @returns new (in `newer` only), fixed (in `older` only), unchanged (in both, with the newer
 *   message), not compared, each sorted by {@link compareFindings}, and counts per rule
 */
export function matchFindings(older: ReadonlyMap<string, Finding>, newer: ReadonlyMap<string, Finding>, sides?: CheckSides): FindingsDiff {
  const out: FindingsDiff = { new: [], fixed: [], unchanged: [], notCompared: [], byRule: {} };
  const count = (rule: RuleId, kind: keyof RuleCounts): void => {
    const c = (out.byRule[rule] ??= { new: 0, fixed: 0, unchanged: 0 });
    c[kind]++;
  };
  /**
   * `true` when `f`, from the crawl `own`, has a check that did not run in both crawls. (A
   * finding can stand where its check did not run: an older record upgraded with defaults, e.g.
   * no `meta` read as no description.)
   */
  const uncompared = (f: Finding, own: CrawlChecks | undefined, other: CrawlChecks | undefined): boolean => {
    if (!own || !other) return false;
    const check = checkOfFinding(f, (u) => own.hasRecord(u));
    if (check !== null && !(own.checks.has(check) && other.checks.has(check))) return true;
    const unvisited = (u: string | null): boolean => u !== null && other.leftForBudget?.(u) === true;
    return unvisited(f.page) || unvisited(f.url) || unexploredIn(f, other);
  };
  for (const [key, f] of newer) {
    if (uncompared(f, sides?.new, sides?.old)) {
      out.notCompared.push(f);
      continue;
    }
    const kind = older.has(key) ? 'unchanged' : 'new';
    out[kind].push(f);
    count(f.rule, kind);
  }
  for (const [key, f] of older) {
    // In both: unchanged, or not compared (with the newer finding) above.
    if (newer.has(key)) continue;
    if (uncompared(f, sides?.old, sides?.new)) {
      out.notCompared.push(f);
      continue;
    }
    out.fixed.push(f);
    count(f.rule, 'fixed');
  }
  out.new.sort(compareFindings);
  out.fixed.sort(compareFindings);
  out.unchanged.sort(compareFindings);
  out.notCompared.sort(compareFindings);
  return out;
}

/**
 * Parse and check a `--fail-on` value: rule ids of the audit (the crawl's `--fail-on`), `none`
 * (never fail) or `warnings` (every error- and warning-level rule), comma-separated.
 * @throws DiffInputError (`bad-option`) for an unknown rule id: one line under 200 characters
 *   that names the other words and `spacrawl rules` (the rule ids are not listed); and for a
 *   value that names no rule (`""`, `","`), which would otherwise never fail
 */
export function parseFailOn(value: string): string[] {
  const list = value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const known = new Set<string>([...Object.keys(RULES), 'none', 'warnings', NEW]);
  // An empty list is a mistake (an unset variable in a CI script), not a wish never to fail: that is `none`.
  if (list.length === 0) throw new DiffInputError('bad-option', `--fail-on names no rule: expected rule ids (spacrawl rules lists them), warnings, none, new or new:RULE`);
  for (const r of list) {
    if (known.has(r)) continue;
    // One short line (under 200 characters): the words, not the ~35 rule ids, which `spacrawl rules` lists.
    const shown = JSON.stringify(r.length > 40 ? `${r.slice(0, 40)}…` : r);
    throw new DiffInputError('bad-option', `unknown --fail-on rule ${shown}${didYouMean(r, [...known])}: expected rule ids (spacrawl rules lists them), warnings, none, new or new:RULE`);
  }
  return list;
}

/** Prefix of a `--fail-on` entry that counts new findings only. */
const NEW = 'new';

/** A `--fail-on` list that may name new findings, in the audit's terms. */
export interface GateFailOn {
  /** `true` when an entry is `new` or `new:RULE` (which need a baseline). */
  usesNew: boolean;
  /**
   * The rules in the audit's terms (rule ids, `warnings`, `none`, and `new`, which matches as
   * `warnings` does but is shown as typed): `new:RULE` becomes `RULE`. Against a baseline, only
   * new findings of these fail.
   */
  rules: string[];
}

/**
 * The one `--fail-on` grammar of `crawl` and `diff`: comma-separated entries (or a list of them,
 * each maybe comma-separated), each a rule id, `warnings`, `none`, `new` (every new finding of
 * an error- or warning-level rule) or `new:RULE`. Against a baseline (`diff` always has one:
 * OLD) every rule counts new findings only, so `broken-link` and `new:broken-link` mean the
 * same; without one, `new…` is refused.
 * @param value - the flag's value(s) as given
 * @param hasBaseline - a baseline is there to tell new findings from known ones
 * @throws DiffInputError (`bad-option`) for an unknown rule, or `new…` without a baseline
 */
export function parseGateFailOn(value: string | readonly string[], hasBaseline: boolean): GateFailOn {
  const list = (typeof value === 'string' ? [value] : value)
    .flatMap((v) => v.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
  let usesNew = false;
  const rules = list.map((entry) => {
    if (entry === NEW) {
      usesNew = true;
      return NEW;
    }
    if (entry.startsWith(`${NEW}:`)) {
      usesNew = true;
      return entry.slice(NEW.length + 1);
    }
    return entry;
  });
  if (usesNew && !hasBaseline) throw new DiffInputError('bad-option', `--fail-on ${list.join(',')}: "new" needs --baseline (the crawl to compare with)`);
  return { usesNew, rules: parseFailOn(rules.join(',')) };
}

/**
 * `true` when a finding fails the build under `failOn`: not ignored, and its rule is listed, or
 * `warnings` is listed and it is not a notice. `none` fails nothing.
 */
export function matchesFailOn(f: Finding, failOn: readonly string[]): boolean {
  if (f.ignored || failOn.includes('none')) return false;
  return failOn.includes(f.rule) || (failsOnEveryWarning(failOn) && f.severity !== 'notice');
}

/** The new findings that fail the build under `failOn` (exit 1 when any). */
export function failingFindings(d: { findings: FindingsDiff }, failOn: readonly string[]): Finding[] {
  return d.findings.new.filter((f) => matchesFailOn(f, failOn));
}
