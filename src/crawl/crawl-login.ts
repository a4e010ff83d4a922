/**
 * The login of one crawl, put together: the recipe (a file or a function), whether the crawl is
 * logged in (a recipe or a storage state: then sign-out URLs are never requested), the browser's
 * request guard for sign-out URLs, and the session guard that keeps the session alive.
 * @module
 */
import { LoginEnv } from '../browser/login/env.js';
import { functionRecipe, loadLoginRecipe, type LoginRecipe } from '../browser/login/recipe.js';
import type { BrowserSession } from '../browser/session.js';
import type { RequestGuard } from '../browser/tab.js';
import type { VisitResult } from '../browser/visit.js';
import type { Secrets } from '../model/secrets.js';
import { isLogoutUrl, logoutUrlPatterns } from '../url/logout.js';
import type { CrawlEvent } from './events.js';
import { LoggedOutRules } from './logged-out.js';
import { CRAWL_LIMITS } from './option-table.js';
import type { ResolvedCrawlOptions } from './options.js';
import { SessionGuard } from './session-guard.js';

/** What a crawl's login needs from the crawl. */
export interface CrawlLoginHooks {
  /** The secrets of the crawl: every value the recipe reads joins them. */
  secrets: Secrets;
  /** Events (logins, refused sign-out requests). */
  event: (e: CrawlEvent) => void;
  notice: (message: string) => void;
  remark: (message: string) => void;
}

/**
 * The login of one crawl before its browser starts: the recipe is loaded (a file is checked
 * now, so that a bad one stops the crawl before anything opens).
 */
export class CrawlLogin {
  private constructor(
    private readonly o: ResolvedCrawlOptions,
    private readonly hooks: CrawlLoginHooks,
    private readonly env: LoginEnv,
    /** How to log in, or `null` (no `login`; maybe a storage state). */
    readonly recipe: LoginRecipe | null,
  ) {}

  /**
   * @param loginEnv - the environment the recipe reads (default `process.env`)
   * @throws LoginRecipeError (usage) for a recipe file that cannot be used
   */
  static async prepare(o: ResolvedCrawlOptions, loginEnv: Readonly<Record<string, string | undefined>> | undefined, hooks: CrawlLoginHooks): Promise<CrawlLogin> {
    const env = new LoginEnv(loginEnv ?? process.env);
    const recipe = typeof o.login === 'string' ? await loadLoginRecipe(o.login, env) : o.login ? functionRecipe(o.login) : null;
    return new CrawlLogin(o, hooks, env, recipe);
  }

  /** The crawl is logged in (a recipe, or a storage state): sign-out URLs are never requested. */
  get loggedIn(): boolean {
    return this.recipe !== null || this.o.storageState !== null;
  }

  /** The browser's guard against sign-out requests (any request whose URL says log out), or `null` when not logged in. */
  requestGuard(): RequestGuard | null {
    if (!this.loggedIn) return null;
    return { patterns: logoutUrlPatterns(), blocks: isLogoutUrl, onBlocked: (url) => this.hooks.event({ type: 'logout-blocked', url: this.hooks.secrets.redact(url) }) };
  }

  /**
   * The session guard of a logged-in crawl, after its first login (`null` when not logged in).
   * @param check - visits a page with the crawl's session for a session check
   * @throws LoginError after 3 failed logins in a row
   */
  async start(session: BrowserSession, check: (url: string) => Promise<VisitResult | null>): Promise<SessionGuard | null> {
    if (!this.loggedIn) return null;
    const guard = new SessionGuard({
      session,
      recipe: this.recipe,
      rules: new LoggedOutRules(this.o.loggedOut),
      env: this.env,
      secrets: this.hooks.secrets,
      baseUrl: this.o.seeds[0]!,
      timeoutMs: CRAWL_LIMITS.loginTimeoutMs,
      check,
      notice: this.hooks.notice,
      remark: this.hooks.remark,
      event: this.hooks.event,
    });
    await guard.start();
    return guard;
  }
}
