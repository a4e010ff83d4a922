import type { Browser } from 'playwright';
import type { HashRouteMode, NormalizeOptions } from '../url/normalize.js';
import type { ScopeMode } from '../url/scope.js';
import type { Frontier } from '../store/frontier.js';
import { UsageError } from '../model/errors.js';
import { DEFAULT_A11Y_TAGS } from '../browser/a11y.js';

/** Default `--max-pages`: navigations started in all (a budget against infinite URL spaces). */
export const DEFAULT_MAX_PAGES = 10_000;

/** Everything a crawl can be told. Times in milliseconds unless the name says seconds. */
export interface CrawlOptions {
  /** Start URLs (absolute http/https). At least one. */
  seeds: string[];
  /** Pages in flight at once (a p-limit semaphore). @default 4 */
  concurrency?: number;
  /** Deepest link distance visited; deeper URLs get `skipped: "budget"`. @default Infinity */
  maxDepth?: number;
  /** Most navigations started; the rest get `skipped: "budget"`. @default 10000 */
  maxPages?: number;
  /** Wall-clock budget in seconds; when spent the crawl ends like Ctrl-C. @default none */
  maxTimeSeconds?: number;
  /** @default 'host' */
  scope?: ScopeMode;
  /** Include patterns (globs or `/regex/`) on canonical URLs; when given, a URL must match one. */
  include?: string[];
  /** Exclude patterns (globs or `/regex/`) on canonical URLs; exclude wins over include. */
  exclude?: string[];
  /** Hash routes (`#/x`, `#!x`) as pages: `auto` keeps fragments starting with `/` or `!`. @default 'auto' */
  hashRoutes?: HashRouteMode;
  /** Do not strip tracking and session parameters. @default false */
  keepParams?: boolean;
  /** Extra query parameter names to strip (`name` or `prefix*`). */
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
  /** Accessible-name patterns (regex sources) never clicked, on top of the destructive ones. */
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
  /** Folder for one full-page PNG per visited page, or none. */
  screenshotsDir?: string | null;
  /** Ignore robots.txt entirely. @default false */
  ignoreRobots?: boolean;
  /** Product token matched against robots.txt `User-agent` groups. @default 'spacrawl' */
  robotsAgent?: string;
  /** Follow `rel="nofollow"` links and links of `nofollow` pages. @default false */
  followNofollow?: boolean;
  /** Seed the frontier from robots.txt `Sitemap:` lines (or `/sitemap.xml`). @default false */
  sitemap?: boolean;
  /** User-Agent header; default: the browser's own, `HeadlessChrome` → `Chrome`, plus ` spacrawl/<version>`. */
  userAgent?: string | null;
  /** Navigation timeout (ms), up to DOMContentLoaded. @default 30000 */
  timeoutMs?: number;
  /** Cap on waiting for a page to go quiet (ms). @default 5000 */
  settleTimeoutMs?: number;
  /** Quiet window of the settle rule (ms); never below 300. @default 500 */
  quietMs?: number;
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
  /** Viewport in CSS pixels. @default 1280×800 (or the device's) */
  viewport?: { width: number; height: number } | null;
  /** A Playwright device name (`iPhone 13`, `Pixel 7` …): its viewport, user agent, touch and scale. */
  device?: string | null;
  /** Browser locale, e.g. `de-DE`. */
  locale?: string | null;
  /** Playwright storage state file (cookies, local storage), e.g. from a login step. */
  storageState?: string | null;
  /** Extra request headers, sent only to in-scope origins (never to CDNs or third parties). */
  headers?: Record<string, string>;
  /** Grace period for in-flight pages on cancellation (ms). @default 3000 */
  graceMs?: number;
  /**
   * Contexts are replaced after this many visits. A renderer grows with the pages it renders:
   * on the 2000-page benchmark, 200 gave a 23 % higher memory peak than 50 and was no faster.
   * @default 50
   */
  recycleAfter?: number;
  /** Chromium executable; see `locateBrowser()`. */
  browserPath?: string | null;
  /** Use this browser instead of launching one (it is not closed at the end). */
  browser?: Browser;
  /** Proxy for all browser traffic. */
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
  /** axe-core tags to run with `a11y`. @default ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] */
  a11yTags?: string[];
  /** Measure Core Web Vitals and page weight into the records' `vitals` (the `budget` rule). @default false */
  vitals?: boolean;
  /**
   * With `vitals`: measure each page alone, at most this many at once, while no other page is
   * loaded or worked on (see `MeasureGate`); `null` measures pages as they are crawled. @default null
   */
  vitalsConcurrency?: number | null;
  /** With `vitals`: `mobile` measures under Lighthouse's mobile throttling (CPU 4×, 150 ms RTT, 1.6 Mbps). @default 'none' */
  vitalsThrottle?: 'none' | 'mobile';
  /** Cancels the crawl: no new pages start, in-flight pages get `graceMs`, then records are flushed. */
  signal?: AbortSignal;
  /** Told about things worth a log line (robots.txt problems, browser restarts). */
  onNotice?: (message: string) => void;
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
  maxDepth: number;
  maxPages: number;
  maxTimeSeconds: number | null;
  scope: ScopeMode;
  screenshotsDir: string | null;
  ignoreRobots: boolean;
  userAgent: string | null;
  timeoutMs: number;
  settleTimeoutMs: number;
  quietMs: number;
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

/** Thrown for options that make no sense (the CLI maps it to exit code 2). */
export class OptionsError extends UsageError {
  readonly code = 'bad-option';
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

function int(name: string, v: number | undefined, def: number, min: number): number {
  if (v === undefined) return def;
  if (!Number.isFinite(v) && v !== Infinity) throw new OptionsError(`${name} must be a number`);
  if (v !== Infinity && !Number.isInteger(v)) throw new OptionsError(`${name} must be a whole number, got ${v}`);
  if (v < min) throw new OptionsError(`${name} must be at least ${min}, got ${v}`);
  return v;
}

function positive(name: string, v: number | null | undefined): number | null {
  if (v === undefined || v === null) return null;
  if (!(v > 0) || !Number.isFinite(v)) throw new OptionsError(`${name} must be a positive number, got ${v}`);
  return v;
}

/**
 * Fill in defaults and check ranges.
 * @throws OptionsError for out-of-range values (e.g. `concurrency: 0`, a negative depth) or no seeds
 */
export function resolveOptions(o: CrawlOptions): ResolvedCrawlOptions {
  if (!o.seeds || o.seeds.length === 0) throw new OptionsError('at least one seed URL is needed');
  const maxTime = o.maxTimeSeconds;
  const vitals = o.vitals ?? false;
  if (!vitals && o.vitalsConcurrency != null) throw new OptionsError('vitals-concurrency needs vitals (--vitals)');
  if (!vitals && o.vitalsThrottle !== undefined && o.vitalsThrottle !== 'none') throw new OptionsError('vitals-throttle needs vitals (--vitals)');
  if (o.vitalsThrottle !== undefined && o.vitalsThrottle !== 'none' && o.vitalsThrottle !== 'mobile') throw new OptionsError(`vitals-throttle must be none or mobile, got ${JSON.stringify(o.vitalsThrottle)}`);
  const tags = o.a11yTags ?? [...DEFAULT_A11Y_TAGS];
  if (tags.length === 0 || tags.some((t) => !/^[a-z0-9][a-z0-9.-]*$/i.test(t))) throw new OptionsError(`a11y-tags must be axe-core tag names such as wcag2a,wcag21aa,best-practice, got ${JSON.stringify(tags.join(','))}`);
  if (maxTime !== undefined && maxTime !== null && !(maxTime > 0)) throw new OptionsError(`max-time must be a positive number of seconds, got ${maxTime}`);
  return {
    seeds: [...o.seeds],
    concurrency: int('concurrency', o.concurrency, 4, 1),
    click: o.click ?? 'auto',
    clickLimit: int('click-limit', o.clickLimit, 100, 0),
    clickExclude: [...(o.clickExclude ?? [])],
    clickRepeat: int('click-repeat', o.clickRepeat, 20, 0),
    scroll: o.scroll ?? false,
    scrollLimit: int('scroll-limit', o.scrollLimit, 30, 1),
    soft404: o.soft404 ?? true,
    dedupeContent: o.dedupeContent ?? true,
    include: [...(o.include ?? [])],
    exclude: [...(o.exclude ?? [])],
    normalize: {
      hashRoutes: o.hashRoutes ?? 'auto',
      keepParams: o.keepParams ?? false,
      stripParams: [...(o.stripParams ?? [])],
      foldTrailingSlash: o.foldTrailingSlash ?? false,
      foldIndex: o.foldIndex ?? false,
    },
    robotsAgent: o.robotsAgent ?? 'spacrawl',
    followNofollow: o.followNofollow ?? false,
    sitemap: o.sitemap ?? false,
    rate: positive('rate', o.rate),
    perHostConcurrency: o.perHostConcurrency == null ? null : int('per-host-concurrency', o.perHostConcurrency, 1, 1),
    retries: int('retries', o.retries, 2, 0),
    maxRetryAfterMs: int('max-retry-after', o.maxRetryAfterMs, 60_000, 0),
    retryBaseMs: int('retry-base', o.retryBaseMs, 1_000, 0),
    maxQueryVariants: int('max-query-variants', o.maxQueryVariants, 100, 1),
    ignoreHttpsErrors: o.ignoreHttpsErrors ?? false,
    viewport: o.viewport ?? null,
    device: o.device ?? null,
    locale: o.locale ?? null,
    storageState: o.storageState ?? null,
    headers: { ...(o.headers ?? {}) },
    maxDepth: int('max-depth', o.maxDepth, Infinity, 0),
    maxPages: int('max-pages', o.maxPages, DEFAULT_MAX_PAGES, 1),
    maxTimeSeconds: maxTime ?? null,
    scope: o.scope ?? 'host',
    screenshotsDir: o.screenshotsDir ?? null,
    ignoreRobots: o.ignoreRobots ?? false,
    userAgent: o.userAgent ?? null,
    timeoutMs: int('timeout', o.timeoutMs, 30_000, 1),
    settleTimeoutMs: int('settle-timeout', o.settleTimeoutMs, 5_000, 0),
    quietMs: Math.max(300, int('quiet', o.quietMs, 500, 0)),
    graceMs: int('grace', o.graceMs, 3_000, 0),
    recycleAfter: int('recycle-after', o.recycleAfter, 50, 1),
    browserPath: o.browserPath ?? null,
    proxy: proxyOf(o.proxy),
    checkExternal: o.checkExternal ?? false,
    checkFragments: o.checkFragments ?? false,
    a11y: o.a11y ?? false,
    a11yTags: [...tags],
    vitals,
    vitalsConcurrency: o.vitalsConcurrency == null ? null : int('vitals-concurrency', o.vitalsConcurrency, 1, 1),
    vitalsThrottle: o.vitalsThrottle ?? 'none',
  };
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
