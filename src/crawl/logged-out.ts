/**
 * When a visit is logged out: the `--logged-out` rules. `url:REGEX` (a redirect to a URL that
 * matches: the login page), `selector:CSS` (a rendered element that matches: a login form),
 * `status:N` (the page answers N, e.g. 401). Without rules: a redirect to the page where the
 * login started. Decided from what a visit saw: its redirect hops and client-side navigations
 * as they happen (so the login page is never requested), then its final status, URL and DOM.
 * @module
 */
import type { DocumentDecision, DocumentResponse, VisitResult } from '../browser/visit.js';
import type { PageLook } from '../browser/login/perform.js';
import { UsageError } from '../model/errors.js';

/** A `--logged-out` value that is not a rule (the CLI exits 2). */
export class LoggedOutRuleError extends UsageError {
  readonly code = 'bad-option';
  constructor(message: string) {
    super(message);
    this.name = 'LoggedOutRuleError';
  }
}

/** One parsed `--logged-out` rule. */
export type LoggedOutRule = { kind: 'url'; pattern: RegExp; text: string } | { kind: 'selector'; selector: string; text: string } | { kind: 'status'; status: number; text: string };

/**
 * Parse `--logged-out` values.
 * @throws LoggedOutRuleError for a value that is not `url:REGEX`, `selector:CSS` or `status:N` (N from 400 to 599), or a regex that does not compile
 */
export function parseLoggedOutRules(values: readonly string[]): LoggedOutRule[] {
  return values.map((v) => {
    const m = /^(url|selector|status):(.+)$/s.exec(v.trim());
    if (!m) throw new LoggedOutRuleError(`--logged-out ${JSON.stringify(v)}: expected url:REGEX, selector:CSS or status:N`);
    const [, kind, arg] = m as unknown as [string, 'url' | 'selector' | 'status', string];
    if (kind === 'url') {
      try {
        return { kind, pattern: new RegExp(arg), text: v };
      } catch (err) {
        throw new LoggedOutRuleError(`--logged-out ${JSON.stringify(v)}: not a valid regex (${err instanceof Error ? err.message : String(err)})`);
      }
    }
    if (kind === 'status') {
      const n = Number(arg);
      if (!Number.isInteger(n) || n < 400 || n > 599) throw new LoggedOutRuleError(`--logged-out ${JSON.stringify(v)}: the status must be a number from 400 to 599`);
      return { kind, status: n, text: v };
    }
    return { kind, selector: arg, text: v };
  });
}

/** Origin and path of a URL (the login page's identity: its query, e.g. `?next=/x`, varies). */
function pageOf(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}

/**
 * The logged-out test of one crawl: the rules given, or (none given) a redirect to the page
 * where the login started.
 */
export class LoggedOutRules {
  private loginPage: string | null = null;

  /** @param rules - parsed `--logged-out` values (empty: the default rule) */
  constructor(private readonly rules: readonly LoggedOutRule[]) {}

  /** The CSS selectors visits must look for. */
  get selectors(): string[] {
    return this.rules.flatMap((r) => (r.kind === 'selector' ? [r.selector] : []));
  }

  /** `true` when the rules can say anything (rules given, or the default rule has its login page). */
  get active(): boolean {
    return this.rules.length > 0 || this.loginPage !== null;
  }

  /** Where the login started (the default rule's target); its query is ignored. */
  setLoginPage(url: string | null): void {
    this.loginPage = url ? pageOf(url) : null;
  }

  /** The rule a URL the browser is sent to matches (a redirect target, a client-side navigation), or `null`. */
  private targetRule(url: string): string | null {
    if (this.rules.length === 0) return this.loginPage !== null && pageOf(url) === this.loginPage ? 'a redirect to the login page' : null;
    for (const r of this.rules) if (r.kind === 'url' && r.pattern.test(url)) return r.text;
    return null;
  }

  /**
   * Decide a document response of a visit (see `VisitOptions.onDocument`): a redirect to the
   * login page, or a client-side navigation there, is stopped (never requested or rendered).
   * @returns `{ stop: 'logged-out' }`, or `null` to let the other rules decide
   */
  onDocument(doc: DocumentResponse): DocumentDecision | null {
    const target = doc.location ?? (doc.initial ? null : doc.url);
    if (target === null) return null;
    return this.targetRule(target) ? { stop: 'logged-out' } : null;
  }

  /**
   * Whether a finished visit was logged out, and by which rule.
   * @returns the rule's text, or `null` when the visit saw the page as a logged-in session would
   */
  judge(res: VisitResult, requestedUrl: string): string | null {
    if (res.stopped?.reason === 'logged-out') return this.targetRule(res.stopped.target) ?? 'a redirect to the login page';
    for (const r of this.rules) {
      if (r.kind === 'status' && res.status === r.status) return r.text;
      if (r.kind === 'selector' && res.selectorsFound.includes(r.selector)) return r.text;
    }
    // A page that moved itself there without a new document (pushState to /login).
    if (res.finalUrl && pageOf(res.finalUrl) !== pageOf(requestedUrl)) return this.targetRule(res.finalUrl);
    return null;
  }

  /**
   * Whether a page opened outside a visit (the landing page without the session's cookies) looks
   * logged out as a visit of `requestedUrl` would be judged.
   */
  judgeLook(look: PageLook, requestedUrl: string): string | null {
    for (const r of this.rules) {
      if (r.kind === 'status' && look.status === r.status) return r.text;
      if (r.kind === 'selector' && look.selectors.includes(r.selector)) return r.text;
    }
    for (const url of [...look.hops.slice(1), look.url]) {
      if (pageOf(url) === pageOf(requestedUrl)) continue;
      const rule = this.targetRule(url);
      if (rule) return rule;
    }
    return null;
  }

  /**
   * Whether the page a login ended on says the login failed: a rule matches it (its URL for
   * `url:` rules, its DOM for `selector:` rules); without rules, it still shows a password field.
   */
  loginFailed(landing: PageLook): string | null {
    if (this.rules.length === 0) return landing.passwordField ? 'the page it ended on still shows a password field' : null;
    for (const r of this.rules) {
      if (r.kind === 'url' && r.pattern.test(landing.url)) return `the page it ended on matches ${r.text}`;
      if (r.kind === 'selector' && landing.selectors.includes(r.selector)) return `the page it ended on matches ${r.text}`;
    }
    return null;
  }
}
