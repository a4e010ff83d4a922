/**
 * The library's crawl options: `CrawlOptions` (one TSDoc per option, checked against the declarations in
 * option-table.ts by test/unit/options.test.ts) and `resolveOptions`. Longer than ~400 lines on purpose: the type
 * is the library's documented surface and reads best as one piece; the declarations and checks live elsewhere.
 * @module
 */
import type { Browser } from 'playwright';
import type { HashRouteMode, NormalizeOptions } from '../url/normalize.js';
import type { ScopeMode } from '../url/scope.js';
import type { Frontier } from '../store/frontier.js';
import { OptionsError } from './options-error.js';
import { checkSeedsNotExcluded } from './excluded-seeds.js';
import { deviceNamed } from './devices.js';
import { maxOf, type OptionSpec } from './option-spec.js';
import { CRAWL_OPTIONS } from './option-table.js';
import type { AssetLoading } from '../browser/asset-placeholders.js';
import type { LoginFunction } from '../browser/login/recipe.js';
import type { CrawlEvent } from './events.js';
import { parseLoggedOutRules, type LoggedOutRule } from './logged-out.js';

/** Default `--max-pages`: navigations started in all (a budget against infinite URL spaces). */
export const DEFAULT_MAX_PAGES: number = CRAWL_OPTIONS.maxPages.default;

/**
 * Everything a crawl can be told. Times in milliseconds unless the name says seconds. Each
 * value option is declared in `option-table.ts` (flag, kind, unit, default, help); the
 * `@default`s below are checked against it by `test/unit/options.test.ts`.
 */
export interface CrawlOptions {
  /** Start URLs (absolute http/https). At least one. */
  seeds: string[];
  /** Pages in flight at once (a p-limit semaphore). @default 4 */
  concurrency?: number;
  /**
   * Deepest link distance visited (the fewest link steps from a seed); deeper URLs get
   * `skipped: "budget"`, once no page that could still reach them within it is left. @default Infinity
   */
  maxDepth?: number;
  /** Most navigations started; the rest get `skipped: "budget"`. @default 10000 */
  maxPages?: number;
  /** Wall-clock budget in seconds; when spent the crawl ends like Ctrl-C. @default none */
  maxTimeSeconds?: number;
  /** @default 'host' */
  scope?: ScopeMode;
  /** Include patterns (globs or `/regex/`) on canonical URLs; when given, a URL must match one. @default none */
  include?: string[];
  /** Exclude patterns (globs or `/regex/`) on canonical URLs; exclude wins over include. @default none */
  exclude?: string[];
  /** Hash routes (`#/x`, `#!x`) as pages: `auto` keeps fragments starting with `/` or `!`. @default 'auto' */
  hashRoutes?: HashRouteMode;
  /** Do not strip tracking and session parameters. @default false */
  keepParams?: boolean;
  /** Extra query parameter names to strip (`name` or `prefix*`). @default none */
  stripParams?: string[];
  /** Treat `/docs` and `/docs/` as one page. @default false */
  foldTrailingSlash?: boolean;
  /** Treat `/dir/index.html` and `/dir/` as one page. @default false */
  foldIndex?: boolean;
  /**
   * Click discovery: `auto` clicks navigation chrome (a clickable whose clicks revealed the same
   * links on two pages) on two pages of a site and every other clickable on every page that has
   * it; `all` clicks everything on every page; `off` never clicks. @default 'auto'
   */
  click?: 'auto' | 'all' | 'off';
  /** Most clicks per page. @default 100 */
  clickLimit?: number;
  /** Accessible-name patterns (regex sources) never clicked, on top of the destructive ones. @default none */
  clickExclude?: string[];
  /**
   * Most repeats of one clickable on one page: it is clicked again while each click reveals links
   * not seen before on the page ("Next", "Load more"); 0 clicks each clickable once. @default 20
   */
  clickRepeat?: number;
  /**
   * Scroll each page (the window, then its inner scroll containers) step by step, reading links
   * after every step and waiting for what each step loads (lazy and virtualized lists, feeds). @default false
   */
  scroll?: boolean;
  /** Most scroll steps per scroll area and page (each 90 % of a view; a batch's wait is part of its step). @default 30 */
  scrollLimit?: number;
  /** Probe each origin for its "not found" rendering and flag soft 404s. @default true */
  soft404?: boolean;
  /** Learn parameters that do not change content and skip further variants as duplicates. @default true */
  dedupeContent?: boolean;
  /**
   * Visit a hash route (`#/a`) of a document a tab already shows by changing the hash instead of
   * loading the document again, when it is safe (same document, no `beforeunload` handler, the
   * previous visit was clean, the app reacts to the hash change); else load it. Ignored with
   * `vitals` and `screenshotsDir`. @default true
   */
  hashRouteReuse?: boolean;
  /**
   * Visit another path of an app shell a tab shows (a history-mode single-page app that the
   * server answers with the same HTML for many paths) by asking the server for the path, and,
   * when the answer is that same shell, routing the running app there (`pushState` and
   * `popstate`) instead of loading and booting it again; else load it (see
   * `browser/visit/history-route.ts`). A URL whose answer is not the shell, and the two route
   * visits per origin that are checked against a load, are requested twice, so this is off unless
   * asked for. Ignored with `vitals`, `screenshotsDir` and a login. @default false
   */
  historyRouteReuse?: boolean;
  /**
   * Images, media and web fonts: `placeholder` answers each successful one with a tiny valid
   * stand-in once its response headers are in (never downloaded or decoded; load events fire;
   * an error answer goes through and is reported as before), `load` downloads them. Ignored
   * (everything loads) with `screenshotsDir`, `vitals` or `a11y`, which need the real ones.
   * @default 'placeholder'
   */
  assets?: AssetLoading;
  /** Folder for one full-page PNG per visited page. @default none */
  screenshotsDir?: string | null;
  /** With `screenshotsDir`: `full` shoots the whole page, `viewport` only the first screen. @default 'full' */
  screenshotMode?: 'full' | 'viewport';
  /** With `screenshotsDir`: CSS selectors of elements made invisible in the shot (`visibility: hidden`). @default none */
  hide?: string[];
  /** With `screenshotsDir`: CSS selectors of elements painted as a solid box in the shot (Playwright's `mask`). @default none */
  visualMask?: string[];
  /** Ignore robots.txt entirely. @default false */
  ignoreRobots?: boolean;
  /** Product token matched against robots.txt `User-agent` groups. @default 'spacrawl' */
  robotsAgent?: string;
  /** Follow `rel="nofollow"` links and links of `nofollow` pages. @default false */
  followNofollow?: boolean;
  /** Seed the frontier from robots.txt `Sitemap:` lines (or `/sitemap.xml`). @default false */
  sitemap?: boolean;
  /** User-Agent header. @default browser's own, with `HeadlessChrome` → `Chrome`, plus ` spacrawl/<version>` */
  userAgent?: string | null;
  /** Navigation timeout (ms), up to DOMContentLoaded. @default 30000 */
  timeoutMs?: number;
  /** Cap on waiting for a page to go quiet (ms). @default 5000 */
  settleTimeoutMs?: number;
  /** Quiet window of the settle rule (ms); never below 300. @default 500 */
  quietMs?: number;
  /**
   * Time for one page's clicks (ms); the page's hard deadline includes it. A chain of clicks that
   * keeps revealing links ("Next", "Load more") goes on past it, up to `clickRepeat` steps.
   * @default 30000
   */
  clickBudgetMs?: number;
  /** Page navigations per second per host (host and port). @default none */
  rate?: number | null;
  /** Page navigations in flight per host. @default none (only `concurrency`) */
  perHostConcurrency?: number | null;
  /** Retries of a navigation that failed transiently (network error, timeout without response, 408/425/429/5xx). @default 2 */
  retries?: number;
  /** Cap on a `Retry-After` pause (ms). @default 60000 */
  maxRetryAfterMs?: number;
  /** First retry's backoff (ms); doubles each time, with ±25 % jitter. @default 1000 */
  retryBaseMs?: number;
  /** Most distinct query strings visited on one path before the rest count as a trap. @default 100 */
  maxQueryVariants?: number;
  /** Accept invalid TLS certificates. @default false */
  ignoreHttpsErrors?: boolean;
  /** Viewport in CSS pixels. @default 1280x800 (or the device's, with `device`) */
  viewport?: { width: number; height: number } | null;
  /** A Playwright device name (`iPhone 13`, `Pixel 7` …): its viewport, user agent, touch and scale. @default none */
  device?: string | null;
  /** Browser locale, e.g. `de-DE`. @default none */
  locale?: string | null;
  /** Playwright storage state file (cookies, local storage), e.g. from a login step. @default none */
  storageState?: string | null;
  /** Extra request headers, sent only to in-scope origins (never to CDNs or third parties). @default none */
  headers?: Record<string, string>;
  /**
   * Log in before the crawl: a recipe file (an ES module whose default export is a
   * {@link LoginFunction}, or a Chrome DevTools Recorder JSON export) or a login function. Its
   * storage state becomes the session of every browser context; a visit found logged out (see
   * `loggedOut`) makes it run again and the page is visited again. Sign-out URLs are never
   * requested meanwhile (`skipped: "logout"`). See docs/login.md.
   * @default none
   */
  login?: string | LoginFunction | null;
  /**
   * When a visit is logged out: `url:REGEX` (redirected to a matching URL), `selector:CSS` (a
   * rendered element matches) or `status:N` (400–599). Used with `login` or `storageState`.
   * @default none (a redirect to the page where the login started)
   */
  loggedOut?: string[];
  /** Grace period for in-flight pages on cancellation (ms). @default 3000 */
  graceMs?: number;
  /**
   * Contexts are replaced after this many visits. A renderer grows with the pages it renders:
   * on the 2000-page benchmark, 200 gave a 23 % higher memory peak than 50 and was no faster.
   * @default 50
   */
  recycleAfter?: number;
  /** Chromium executable. @default auto: see `locateBrowser()` */
  browserPath?: string | null;
  /** Use this browser instead of launching one (it is not closed at the end). */
  browser?: Browser;
  /**
   * A browser the caller began launching for this crawl, with the crawl's `browserPath` and
   * `proxy` (the CLI starts it as soon as its usage checks pass, so that the launch overlaps the
   * loading of the crawl's modules and the opening of its store). The crawl takes it as its own:
   * it waits for it instead of launching one, relaunches after a crash as usual, and closes it at
   * the end. A rejection is the launch's error (e.g. BrowserNotFoundError). Ignored with `browser`.
   * A crawl that ends before it needs the browser (an error in its login recipe, say) does not
   * close it: the caller closes it then, as the CLI does (closing a closed browser does nothing).
   */
  launching?: Promise<Browser>;
  /** Proxy for all browser traffic (`http://`, `https://`, `socks4://`, `socks5://`). @default none */
  proxy?: string | null;
  /** Frontier store. @default a new MemoryFrontier */
  frontier?: Frontier;
  /**
   * Check every off-site link once (HEAD, then GET when HEAD fails or answers >= 400; 2 requests
   * per host at a time) and keep the answers in the linking pages' `linkChecks`; off-site
   * `http://` links of `https:` pages are also probed for `insecure-link`. Never crawled further.
   * @default false
   */
  checkExternal?: boolean;
  /** Record each page's ids and names (`anchors`) and its `#fragment` links (`fragmentLinks`) for `broken-fragment`. @default false */
  checkFragments?: boolean;
  /**
   * Run axe-core on every rendered page, and on each state a click revealed, into the records'
   * `a11y` (the `a11y-*` rules). @default false
   */
  a11y?: boolean;
  /** axe-core tags to run with `a11y` (axe-core's tag names: WCAG 2.0, 2.1, 2.2, levels A and AA). @default wcag2a,wcag2aa,wcag21a,wcag21aa,wcag22aa */
  a11yTags?: string[];
  /** Measure Core Web Vitals and page weight into the records' `vitals` (the `budget` rule). @default false */
  vitals?: boolean;
  /**
   * With `vitals`: measure each page alone, at most this many at once, while no other page is
   * loaded or worked on (see `MeasureGate`); ignored without `vitals`. @default none (pages are measured as they are crawled)
   */
  vitalsConcurrency?: number | null;
  /**
   * With `vitals`: `mobile` measures under Lighthouse's mobile throttling (CPU 4×, 150 ms RTT,
   * 1.6 Mbps down); ignored without `vitals`. @default 'none'
   */
  vitalsThrottle?: 'none' | 'mobile';
  /** Cancels the crawl: no new pages start, in-flight pages get `graceMs`, then records are flushed. */
  signal?: AbortSignal;
  /** Told about things worth a log line (robots.txt problems, browser restarts). */
  onNotice?: (message: string) => void;
  /** Told about each event of the running crawl (records, retries, logins, relaunches …); see {@link CrawlEvent}. */
  onEvent?: (event: CrawlEvent) => void;
  /** The environment a login recipe reads its secrets from. @default process.env */
  loginEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * The process exits once the crawl has returned (the CLI's own process): the browser is then
   * told to close and not waited for (its contexts are not closed one by one). Closing took
   * ~110 ms at the end of every crawl (four contexts, then the browser's exit); what is still
   * running at the process's exit, Playwright's exit hook kills (the browser's process group)
   * and cleans up (its temporary profile folder). @default false (the crawl returns once the
   * browser has closed)
   */
  processExitsAfter?: boolean;
}

/** {@link CrawlOptions} with every default filled in. */
export interface ResolvedCrawlOptions {
  seeds: string[];
  concurrency: number;
  click: 'auto' | 'all' | 'off';
  clickLimit: number;
  clickExclude: string[];
  clickRepeat: number;
  scroll: boolean;
  scrollLimit: number;
  soft404: boolean;
  dedupeContent: boolean;
  assets: AssetLoading;
  hashRouteReuse: boolean;
  historyRouteReuse: boolean;
  include: string[];
  exclude: string[];
  normalize: NormalizeOptions;
  robotsAgent: string;
  followNofollow: boolean;
  sitemap: boolean;
  rate: number | null;
  perHostConcurrency: number | null;
  retries: number;
  maxRetryAfterMs: number;
  retryBaseMs: number;
  maxQueryVariants: number;
  ignoreHttpsErrors: boolean;
  viewport: { width: number; height: number } | null;
  device: string | null;
  locale: string | null;
  storageState: string | null;
  headers: Record<string, string>;
  login: string | LoginFunction | null;
  loggedOut: LoggedOutRule[];
  maxDepth: number;
  maxPages: number;
  maxTimeSeconds: number | null;
  scope: ScopeMode;
  screenshotsDir: string | null;
  screenshotMode: 'full' | 'viewport';
  hide: string[];
  visualMask: string[];
  ignoreRobots: boolean;
  userAgent: string | null;
  timeoutMs: number;
  settleTimeoutMs: number;
  quietMs: number;
  clickBudgetMs: number;
  graceMs: number;
  recycleAfter: number;
  browserPath: string | null;
  proxy: string | null;
  checkExternal: boolean;
  checkFragments: boolean;
  a11y: boolean;
  a11yTags: string[];
  vitals: boolean;
  vitalsConcurrency: number | null;
  vitalsThrottle: 'none' | 'mobile';
}

/** Options that are values, declared in {@link CRAWL_OPTIONS} (not the seeds, a browser or its launch, a store, callbacks or how the process ends). */
export type DeclaredOption = Exclude<keyof CrawlOptions, 'seeds' | 'browser' | 'launching' | 'frontier' | 'signal' | 'onNotice' | 'onEvent' | 'loginEnv' | 'processExitsAfter'>;

// The table declares exactly the value options of CrawlOptions: a missing or an extra key fails to compile.
const everyOptionDeclared: Record<DeclaredOption, OptionSpec> = CRAWL_OPTIONS;
const nothingElseDeclared: [Exclude<keyof typeof CRAWL_OPTIONS, DeclaredOption>] extends [never] ? true : false = true;
void everyOptionDeclared;
void nothingElseDeclared;

export { OptionsError };

/** An integer option's declaration. */
type IntegerSpec = OptionSpec & { readonly kind: 'integer'; readonly min: number };

/** Name of an option in error messages: its flag, or its label when it has no flag. */
function nameOf(spec: OptionSpec): string {
  return spec.flag ?? spec.label ?? '?';
}

/**
 * A whole number `>= spec.min` (or `Infinity` where the default is), or the declared default.
 * @throws OptionsError otherwise
 */
function int(spec: IntegerSpec & { readonly default: number }, v: number | undefined): number {
  if (v === undefined) return spec.default;
  return checkInt(spec, v);
}

/** Like {@link int} for an option whose default is "none" (`null`). */
function intOrNull(spec: IntegerSpec & { readonly default: null }, v: number | null | undefined): number | null {
  return v === undefined || v === null ? null : checkInt(spec, v);
}

function checkInt(spec: IntegerSpec, v: number): number {
  const name = nameOf(spec);
  if (!Number.isFinite(v) && v !== Infinity) throw new OptionsError(`${name} must be a number`);
  if (v !== Infinity && !Number.isInteger(v)) throw new OptionsError(`${name} must be a whole number, got ${v}`);
  if (v < spec.min) throw new OptionsError(`${name} must be at least ${spec.min}, got ${v}`);
  const max = maxOf(spec);
  if (max !== undefined && v !== Infinity && v > max) throw new OptionsError(`${name} must be at most ${max}${spec.unit === 'ms' ? ' ms' : spec.unit === 's' ? ' s' : ''}, got ${v}`);
  return v;
}

/**
 * A positive, finite number, or `null` when not given.
 * @throws OptionsError otherwise
 */
function positive(spec: OptionSpec, v: number | null | undefined): number | null {
  if (v === undefined || v === null) return null;
  if (!(v > 0) || !Number.isFinite(v)) throw new OptionsError(`${nameOf(spec)} must be a positive number, got ${v}`);
  return v;
}

/** The value, or the declared default (booleans, strings). */
function or<T>(v: T | undefined, spec: { readonly default: T }): T {
  return v === undefined ? spec.default : v;
}

/**
 * Fill in the declared defaults ({@link CRAWL_OPTIONS}) and check ranges.
 * @throws OptionsError for out-of-range values (e.g. `concurrency: 0`, a negative depth), a bad
 * proxy URL, or no seeds; the message is one line
 */
export function resolveOptions(o: CrawlOptions): ResolvedCrawlOptions {
  if (!o.seeds || o.seeds.length === 0) throw new OptionsError('at least one seed URL is needed');
  const values = resolveValues(o);
  checkSeedsNotExcluded(o.seeds, values);
  return { seeds: [...o.seeds], ...values };
}

/**
 * {@link resolveOptions} for every option but the seeds: the CLI checks a crawl's values with it
 * before it opens a store, also for a worker joining a shared crawl (whose seeds are stored).
 * @throws OptionsError as {@link resolveOptions} does, but never for missing seeds
 */
export function resolveValues(o: Omit<CrawlOptions, 'seeds'>): Omit<ResolvedCrawlOptions, 'seeds'> {
  const S = CRAWL_OPTIONS;
  const maxTime = o.maxTimeSeconds;
  if (maxTime !== undefined && maxTime !== null && !(maxTime > 0)) throw new OptionsError(`max-time must be a positive number of seconds, got ${maxTime}`);
  const maxTimeMax = maxOf(S.maxTimeSeconds)!;
  if (maxTime !== undefined && maxTime !== null && maxTime > maxTimeMax) throw new OptionsError(`max-time must be at most ${maxTimeMax} s, got ${maxTime}`);
  return {
    concurrency: int(S.concurrency, o.concurrency),
    click: o.click ?? S.click.default,
    clickLimit: int(S.clickLimit, o.clickLimit),
    clickExclude: [...(o.clickExclude ?? S.clickExclude.default)],
    clickRepeat: int(S.clickRepeat, o.clickRepeat),
    scroll: or(o.scroll, S.scroll),
    scrollLimit: int(S.scrollLimit, o.scrollLimit),
    soft404: or(o.soft404, S.soft404),
    dedupeContent: or(o.dedupeContent, S.dedupeContent),
    assets: choiceOf(S.assets, o.assets),
    hashRouteReuse: or(o.hashRouteReuse, S.hashRouteReuse),
    historyRouteReuse: or(o.historyRouteReuse, S.historyRouteReuse),
    include: [...(o.include ?? S.include.default)],
    exclude: [...(o.exclude ?? S.exclude.default)],
    normalize: {
      hashRoutes: o.hashRoutes ?? S.hashRoutes.default,
      keepParams: or(o.keepParams, S.keepParams),
      stripParams: [...(o.stripParams ?? S.stripParams.default)],
      foldTrailingSlash: or(o.foldTrailingSlash, S.foldTrailingSlash),
      foldIndex: or(o.foldIndex, S.foldIndex),
    },
    robotsAgent: o.robotsAgent ?? S.robotsAgent.default,
    followNofollow: or(o.followNofollow, S.followNofollow),
    sitemap: or(o.sitemap, S.sitemap),
    rate: positive(S.rate, o.rate),
    perHostConcurrency: intOrNull(S.perHostConcurrency, o.perHostConcurrency),
    retries: int(S.retries, o.retries),
    maxRetryAfterMs: int(S.maxRetryAfterMs, o.maxRetryAfterMs),
    retryBaseMs: int(S.retryBaseMs, o.retryBaseMs),
    maxQueryVariants: int(S.maxQueryVariants, o.maxQueryVariants),
    ignoreHttpsErrors: or(o.ignoreHttpsErrors, S.ignoreHttpsErrors),
    // A device brings its own viewport: the declared one is only the default without a (known) device.
    viewport: o.viewport ?? (o.device && deviceNamed(o.device) ? null : { ...S.viewport.default }),
    device: o.device ?? S.device.default,
    locale: o.locale ?? S.locale.default,
    storageState: o.storageState ?? S.storageState.default,
    headers: { ...(o.headers ?? S.headers.default) },
    login: o.login ?? S.login.default,
    loggedOut: parseLoggedOutRules(o.loggedOut ?? S.loggedOut.default),
    maxDepth: int(S.maxDepth, o.maxDepth),
    maxPages: int(S.maxPages, o.maxPages),
    maxTimeSeconds: maxTime ?? S.maxTimeSeconds.default,
    scope: o.scope ?? S.scope.default,
    screenshotsDir: o.screenshotsDir ?? S.screenshotsDir.default,
    screenshotMode: o.screenshotMode ?? S.screenshotMode.default,
    hide: [...(o.hide ?? S.hide.default)],
    visualMask: [...(o.visualMask ?? S.visualMask.default)],
    ignoreRobots: or(o.ignoreRobots, S.ignoreRobots),
    userAgent: o.userAgent ?? S.userAgent.default,
    timeoutMs: int(S.timeoutMs, o.timeoutMs),
    settleTimeoutMs: int(S.settleTimeoutMs, o.settleTimeoutMs),
    quietMs: Math.max(300, int(S.quietMs, o.quietMs)),
    clickBudgetMs: int(S.clickBudgetMs, o.clickBudgetMs),
    graceMs: int(S.graceMs, o.graceMs),
    recycleAfter: int(S.recycleAfter, o.recycleAfter),
    browserPath: o.browserPath ?? S.browserPath.default,
    proxy: proxyOf(o.proxy),
    checkExternal: or(o.checkExternal, S.checkExternal),
    checkFragments: or(o.checkFragments, S.checkFragments),
    a11y: or(o.a11y, S.a11y),
    a11yTags: a11yTagsOf(o.a11yTags ?? S.a11yTags.default),
    vitals: or(o.vitals, S.vitals),
    vitalsConcurrency: intOrNull(S.vitalsConcurrency, o.vitalsConcurrency),
    vitalsThrottle: choiceOf(S.vitalsThrottle, o.vitalsThrottle),
  };
}

/**
 * Check axe-core tag names (`wcag2a`, `wcag21aa`, `best-practice`, `cat.color` …): at least one,
 * each letters, digits, dots and dashes.
 * @throws OptionsError otherwise
 */
function a11yTagsOf(tags: readonly string[]): string[] {
  if (tags.length === 0 || tags.some((t) => !/^[a-z0-9][a-z0-9.-]*$/i.test(t))) {
    throw new OptionsError(`a11y-tags must be axe-core tag names such as wcag2a,wcag21aa,best-practice, got ${JSON.stringify(tags.join(','))}`);
  }
  return [...tags];
}

/**
 * One of a string option's declared choices, or its default when not given.
 * @throws OptionsError for any other value
 */
function choiceOf<const C extends string>(spec: OptionSpec & { readonly choices: readonly C[]; readonly default: C }, v: string | undefined): C {
  if (v === undefined) return spec.default;
  if (!(spec.choices as readonly string[]).includes(v)) throw new OptionsError(`${nameOf(spec)} must be ${spec.choices.join(' or ')}, got ${JSON.stringify(v)}`);
  return v as C;
}

/**
 * Check a proxy server URL: `http://`, `https://`, `socks4://` or `socks5://` with a host.
 * @throws OptionsError otherwise
 */
function proxyOf(v: string | null | undefined): string | null {
  if (v === undefined || v === null) return null;
  let u: URL | null = null;
  try {
    u = new URL(v);
  } catch {
    u = null;
  }
  if (!u || !['http:', 'https:', 'socks4:', 'socks5:'].includes(u.protocol) || !u.hostname) {
    throw new OptionsError(`--proxy must be a proxy server URL such as http://proxy:3128 or socks5://127.0.0.1:1080, got ${JSON.stringify(v)}`);
  }
  return v;
}
