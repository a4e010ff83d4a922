import { normalizePercent } from '../url/normalize.js';
import { isPage, MAX_LINK_DETAILS, type PageRecord } from '../model/record.js';
import { blockedWhy, isBotWall, LinkCheckIssues } from './audit-links.js';
import { reReadable } from './record-source.js';
import type { Budget } from './budget.js';
import { pageRuleIssues } from './page-rules.js';
import { clickErrorIssues } from './click-errors.js';
import { consoleErrorsText, mixedContentText } from './finding-text.js';

/** Severity of an audit rule. */
export type Severity = 'error' | 'warning' | 'notice';

/** Every audit rule, with its severity and a one-line description (for reports and `--fail-on`). */
export const RULES = {
  'broken-link': { severity: 'error', description: 'a link leads to a 4xx/5xx page, a network error, or a soft 404 (off-site links with --check-external)' },
  'server-error': { severity: 'error', description: 'a page answered with a 5xx status' },
  blocked: { severity: 'warning', description: 'a bot wall answered instead of the page (403 with cf-mitigated, or 999), or an off-site link check was rate-limited (429): not proof the link is broken' },
  'redirect-chain': { severity: 'warning', description: 'a link goes through more than one redirect' },
  'redirect-loop': { severity: 'error', description: 'redirects never end' },
  'js-error': { severity: 'error', description: 'an uncaught exception on the page' },
  'console-error': { severity: 'warning', description: 'console.error messages' },
  'failed-request': { severity: 'warning', description: 'a script, style, image or API call failed or answered >= 400' },
  'missing-title': { severity: 'warning', description: 'the page has no title' },
  'duplicate-title': { severity: 'warning', description: 'the same title on different indexable pages (not soft 404s, noindex pages, or pages whose canonical names another URL)' },
  'long-title': { severity: 'notice', description: 'title longer than 60 characters' },
  'missing-description': { severity: 'notice', description: 'no <meta name="description">' },
  'missing-h1': { severity: 'notice', description: 'no <h1>' },
  'multiple-h1': { severity: 'notice', description: 'more than one <h1>' },
  'canonical-mismatch': { severity: 'warning', description: '<link rel="canonical"> (or a Link header) names another URL' },
  noindex: { severity: 'notice', description: 'the page asks not to be indexed' },
  'slow-page': {
    severity: 'warning',
    description:
      "the page waited more than --slow ms for servers to answer: each request's start to its first byte (main document, redirects, the page's own requests), overlaps counted once, from the browser's network timings; the page's CPU work and the crawler's own load are not counted",
  },
  'mixed-content': { severity: 'error', description: 'an http: subresource on an https: page' },
  'insecure-link': { severity: 'notice', description: 'an http:// link on an https: page whose https:// form answers the same: link to that instead' },
  'visual-change': {
    severity: 'warning',
    description: "the page's screenshot differs from the baseline's in more than --visual-threshold of its pixels (spacrawl diff and crawl --baseline, with screenshots on both sides)",
  },
  'broken-fragment': { severity: 'warning', description: 'a #fragment link whose rendered target page has no element with that id, nor an <a> with that name (--check-fragments)' },
  'a11y-critical': { severity: 'warning', description: 'axe-core found a critical accessibility violation (--a11y): one finding per page, axe rule and state (the page as read, or a state a click revealed)' },
  'a11y-serious': { severity: 'warning', description: 'axe-core found a serious accessibility violation (--a11y)' },
  'a11y-moderate': { severity: 'notice', description: 'axe-core found a moderate accessibility violation (--a11y)' },
  'a11y-minor': { severity: 'notice', description: 'axe-core found a minor accessibility violation (--a11y)' },
  budget: { severity: 'warning', description: 'a page is over a --budget (lcp, cls, tbt, fcp, ttfb, bytes, requests; measured with --vitals)' },
  'unrendered-template': { severity: 'warning', description: 'visible text is an unrendered template or a value that never arrived: {{ … }}, ${…}, [object Object], or undefined, NaN, null standing alone' },
  'hydration-error': { severity: 'warning', description: "the framework's hydration-mismatch message (React, Vue, Svelte, Angular) in the console: the server's HTML and the client's render differ" },
  'stuck-loading': { severity: 'warning', description: 'read at the settle cap with a busy indicator still showing (aria-busy="true", a progressbar without value, a skeleton, an app root showing only "Loading…")' },
  'empty-render': { severity: 'error', description: 'a 200 page whose app root (#root, #app, #__next …, or the body) rendered nothing: no text, no links, no media' },
  'js-only-title': { severity: 'warning', description: "the server's HTML has no title: clients without JavaScript (most AI crawlers, link previews) see none" },
  'js-only-links': { severity: 'notice', description: "links a person can follow on the rendered page that are not in the server's HTML (with their number)" },
  'js-only-content': { severity: 'warning', description: "the server's HTML has almost no text (under 10 % of the rendered page's, which has 200 characters or more)" },
} as const satisfies Record<string, { severity: Severity; description: string }>;

/** An audit rule id. */
export type RuleId = keyof typeof RULES;

/** Where a broken target was linked from. */
export interface Referrer {
  /** Canonical URL of the linking page. */
  url: string;
  /** Anchor text of the link there. */
  text: string;
}

/** One finding. */
export interface AuditIssue {
  rule: RuleId;
  severity: Severity;
  /** The page (or link target) the finding is about. */
  url: string;
  /** One line saying what is wrong. */
  message: string;
  /** For link rules: every page linking to `url`, with its anchor text. */
  referrers: Referrer[];
  /** Matched an `--ignore-url` pattern or `.spacrawlignore`: reported, never fails the build. */
  ignored: boolean;
  /**
   * What on the page the issue is about when a rule gives several issues per page, part of the finding's
   * identity in a diff (`a11y-*`: the axe rule and the revealed state, e.g. `color-contrast` or
   * `label after clicking "Pricing" (button) on /`); absent when the rule gives one issue per page or target.
   */
  subject?: string;
}

/** Options of {@link audit}. */
export interface AuditOptions {
  /** `slow-page` threshold: time the page waited for servers (`timings.serverWaitMs`), in ms. @default 3000 */
  slowMs?: number;
  /** URLs matching any of these are reported as ignored. */
  ignore?: readonly RegExp[];
  /** `--budget`: limits on the pages' vitals for the `budget` rule; none = no `budget` issue. */
  budget?: Budget | null;
}

/** The audit of a crawl: issues in a stable order (severity, rule, URL). */
export interface AuditResult {
  issues: AuditIssue[];
  /** Issue counts by rule (ignored ones not counted). */
  counts: Partial<Record<RuleId, number>>;
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

/** Adds one issue: `refs` is the (shared, maybe still filling) referrer list of `url`. */
type AddIssue = (rule: RuleId, url: string, message: string, refs?: Referrer[], subject?: string) => void;

/**
 * Referrer lists of the URLs that need them, filled in one pass over every record's links: a
 * list is created when an issue asks for it and filled later, so only issue URLs keep referrers.
 */
class ReferrerLists {
  private readonly lists = new Map<string, Referrer[]>();
  /** `page\0text` pairs already in each list. */
  private readonly keys = new Map<string, Set<string>>();

  /** The list of `url` (empty until {@link fill} runs). */
  of(url: string): Referrer[] {
    let list = this.lists.get(url);
    if (!list) {
      list = [];
      this.lists.set(url, list);
    }
    return list;
  }

  /** Add the links of `r` to the wanted lists: each (page, text) pair once, in record order (the second pass). */
  read(r: PageRecord): void {
    if (this.lists.size === 0) return;
    for (const l of r.linkDetails) {
      const list = this.lists.get(l.url);
      if (!list) continue;
      let keys = this.keys.get(l.url);
      if (!keys) {
        keys = new Set();
        this.keys.set(l.url, keys);
      }
      const key = `${r.url}\u0000${l.text}`;
      if (keys.has(key)) continue;
      keys.add(key);
      list.push({ url: r.url, text: l.text });
    }
    // A page with more links than its details keep (MAX_LINK_DETAILS): the rest are in `links`
    // and `externalLinks`, without their text.
    if (r.linkDetails.length < MAX_LINK_DETAILS) return;
    const detailed = new Set(r.linkDetails.map((l) => l.url));
    for (const u of [...r.links, ...r.externalLinks]) {
      const list = this.lists.get(u);
      if (!list || detailed.has(u)) continue;
      detailed.add(u);
      list.push({ url: r.url, text: '' });
    }
  }
}

/**
 * A 32-bit FNV-1a hash of a string's UTF-16 code units, as a signed integer (a small integer to
 * V8, kept unboxed in a Map), for counting titles without keeping them.
 */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * `duplicate-title`, keyed by the page reached (a redirect's record and its target's are one
 * page). The first pass counts titles by hash only; the second keeps the pages of the titles
 * counted twice or more (a hash collision only costs a list that turns out to have one page).
 */
class DuplicateTitles {
  private readonly counts = new Map<number, number>();
  private readonly titles = new Map<string, { url: string; page: string }[]>();

  count(title: string): void {
    const h = hash32(title);
    this.counts.set(h, (this.counts.get(h) ?? 0) + 1);
  }

  collect(title: string, url: string, page: string): void {
    if ((this.counts.get(hash32(title)) ?? 0) < 2) return;
    const list = this.titles.get(title) ?? [];
    if (!list.some((x) => x.page === page)) list.push({ url, page });
    this.titles.set(title, list);
  }

  issues(add: AddIssue): void {
    for (const [title, pages] of this.titles) {
      if (pages.length < 2) continue;
      for (const p of pages) add('duplicate-title', p.url, `title "${title}" is also used by ${pages.filter((x) => x !== p).map((x) => x.page).join(', ')}`);
    }
  }
}

/**
 * The title `duplicate-title` compares, or `null`: not an HTML page, skipped, no title, or a page
 * no search engine indexes on its own. Those are a soft 404 (the site's not-found screen: every
 * gone URL shows its one title, as a 404 page does), a `noindex` page, and a page whose canonical
 * names another URL (a sorted or print view of `/shoes` sharing its title is the point of the
 * canonical). Screaming Frog checks duplicates on indexable pages only for the same reason
 * (https://www.screamingfrog.co.uk/guides/duplicates/).
 */
function judgedTitle(r: PageRecord): string | null {
  if (!isPage(r)) return null;
  const html = r.status !== null && r.status < 400 && r.error === null && r.title !== null;
  if (!html || !r.title || r.soft404 || r.noindex || canonicalElsewhere(r)) return null;
  return r.title;
}

/** `true` when the page's canonical (`<link rel="canonical">` or `Link` header) names another URL: the `canonical-mismatch` test. */
function canonicalElsewhere(r: PageRecord): boolean {
  return r.meta.canonical !== null && r.finalUrl !== null && documentKey(r.meta.canonical) !== documentKey(r.finalUrl);
}

/** The rules about one record alone; link rules take the URL's referrer list from `refs`. */
function recordIssues(r: PageRecord, add: AddIssue, refs: ReferrerLists, slowMs: number, budget: Budget | null): void {
  const chainRule = (): void => {
    const hops = r.redirectChain.length;
    if (hops > 1) add('redirect-chain', r.url, `${hops} redirects: ${[...r.redirectChain.map((h) => h.url), r.finalUrl ?? '?'].join(' → ')}`, refs.of(r.url));
  };
  if (!isPage(r)) {
    // A redirect record is no page, but its chain is still the links' detour.
    if (r.redirect) chainRule();
    return;
  }
  const html = r.status !== null && r.status < 400 && r.error === null && r.title !== null;
  const neverEnds = r.error?.code === 'network' && /TOO_MANY_REDIRECTS/.test(r.error.message);
  if (neverEnds) add('redirect-loop', r.url, redirectsNeverEnd(r), refs.of(r.url));
  else if (isBotWall(r)) add('blocked', r.url, blockedWhy(r), refs.of(r.url));
  else if (r.error) add('broken-link', r.url, `${r.error.code}: ${r.error.message}`, refs.of(r.url));
  else if (r.status !== null && r.status >= 400) add('broken-link', r.url, `HTTP ${r.status}`, refs.of(r.url));
  else if (r.soft404) add('broken-link', r.url, 'soft 404: answers 200 but renders a "not found" screen', refs.of(r.url));
  if (r.status !== null && r.status >= 500) add('server-error', r.url, `HTTP ${r.status}`);
  // The hops of redirects that never end are that finding's detail, not a chain of their own.
  if (!neverEnds) chainRule();
  for (const e of r.pageErrors) add('js-error', r.url, e);
  if (r.consoleErrors.length) add('console-error', r.url, consoleErrorsText(r.consoleErrors));
  // Raised while click discovery worked the page: their own findings, by control.
  for (const i of clickErrorIssues(r)) add(i.rule, r.url, i.message, undefined, i.subject);
  for (const f of r.failedRequests) add('failed-request', r.url, `${f.resourceType} ${f.url}: ${f.status ?? f.failure ?? 'failed'}`);
  for (const m of r.mixedContent) add('mixed-content', r.url, mixedContentText(m));
  if (!html || r.skipped) return;
  if (!r.title) add('missing-title', r.url, 'the page has no title');
  else if (r.title.length > 60) add('long-title', r.url, `title has ${r.title.length} characters: ${r.title}`);
  if (r.meta.description === null || r.meta.description.trim() === '') add('missing-description', r.url, 'no <meta name="description">');
  if (r.meta.h1Count === 0) add('missing-h1', r.url, 'no <h1>');
  if (r.meta.h1Count > 1) add('multiple-h1', r.url, `${r.meta.h1Count} <h1> elements`);
  if (r.meta.canonical && canonicalElsewhere(r)) {
    add('canonical-mismatch', r.url, `canonical is ${r.meta.canonical}, page is ${r.finalUrl}`);
  }
  if (r.noindex) add('noindex', r.url, 'noindex');
  pageRuleIssues(r, (rule, url, message, subject) => add(rule, url, message, undefined, subject), budget);
  // What the servers did, not when the page went quiet: settle time mostly measures the
  // crawler's own CPU contention at high concurrency. Records from before serverWaitMs have none.
  const wait = r.timings.serverWaitMs ?? null;
  if (wait !== null && wait > slowMs) {
    add('slow-page', r.url, `waited ${wait} ms for servers to answer (threshold ${slowMs} ms; main document's first byte at ${r.timings.ttfb ?? '?'} ms)`);
  }
}

/**
 * Compute the audit issues of a crawl from its records alone, so `export` of a stored crawl
 * gives the same report as the crawl did. Link rules name every referrer with its anchor text,
 * taken from the other records' `linkDetails`.
 *
 * The records are read in passes, never held: (1) the rules of each record alone, title counts,
 * what the link checks found; (2) the referrers of the URLs with a link issue, the pages of the
 * titles seen twice, the anchors of fragment targets; (3) only when records have fragment links
 * (`--check-fragments`), those links. Memory grows with the issues found, not with the records.
 * @param records - an array, or a re-readable source such as a JSON Lines file read back
 *   ({@link RecordSource}); a one-shot iterator is read into memory first
 */
export function audit(records: Iterable<PageRecord>, opts: AuditOptions = {}): AuditResult {
  const src = reReadable(records);
  const slowMs = opts.slowMs ?? 3000;
  const ignore = opts.ignore ?? [];
  const issues: AuditIssue[] = [];
  const refs = new ReferrerLists();
  const add: AddIssue = (rule, url, message, list, subject) => {
    const issue: AuditIssue = { rule, severity: RULES[rule].severity, url, message, referrers: list ?? [], ignored: ignore.some((re) => re.test(url)) };
    if (subject !== undefined) issue.subject = subject;
    issues.push(issue);
  };
  const titles = new DuplicateTitles();
  const checks = new LinkCheckIssues();
  for (const r of src) {
    recordIssues(r, add, refs, slowMs, opts.budget ?? null);
    const title = judgedTitle(r);
    if (title !== null) titles.count(title);
    checks.read(r);
  }
  checks.external(add, refs);
  for (const r of src) {
    refs.read(r);
    const title = judgedTitle(r);
    if (title !== null) titles.collect(title, r.url, r.finalUrl ?? r.url);
    checks.readTarget(r);
  }
  titles.issues(add);
  checks.insecure(add);
  checks.fragments(src, add);
  issues.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.rule.localeCompare(b.rule) || a.url.localeCompare(b.url));
  const counts: Partial<Record<RuleId, number>> = {};
  for (const i of issues) if (!i.ignored) counts[i.rule] = (counts[i.rule] ?? 0) + 1;
  return { issues, counts };
}

/**
 * The document a URL names, for comparing two spellings of it: WHATWG-parsed (scheme and host
 * case, default port, dot segments), fragment dropped, and percent-encoding normalized in path
 * and query (RFC 3986 §6.2.2.1–2: `%c3%a9` is `%C3%A9`, `%7E` is `~`). Query order and
 * parameters are kept: to a server they are a different URL.
 */
function documentKey(u: string): string {
  try {
    const x = new URL(u);
    return `${x.origin}${normalizePercent(x.pathname + x.search)}`;
  } catch {
    return u;
  }
}

/**
 * `true` when a `--fail-on` list fails on every error- and warning-level rule: it has
 * `warnings`, or `new` (every new finding of those rules, against a baseline).
 */
export function failsOnEveryWarning(failOn: readonly string[]): boolean {
  return failOn.includes('warnings') || failOn.includes('new');
}

/**
 * The `--fail-on` decision.
 * @param failOn - rule ids, or `none`; `warnings` (or `new`, see {@link failsOnEveryWarning}) adds every error- and warning-level rule
 * @returns the non-ignored issues that fail the build
 */
export function failingIssues(result: AuditResult, failOn: readonly string[]): AuditIssue[] {
  if (failOn.includes('none')) return [];
  const wanted = new Set(failOn);
  const warnings = failsOnEveryWarning(failOn);
  return result.issues.filter((i) => !i.ignored && (wanted.has(i.rule) || (warnings && i.severity !== 'notice')));
}

/**
 * What the `redirect-loop` finding says of a record whose redirects never ended: the loop (the
 * hops up to the first URL seen again), or, when no URL came back, that there were too many
 * (Chromium gives up after 20), with the hops the crawl saw (`redirectChain`).
 */
export function redirectsNeverEnd(r: Pick<PageRecord, 'redirectChain' | 'error'>): string {
  const urls = r.redirectChain.map((h) => h.url);
  const seen = new Map<string, number>();
  for (let i = 0; i < urls.length; i++) {
    const first = seen.get(urls[i]!);
    if (first !== undefined) return `a redirect loop: ${urls.slice(first, i + 1).join(' → ')}`;
    seen.set(urls[i]!, i);
  }
  if (urls.length > 0) return `redirects never end: ${urls.length} without an end, ${urls[0]} → … → ${urls[urls.length - 1]}`;
  return `redirects never end (${r.error?.message ?? 'ERR_TOO_MANY_REDIRECTS'})`;
}
