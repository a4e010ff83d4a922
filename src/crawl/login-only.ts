/**
 * A login without a crawl (`spacrawl login`): run the recipe the way a crawl's first login runs
 * it (same browser settings, same judging of a failed login, up to 3 attempts) and hand back the
 * storage state, for `--storage-state` of later crawls or workers.
 * @module
 */
import type { StorageState } from '../browser/login/perform.js';
import { BrowserSession } from '../browser/session.js';
import { Secrets } from '../model/secrets.js';
import { Scope } from '../url/scope.js';
import { CrawlLogin } from './crawl-login.js';
import { OptionsError, resolveOptions, type CrawlOptions } from './options.js';

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
  const secrets = new Secrets();
  const notice = options.onNotice ?? ((): void => {});
  const login = await CrawlLogin.prepare(o, options.loginEnv, { secrets, event: () => {}, notice: (m) => notice(m), remark: (m) => notice(m) });
  const scope = new Scope(o.seeds, { mode: o.scope, include: o.include, exclude: o.exclude, normalize: o.normalize });
  const session = new BrowserSession(o, {
    ...(options.browser ? { browser: options.browser } : {}),
    headerScope: (url) => scope.inScope(url),
    onNotice: (m) => notice(secrets.redact(m)),
  });
  await session.launch();
  try {
    await session.start();
    const guard = (await login.start(session, async () => null))!;
    return { state: guard.state!, secrets };
  } finally {
    await session.close();
  }
}
