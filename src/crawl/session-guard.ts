/**
 * Keeping a crawl logged in: the first login, noticing that the session ended, logging in
 * again (once at a time, whatever the concurrency; visits wait meanwhile) and telling the page
 * job to visit the page again — without mistaking a page the session may not see (an area of
 * another role that sends it to the login page) for an ended session.
 * @module
 */
import type { LoginEnv } from '../browser/login/env.js';
import { performLogin, type LoginAttempt, type StorageState } from '../browser/login/perform.js';
import type { LoginRecipe } from '../browser/login/recipe.js';
import type { BrowserSession } from '../browser/session.js';
import type { VisitResult } from '../browser/visit.js';
import { InfrastructureError, UsageError } from '../model/errors.js';
import type { Secrets } from '../model/secrets.js';
import type { LoginTotals } from '../model/summary.js';
import type { CrawlEvent } from './events.js';
import type { LoggedOutRules } from './logged-out.js';

/** Failed logins in a row that stop the crawl. */
export const MAX_FAILED_LOGINS = 3;

/** Re-logins one URL may cause; after them it is recorded as it is (a page that always looks logged out). */
export const MAX_RELOGINS_PER_URL = 3;

/**
 * Visits again of a URL that a re-login did not help, while no page has shown the new session
 * logged in yet (it may be another role's page, or the session may not work); then it is
 * recorded as it is.
 */
export const MAX_LOGGED_OUT_RETRIES = 3;

/** The login failed {@link MAX_FAILED_LOGINS} times in a row, or the session ended with no recipe to log in again: the crawl stops (exit 3). */
export class LoginError extends InfrastructureError {
  override readonly code = 'login-failed';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LoginError';
  }
}

/**
 * The end of a failed login's message when the recipe read variables that are not set (it may
 * have meant to fall back, or the variable is missing), e.g. ` (the recipe read APP_PASSWORD,
 * which is not set)`; `''` when it read none.
 */
export function unsetNote(names: readonly string[]): string {
  if (names.length === 0) return '';
  return ` (the recipe read ${names.join(', ')}, which ${names.length === 1 ? 'is' : 'are'} not set)`;
}

/** Logins of a crawl, for the summary. */
export type LoginCounts = LoginTotals;

/** What a {@link SessionGuard} works with. */
export interface GuardParts {
  session: BrowserSession;
  /** How to log in; `null` with only `--storage-state` (an ended session then stops the crawl). */
  recipe: LoginRecipe | null;
  rules: LoggedOutRules;
  env: LoginEnv;
  secrets: Secrets;
  /** The crawl's first seed, given to the recipe. */
  baseUrl: string;
  /** Cap on one login (ms). */
  timeoutMs: number;
  /** Visit a URL with the crawl's session, as a page would be (no discovery, no record), for a session check; `null` when it failed. */
  check: (url: string) => Promise<VisitResult | null>;
  notice: (message: string) => void;
  /** A note the summary keeps. */
  remark: (message: string) => void;
  event: (e: CrawlEvent) => void;
}

/** What the page job does with a logged-out visit. */
export type LoggedOutAction = 'retry' | 'record';

/**
 * The session guard of one crawl. Sessions are numbered (`generation`: 1 after the first
 * login); a visit notes the generation it started with. A logged-out visit of an older
 * generation is simply visited again; one of the current generation is checked against a page
 * known to need the session (the landing page of the login, when it looks logged out without
 * the session's cookies): if that page is still logged in, the visited page is one the session
 * may not see and is recorded as it is; if not, the session ended: log in again, then visit again.
 */
export class SessionGuard {
  private gen = 0;
  private current: StorageState | null = null;
  private running: Promise<void> | null = null;
  private failures = 0;
  private lastFailure = '';
  /** A visit of the current generation was logged in. */
  private verified = false;
  /** A page that needs the session (its visit looks logged out without it), or `null`. */
  private checkUrl: string | null = null;
  private check: { gen: number; startedAt: number; result: Promise<'in' | 'out' | null> } | null = null;
  /** URL → re-logins its logged-out visits caused. */
  private readonly reloginsFor = new Map<string, number>();
  /** URL → visits again after a re-login did not help it. */
  private readonly waitsFor = new Map<string, number>();
  private readonly counts: LoginCounts = { logins: 0, relogins: 0, failedLogins: 0, loggedOutVisits: 0, restricted: 0 };

  constructor(private readonly p: GuardParts) {}

  /** The storage state of the current session (cookies, local storage; values holding a secret removed), or `null` before a login. */
  get state(): StorageState | null {
    return this.current;
  }

  /** The current session's number (0 before the first login). */
  get generation(): number {
    return this.gen;
  }

  /** A copy of the counts. */
  totals(): LoginCounts {
    return { ...this.counts };
  }

  /** The rules (for the visit's `onDocument` and `lookFor`). */
  get rules(): LoggedOutRules {
    return this.p.rules;
  }

  /**
   * Log in before the crawl starts (nothing to do without a recipe).
   * @throws LoginError after {@link MAX_FAILED_LOGINS} failed logins; LoginRecipeError for a missing variable
   */
  async start(): Promise<void> {
    if (this.p.recipe) await this.login(false);
  }

  /** Resolves when no login is under way (visits wait for it before they take a tab). */
  ready(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** A visit of `generation` saw the page as a logged-in session does. */
  loggedIn(generation: number): void {
    if (generation !== this.gen) return;
    this.verified = true;
    this.failures = 0;
  }

  /**
   * A visit of `url` that started with session `generation` and ended at `endedAt` (ms since
   * epoch) was logged out by `rule`: decide whether to visit it again (after logging in again
   * when the session ended) or to record it as it is.
   * @throws LoginError when logging in failed {@link MAX_FAILED_LOGINS} times in a row, or the session ended and there is no recipe
   */
  async loggedOut(url: string, generation: number, endedAt: number, rule: string): Promise<LoggedOutAction> {
    this.counts.loggedOutVisits++;
    this.p.event({ type: 'logged-out', url, rule });
    if (!this.p.recipe) throw new LoginError(this.p.secrets.redact(`the session ended (${url}: ${rule}) and there is no --login recipe to log in again`));
    if (this.running) {
      await this.running;
      return 'retry';
    }
    if (generation < this.gen) return 'retry';
    let ended = false;
    if (this.checkUrl && url !== this.checkUrl) {
      const still = await this.checkSession(generation, endedAt);
      if (generation < this.gen) return 'retry';
      if (still === 'in') return this.restricted(url, rule);
      ended = still === 'out';
    }
    const tried = this.reloginsFor.get(url) ?? 0;
    if (!ended && tried > 0) {
      // Logging in again did not help this page: another role's page, if the session works.
      if (this.verified) return this.restricted(url, rule);
      const waits = (this.waitsFor.get(url) ?? 0) + 1;
      this.waitsFor.set(url, waits);
      return waits <= MAX_LOGGED_OUT_RETRIES ? 'retry' : this.giveUp(url, rule);
    }
    if (tried >= MAX_RELOGINS_PER_URL) return this.giveUp(url, rule);
    this.reloginsFor.set(url, tried + 1);
    await this.relogin(generation);
    return 'retry';
  }

  /** A page that keeps looking logged out: recorded as it is. */
  private giveUp(url: string, rule: string): LoggedOutAction {
    this.p.remark(`some pages kept looking logged out after logging in again: recorded as they are`);
    this.p.notice(`${url} still looks logged out after logging in again (${rule}): recorded as it is`);
    return 'record';
  }

  private restricted(url: string, rule: string): LoggedOutAction {
    this.counts.restricted++;
    this.p.remark('some pages send the logged-in session to the login page (pages of another role?): recorded as redirects');
    this.p.notice(`${url} sends the logged-in session to the login page (${rule}): recorded as it is`);
    return 'record';
  }

  /** Log in again unless another visit already did (or is doing) it for `generation`. */
  private async relogin(generation: number): Promise<void> {
    if (generation < this.gen) return;
    if (this.running) return this.running;
    // The session that ended never showed a logged-in page: that login did not work either.
    if (!this.verified) this.failures++;
    await this.login(true);
  }

  /** Run logins until one works (one at a time: every caller shares the run). */
  private login(relogin: boolean): Promise<void> {
    if (this.running) return this.running;
    const run = this.loginLoop(relogin).finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  private async loginLoop(relogin: boolean): Promise<void> {
    for (;;) {
      if (this.failures >= MAX_FAILED_LOGINS) {
        throw new LoginError(this.p.secrets.redact(`login failed ${MAX_FAILED_LOGINS} times in a row (last: ${this.lastFailure || 'pages still looked logged out after logging in'}); check the recipe and the credentials`));
      }
      let attempt: LoginAttempt | null = null;
      let why: string | null = null;
      try {
        attempt = await this.loginOnce(relogin);
        why = this.p.rules.loginFailed(attempt.landing);
      } catch (err) {
        if (err instanceof UsageError) throw err;
        why = (err instanceof Error ? err.message.split('\n')[0]! : String(err)) + unsetNote(this.p.env.unsetRead());
      }
      if (attempt && !why) {
        this.adopt(attempt, relogin);
        return;
      }
      this.failures++;
      this.counts.failedLogins++;
      this.lastFailure = this.p.secrets.redact(why ?? 'unknown');
      this.p.event({ type: 'login', relogin, ok: false, message: this.lastFailure });
      this.p.notice(`login failed: ${this.lastFailure}`);
      if (this.failures < MAX_FAILED_LOGINS) await new Promise((r) => setTimeout(r, 500 * this.failures));
    }
  }

  private async loginOnce(relogin: boolean): Promise<LoginAttempt> {
    const context = await this.p.session.openLoginContext();
    try {
      return await performLogin(context, this.p.recipe!, {
        baseUrl: this.p.baseUrl,
        env: this.p.env,
        secrets: this.p.secrets,
        timeoutMs: this.p.timeoutMs,
        selectors: this.p.rules.selectors,
        probeLanding: !relogin && this.gen === 0,
      });
    } finally {
      await context.close().catch(() => {});
    }
  }

  /** Take a working login's session. */
  private adopt(attempt: LoginAttempt, relogin: boolean): void {
    if (this.gen === 0) {
      this.p.rules.setLoginPage(attempt.startUrl);
      const without = attempt.landingWithoutSession;
      if (without && this.p.rules.judgeLook(without, attempt.landing.url)) this.checkUrl = attempt.landing.url;
    }
    this.p.session.adoptSession(attempt.state);
    this.current = attempt.state;
    this.gen++;
    this.verified = false;
    this.counts.logins++;
    if (relogin) this.counts.relogins++;
    this.p.event({ type: 'login', relogin, ok: true, message: null });
    this.p.notice(relogin ? `logged in again (session ${this.gen})` : `logged in${this.checkUrl ? `; session check page: ${this.p.secrets.redact(this.checkUrl)}` : ''}`);
  }

  /**
   * Is session `generation` still logged in? Visits the check page, started no earlier than
   * `after` (a check started before the logged-out visit ended proves nothing about it, unless it
   * found the session logged out).
   * @returns `in`, `out`, or `null` when the check page could not be visited
   */
  private async checkSession(generation: number, after: number): Promise<'in' | 'out' | null> {
    for (;;) {
      const c = this.check;
      if (c && c.gen === generation) {
        if (c.startedAt >= after) return c.result;
        const r = await c.result;
        if (r === 'out') return r;
        if (this.check !== c) continue;
      }
      const url = this.checkUrl!;
      const result = this.p.check(url).then((res) => {
        if (!res || res.status === null) return null;
        if (this.p.rules.judge(res, url)) return 'out' as const;
        this.loggedIn(generation);
        return 'in' as const;
      });
      this.check = { gen: generation, startedAt: Date.now(), result };
      return result;
    }
  }
}
