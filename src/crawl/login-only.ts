/**
 * A login without a crawl (`spacrawl login`): run the recipe the way a crawl's first login runs
 * it (same browser settings, same judging of a failed login, up to 3 attempts) and hand back the
 * storage state, for `--storage-state` of later crawls or workers.
 * @module
 */
import { LoginEnv } from '../browser/login/env.js';
import type { StorageState } from '../browser/login/perform.js';
import { loadLoginRecipe, functionRecipe } from '../browser/login/recipe.js';
import { BrowserSession } from '../browser/session.js';
import { Secrets } from '../model/secrets.js';
import { Scope } from '../url/scope.js';
import { LoggedOutRules } from './logged-out.js';
import { CRAWL_LIMITS } from './option-table.js';
import { OptionsError, resolveOptions, type CrawlOptions } from './options.js';
import { SessionGuard } from './session-guard.js';

/** What {@link loginOnly} produced. */
export interface LoginOnlyResult {
  /** Cookies and local storage of the session; no value that holds a secret. */
  state: StorageState;
  /** The secrets the recipe read (to check output against; never to be written). */
  secrets: Secrets;
}

/**
 * Log in once with `options.login`, the first seed as the recipe's `baseUrl`.
 * @throws OptionsError without `login`; LoginRecipeError (usage) for a recipe that cannot be
 * loaded or a missing variable; LoginError after 3 failed logins; BrowserNotFoundError
 */
export async function loginOnly(options: CrawlOptions): Promise<LoginOnlyResult> {
  const o = resolveOptions(options);
  if (!o.login) throw new OptionsError('--login FILE is needed');
  const env = new LoginEnv(options.loginEnv ?? process.env);
  const recipe = typeof o.login === 'string' ? await loadLoginRecipe(o.login, env) : functionRecipe(o.login);
  const scope = new Scope(o.seeds, { mode: o.scope, include: o.include, exclude: o.exclude, normalize: o.normalize });
  const notice = options.onNotice ?? ((): void => {});
  const secrets = new Secrets();
  const session = new BrowserSession(o, {
    ...(options.browser ? { browser: options.browser } : {}),
    headerScope: (url) => scope.inScope(url),
    onNotice: (m) => notice(secrets.redact(m)),
  });
  await session.launch();
  try {
    await session.start();
    const guard = new SessionGuard({
      session,
      recipe,
      rules: new LoggedOutRules(o.loggedOut),
      env,
      secrets,
      baseUrl: o.seeds[0]!,
      timeoutMs: CRAWL_LIMITS.loginTimeoutMs,
      check: async () => null,
      notice: (m) => notice(m),
      remark: (m) => notice(m),
      event: () => {},
    });
    await guard.start();
    return { state: guard.state!, secrets };
  } finally {
    await session.close();
  }
}
