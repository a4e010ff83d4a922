import { normalizePercent } from '../url/normalize.js';
import { isPage, type LinkCheck, type PageRecord } from '../model/record.js';
import type { Budget } from './budget.js';
import { pageRuleIssues } from './page-rules.js';

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
  'duplicate-title': { severity: 'warning', description: 'the same title on different pages' },
  'long-title': { severity: 'notice', description: 'title longer than 60 characters' },
  'missing-description': { severity: 'notice', description: 'no <meta name="description">' },
  'missing-h1': { severity: 'notice', description: 'no <h1>' },
  'multiple-h1': { severity: 'notice', description: 'more than one <h1>' },
  'canonical-mismatch': { severity: 'warning', description: '<link rel="canonical"> names another URL' },
  noindex: { severity: 'notice', description: 'the page asks not to be indexed' },
  'slow-page': {
    severity: 'warning',
    description:
      "the page waited more than --slow ms for servers to answer: each request's start to its first byte (main document, redirects, the page's own requests), overlaps counted once, from the browser's network timings; the page's CPU work and the crawler's own load are not counted",
  },
  'mixed-content': { severity: 'error', description: 'an http: subresource on an https: page' },
  'insecure-link': { severity: 'notice', description: 'an http:// link on an https: page whose https:// form answers the same: link to that instead' },
  'broken-fragment': { severity: 'warning', description: 'a #fragment link whose rendered target page has no element with that id, nor an <a> with that name (--check-fragments)' },
  'a11y-critical': { severity: 'warning', description: 'axe-core found a critical accessibility violation (--a11y): one finding per page, axe rule and state (the page as read, or a state a click revealed)' },
  'a11y-serious': { severity: 'warning', description: 'axe-core found a serious accessibility violation (--a11y)' },
  'a11y-moderate': { severity: 'notice', description: 'axe-core found a moderate accessibility violation (--a11y)' },
  'a11y-minor': { severity: 'notice', description: 'axe-core found a minor accessibility violation (--a11y)' },
  budget: { severity: 'warning', description: 'a page is over a --budget (lcp, cls, tbt, fcp, ttfb, bytes, requests; measured with --vitals)' },
  'unrendered-template': { severity: 'warning', description: 'visible text is an unrendered template or a value that never arrived: {{ … }}, ${…}, [object Object], or undefined, NaN, null standing alone' },
  'hydration-error': { severity: 'warning', description: "the framework's hydration-mismatch message (React, Vue, Svelte, Angular) in the console: the server's HTML and the client's render differ" },
  'stuck-loading': { severity: 'warning', description: 'read at the settle cap with a busy indicator still showing (aria-busy="true", a progressbar without value, a skeleton)' },
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

/** `true` for a bot wall rather than a broken page: 403 with a `cf-mitigated` header, or the non-standard 999. */
function isBotWall(a: { status: number | null; blockedBy: string | null }): boolean {
  return a.status === 999 || (a.status === 403 && a.blockedBy !== null);
}

/**
 * `true` for an off-site link check that says nothing about the link: a bot wall, or a rate
 * limit (429 Too Many Requests, RFC 6585 §4; a check is one request, not retried). A page of the
 * crawl that still answers 429 after its retries (which honour `Retry-After`) is broken.
 */
function isBlockedCheck(c: LinkCheck): boolean {
  return isBotWall(c) || c.status === 429;
}

/** Why a bot wall or a rate-limited check is not a broken link, for issue messages. */
function blockedWhy(a: { status: number | null; blockedBy: string | null }): string {
  if (a.status === 429) return 'HTTP 429: rate-limited, not necessarily broken';
  return `HTTP ${a.status}${a.blockedBy ? ` (${a.blockedBy})` : ''}: a bot wall, not necessarily broken`;
}


/**
 * Compute the audit issues of a crawl from its records alone, so `export` of a stored crawl
 * gives the same report as the crawl did. Link rules name every referrer with its anchor text,
 * taken from the other records' `linkDetails`.
 */
export function audit(records: readonly PageRecord[], opts: AuditOptions = {}): AuditResult {
  const slowMs = opts.slowMs ?? 3000;
  const ignore = opts.ignore ?? [];
  const issues: AuditIssue[] = [];
  const referrers = new Map<string, Referrer[]>();
  for (const r of records) {
    for (const l of r.linkDetails) {
      let list = referrers.get(l.url);
      if (!list) {
        list = [];
        referrers.set(l.url, list);
      }
      if (!list.some((x) => x.url === r.url && x.text === l.text)) list.push({ url: r.url, text: l.text });
    }
  }
  const add = (rule: RuleId, url: string, message: string, withReferrers = false, refs?: Referrer[]): void => {
    issues.push({
      rule,
      severity: RULES[rule].severity,
      url,
      message,
      referrers: refs ?? (withReferrers ? (referrers.get(url) ?? []) : []),
      ignored: ignore.some((re) => re.test(url)),
    });
  };

  const titles = new Map<string, { url: string; page: string }[]>();
  const chainRule = (r: PageRecord): void => {
    const hops = r.redirectChain.length;
    if (hops > 1) add('redirect-chain', r.url, `${hops} redirects: ${[...r.redirectChain.map((h) => h.url), r.finalUrl ?? '?'].join(' → ')}`, true);
  };
  for (const r of records) {
    if (!isPage(r)) {
      // A redirect record is no page, but its chain is still the links' detour.
      if (r.redirect) chainRule(r);
      continue;
    }
    const html = r.status !== null && r.status < 400 && r.error === null && r.title !== null;
    if (r.error?.code === 'network' && /TOO_MANY_REDIRECTS/.test(r.error.message)) add('redirect-loop', r.url, `redirects never end (${r.error.message})`, true);
    else if (isBotWall(r)) add('blocked', r.url, blockedWhy(r), true);
    else if (r.error) add('broken-link', r.url, `${r.error.code}: ${r.error.message}`, true);
    else if (r.status !== null && r.status >= 400) add('broken-link', r.url, `HTTP ${r.status}`, true);
    else if (r.soft404) add('broken-link', r.url, 'soft 404: answers 200 but renders a "not found" screen', true);
    if (r.status !== null && r.status >= 500) add('server-error', r.url, `HTTP ${r.status}`);
    chainRule(r);
    for (const e of r.pageErrors) add('js-error', r.url, e);
    if (r.consoleErrors.length) add('console-error', r.url, `${r.consoleErrors.length} console error(s): ${r.consoleErrors[0]}`);
    for (const f of r.failedRequests) add('failed-request', r.url, `${f.resourceType} ${f.url}: ${f.status ?? f.failure ?? 'failed'}`);
    for (const m of r.mixedContent) add('mixed-content', r.url, `http: subresource on an https: page: ${m}`);
    if (!html || r.skipped) continue;
    if (!r.title) add('missing-title', r.url, 'the page has no title');
    else {
      if (r.title.length > 60) add('long-title', r.url, `title has ${r.title.length} characters: ${r.title}`);
      // Keyed by the page reached: a redirect's record and its target's are one page.
      const page = r.finalUrl ?? r.url;
      const list = titles.get(r.title) ?? [];
      if (!list.some((x) => x.page === page)) list.push({ url: r.url, page });
      titles.set(r.title, list);
    }
    if (r.meta.description === null || r.meta.description.trim() === '') add('missing-description', r.url, 'no <meta name="description">');
    if (r.meta.h1Count === 0) add('missing-h1', r.url, 'no <h1>');
    if (r.meta.h1Count > 1) add('multiple-h1', r.url, `${r.meta.h1Count} <h1> elements`);
    if (r.meta.canonical && r.finalUrl && documentKey(r.meta.canonical) !== documentKey(r.finalUrl)) {
      add('canonical-mismatch', r.url, `canonical is ${r.meta.canonical}, page is ${r.finalUrl}`);
    }
    if (r.noindex) add('noindex', r.url, 'noindex');
    pageRuleIssues(r, add, opts.budget ?? null);
    // What the servers did, not when the page went quiet: settle time mostly measures the
    // crawler's own CPU contention at high concurrency. Records from before serverWaitMs have none.
    const wait = r.timings.serverWaitMs ?? null;
    if (wait !== null && wait > slowMs) {
      add('slow-page', r.url, `waited ${wait} ms for servers to answer (threshold ${slowMs} ms; main document's first byte at ${r.timings.ttfb ?? '?'} ms)`);
    }
  }
  for (const [title, pages] of titles) {
    if (pages.length < 2) continue;
    for (const p of pages) add('duplicate-title', p.url, `title "${title}" is also used by ${pages.filter((x) => x !== p).map((x) => x.page).join(', ')}`);
  }
  linkCheckIssues(records, add);
  issues.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.rule.localeCompare(b.rule) || a.url.localeCompare(b.url));
  const counts: Partial<Record<RuleId, number>> = {};
  for (const i of issues) if (!i.ignored) counts[i.rule] = (counts[i.rule] ?? 0) + 1;
  return { issues, counts };
}

/**
 * The rules fed by what the crawl checked outside pages, all from the records alone:
 * - `broken-link` / `blocked` for off-site links (`linkChecks` of kind `link` whose URL is in the
 *   page's `externalLinks`), one issue per URL, with every referrer;
 * - `insecure-link`: an `http://` link of an `https:` page whose check and whose `https://` form's
 *   check answered the same status below 400; referrers are the `https:` pages with that link;
 * - `broken-fragment`: a `fragmentLinks` entry whose target record was rendered (`anchors` is not
 *   `null`, no error, status < 400, not a soft 404) and has no such id or name. `#top` needs none
 *   (browsers scroll to the top). The issue's URL is the target with its fragment.
 */
function linkCheckIssues(
  records: readonly PageRecord[],
  add: (rule: RuleId, url: string, message: string, withReferrers?: boolean, refs?: Referrer[]) => void,
): void {
  const external = new Map<string, LinkCheck>();
  const insecure = new Map<string, { check: LinkCheck; refs: Referrer[] }>();
  const fragments = new Map<string, { url: string; fragment: string; refs: Referrer[] }>();
  const byUrl = new Map<string, PageRecord>();
  for (const r of records) if (isPage(r) && !byUrl.has(r.url)) byUrl.set(r.url, r);
  const pushRef = (refs: Referrer[], ref: Referrer): void => {
    if (!refs.some((x) => x.url === ref.url && x.text === ref.text)) refs.push(ref);
  };
  for (const r of records) {
    if (!isPage(r)) continue;
    const checks = r.linkChecks ?? [];
    const offsite = new Set(r.externalLinks);
    const httpsForms = new Map(checks.filter((c) => c.kind === 'https-form').map((c) => [c.url, c]));
    const secure = (r.finalUrl ?? r.url).startsWith('https:');
    for (const c of checks) {
      if (c.kind !== 'link') continue;
      if (offsite.has(c.url) && !external.has(c.url)) external.set(c.url, c);
      if (!secure || !c.url.startsWith('http:') || c.status === null) continue;
      const upgraded = httpsForms.get(`https:${c.url.slice('http:'.length)}`);
      // The same answer, and a working one: an upgrade of a broken link is no fix.
      if (!upgraded || upgraded.status !== c.status || c.status >= 400) continue;
      let e = insecure.get(c.url);
      if (!e) {
        e = { check: upgraded, refs: [] };
        insecure.set(c.url, e);
      }
      for (const l of r.linkDetails) if (l.url === c.url) pushRef(e.refs, { url: r.url, text: l.text });
    }
    for (const f of r.fragmentLinks ?? []) {
      const target = byUrl.get(f.url);
      if (!target || target.anchors === null || target.anchors === undefined) continue;
      if (target.error || target.soft404 || target.status === null || target.status >= 400) continue;
      if (target.anchors.includes(f.fragment) || f.fragment.toLowerCase() === 'top') continue;
      const key = `${f.url}#${f.fragment}`;
      let e = fragments.get(key);
      if (!e) {
        e = { url: f.url, fragment: f.fragment, refs: [] };
        fragments.set(key, e);
      }
      pushRef(e.refs, { url: r.url, text: f.text });
    }
  }
  for (const [url, c] of external) {
    const how = `off-site, checked with ${c.method}`;
    if (isBlockedCheck(c)) add('blocked', url, `${blockedWhy(c)} (${how})`, true);
    else if (c.error) add('broken-link', url, `${c.error.code}: ${c.error.message} (${how})`, true);
    else if (c.status !== null && c.status >= 400) add('broken-link', url, `HTTP ${c.status} (${how})`, true);
  }
  for (const [url, e] of insecure) {
    add('insecure-link', url, `http:// link on an https: page; ${e.check.url} answers ${e.check.status} too: link to it instead`, false, e.refs);
  }
  for (const [key, e] of fragments) {
    add('broken-fragment', key, `${e.url} has no element with id "${e.fragment}" (nor an <a name="${e.fragment}">)`, false, e.refs);
  }
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
 * The `--fail-on` decision.
 * @param failOn - rule ids, or `none`; `warnings` adds every error- and warning-level rule
 * @returns the non-ignored issues that fail the build
 */
export function failingIssues(result: AuditResult, failOn: readonly string[]): AuditIssue[] {
  if (failOn.includes('none')) return [];
  const wanted = new Set(failOn);
  return result.issues.filter((i) => !i.ignored && (wanted.has(i.rule) || (wanted.has('warnings') && i.severity !== 'notice')));
}
