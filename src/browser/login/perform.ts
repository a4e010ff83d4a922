/**
 * One login: run a recipe in a fresh page, then take what it left (the storage state) and what
 * it ended on (the landing page), which the crawl's session guard judges.
 * @module
 */
import type { BrowserContext, Page } from 'playwright';
import type { Secrets } from '../../model/secrets.js';
import { withTimeout } from '../timeout.js';
import type { LoginEnv } from './env.js';
import type { LoginRecipe } from './recipe.js';

/** Cookies and local storage, as Playwright's `BrowserContext.storageState()` gives them (and `newContext({ storageState })` takes them). */
export type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/** What a page shows, as the logged-out rules read it. */
export interface PageLook {
  /** The page's URL. */
  url: string;
  /** The main document's HTTP status, or `null`. */
  status: number | null;
  /** The URLs the main document was redirected through before `url` (HTTP and client hops). */
  hops: string[];
  /** Which of the asked CSS selectors match a rendered (not `display: none`, non-empty) element. */
  selectors: string[];
  /** A rendered `<input type="password">` is on the page. */
  passwordField: boolean;
}

/** What one login produced. */
export interface LoginAttempt {
  /** The session: cookies and local storage (values containing a secret removed). */
  state: StorageState;
  /**
   * Where the login started: the page that sent the first form or script request other than
   * GET (the login form's page), else the first document the recipe opened; `null` when it
   * opened none.
   */
  startUrl: string | null;
  /** The page the login ended on. */
  landing: PageLook;
  /**
   * The landing page opened again without the session's cookies (only when asked): if it then
   * looks logged out, its URL is a page only a logged-in session sees.
   */
  landingWithoutSession: PageLook | null;
}

/** How {@link performLogin} runs. */
export interface PerformOptions {
  /** The crawl's first seed, given to the recipe. */
  baseUrl: string;
  /** The environment the recipe reads (its values become secrets). */
  env: LoginEnv;
  /** Removed from the storage state; the env's values are added to it as they are read. */
  secrets: Secrets;
  /** Cap on the whole recipe (ms). */
  timeoutMs: number;
  /** CSS selectors of a logged-out page (`--logged-out selector:…`), looked for on the landing page. */
  selectors: readonly string[];
  /** Also open the landing page without cookies (see {@link LoginAttempt.landingWithoutSession}). */
  probeLanding: boolean;
}

/**
 * Log in with `recipe` in `context` (a fresh context the caller closes afterwards).
 * @throws the recipe's error (a failed step, a timeout: `CallTimeoutError`), a LoginRecipeError
 * for a missing environment variable
 */
export async function performLogin(context: BrowserContext, recipe: LoginRecipe, o: PerformOptions): Promise<LoginAttempt> {
  const page = await withTimeout(context.newPage(), 15_000, 'opening the login page');
  let startUrl: string | null = null;
  let firstDocument: string | null = null;
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame() && !firstDocument && /^https?:/.test(f.url())) firstDocument = f.url();
  });
  context.on('request', (req) => {
    if (startUrl === null && req.method() !== 'GET' && req.method() !== 'HEAD' && /^https?:/.test(page.url())) startUrl = page.url();
  });
  try {
    await withTimeout(recipe.run(page, context, o.env, o.baseUrl), o.timeoutMs, 'the login');
  } finally {
    o.secrets.add(o.env.values());
  }
  await page.waitForLoadState('load', { timeout: 10_000 }).catch(() => {});
  await page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => {});
  const landing = await look(page, o.selectors, null);
  const state = scrub(await withTimeout(context.storageState(), 10_000, 'reading the storage state'), o.secrets);
  let landingWithoutSession: PageLook | null = null;
  if (o.probeLanding && /^https?:/.test(landing.url)) {
    await context.clearCookies();
    await page.evaluate(() => {
      try {
        localStorage.clear();
        sessionStorage.clear();
      } catch {
        // storage may be off for this origin
      }
    }).catch(() => {});
    const resp = await page.goto(landing.url, { timeout: 30_000, waitUntil: 'load' }).catch(() => null);
    landingWithoutSession = await look(page, o.selectors, resp ? { status: resp.status(), hops: hopsOf(resp) } : null);
  }
  return { state, startUrl: startUrl ?? firstDocument, landing, landingWithoutSession };
}

/** The URLs a response was redirected from, first first. */
function hopsOf(resp: NonNullable<Awaited<ReturnType<Page['goto']>>>): string[] {
  const hops: string[] = [];
  for (let r = resp.request().redirectedFrom(); r; r = r.redirectedFrom()) hops.unshift(r.url());
  return hops;
}

/** What `page` shows now. */
async function look(page: Page, selectors: readonly string[], nav: { status: number; hops: string[] } | null): Promise<PageLook> {
  const seen = await withTimeout(
    page.evaluate((sels) => {
      const shown = (e: Element): boolean => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
      };
      const matched = sels.filter((s) => {
        try {
          return [...document.querySelectorAll(s)].some(shown);
        } catch {
          return false;
        }
      });
      return { matched, password: [...document.querySelectorAll('input[type="password"]')].some(shown) };
    }, [...selectors]),
    10_000,
    'reading the landing page',
  ).catch(() => ({ matched: [] as string[], password: false }));
  return { url: page.url(), status: nav?.status ?? null, hops: nav?.hops ?? [], selectors: seen.matched, passwordField: seen.password };
}

/**
 * The state without any cookie or local-storage item whose value holds a secret (a site that
 * keeps the typed password in a cookie must not get it written into a state file).
 */
export function scrub(state: StorageState, secrets: Secrets): StorageState {
  if (secrets.empty) return state;
  return {
    ...state,
    cookies: state.cookies.filter((c) => !secrets.found(c.value) && !secrets.found(c.name)),
    origins: state.origins.map((o) => ({ ...o, localStorage: o.localStorage.filter((i) => !secrets.found(i.value) && !secrets.found(i.name)) })),
  };
}
