import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright';
import { devices } from './playwright.js';
import { InfrastructureError } from '../model/errors.js';
import { HttpClient } from '../net/http-client.js';
import { VERSION } from '../version.js';
import { browserUserAgent, defaultUserAgent, launchBrowser, locatedOf } from './launch.js';
import { isHeadlessShell } from './locate.js';
import type { StorageState } from './login/perform.js';
import type { AssetLoading } from './asset-placeholders.js';
import { ContextPool, type PoolSlot } from './pool.js';
import type { RequestGuard, VisitTab } from './tab.js';

/** Tries a visit gets to open a context and its tab before the crawl stops (see {@link BrowserSession.acquire}). */
export const OPEN_ATTEMPTS = 3;

/** A borrowed context with its tab, as the pool hands it out. */
export type SessionSlot = Awaited<ReturnType<ContextPool['acquire']>>;

/**
 * Most tabs that share one context, and so one renderer process and its one main thread (see
 * `ContextPool`); more concurrency opens more contexts. Each renderer costs ~100 MB before any
 * page, and one main thread is one core. Elements at concurrency 4 (2 cores; V8's collection, a
 * 2 MB young generation), single runs against the floor of the same run: all four tabs in one
 * renderer 31.7 s and 939 MB (the floor 23.7 s, 988 MB); two renderers of two tabs 26.3 s and
 * 1070 MB (23.7 s, 938 MB); the earlier layout, three renderers as tabs happened to open, 27.1 s
 * and 1138 MB (22.9 s, 1060 MB). With V8 sized for memory too (see `launch.ts`), two of two:
 * 38.4 s and 721 MB against 33.8 s and 901 MB on a slower hour.
 */
export const TABS_PER_RENDERER = 2;

/**
 * {@link TABS_PER_RENDERER} in Chromium's headless shell: one tab per renderer. The shell draws
 * every tab's frames (Chromium draws only the front tab of each window at full rate), so a second
 * tab keeps the shared main thread busy and the settle rule's idle check rarely passes. Measured at
 * concurrency 4, two alternations each against two tabs per renderer (2026-12-05, on bb96d99):
 * Elements 21.3 and 20.6 s against 20.9 and 20.5, wasted wait p50 155 and 146 ms
 * against 210 and 180 (p95 288–301 against 525–527), peak 760–779 MB against 630–654 (the floor
 * 859–877); TypeDoc 7.9 and 8.3 s against 8.4 and 9.2, CPU 14.1–14.5 s against 14.7–16.2,
 * wasted p50 77–83 against 97–105, peak 584–600 MB against 521–523 (the floor 639–700).
 */
export const TABS_PER_SHELL_RENDERER = 1;

/** Most tabs per renderer for `browser`: {@link TABS_PER_SHELL_RENDERER} in a headless shell launched by `launchBrowser`, else {@link TABS_PER_RENDERER}. */
export function tabsPerRenderer(browser: Browser): number {
  const located = locatedOf(browser);
  return located && isHeadlessShell(located.executablePath) ? TABS_PER_SHELL_RENDERER : TABS_PER_RENDERER;
}

/** The browser settings of a crawl (a subset of the crawl's resolved options). */
export interface SessionOptions {
  /** Pages visited at once (`--concurrency`): the shared contexts open that many tabs at once, at most {@link tabsPerRenderer}. */
  concurrency: number;
  /** `--browser-path`, or `null` to locate one (see `locateBrowser`). */
  browserPath: string | null;
  /** Proxy for the browser and the HTTP client, e.g. `http://127.0.0.1:8080`, or `null`. */
  proxy: string | null;
  /** A Playwright device name (`"iPhone 13"`): its viewport, touch and User-Agent; or `null`. */
  device: string | null;
  /** `--user-agent`, or `null` for the default (see {@link BrowserSession.start}). */
  userAgent: string | null;
  /** Viewport in CSS pixels, or `null` for the device's (else 1280×800). */
  viewport: { width: number; height: number } | null;
  /** `Accept-Language` / `navigator.language`, or `null`. */
  locale: string | null;
  /** Path of a Playwright storage state (cookies, local storage) every context starts with, or `null`. */
  storageState: string | null;
  /** Accept invalid TLS certificates (browser and HTTP client). */
  ignoreHttpsErrors: boolean;
  /** The screenshots folder, or `null`: with one, contexts render for stable shots (see {@link contextOptionsOf}). */
  screenshotsDir: string | null;
  /** A context is replaced after this many visits (after each one when `screenshotsDir` is set). */
  recycleAfter: number;
  /** `--header` values, sent only to URLs for which the session's `headerScope` says yes. */
  headers: Record<string, string>;
  /** `--assets`: how images, media and web fonts load (see {@link assetLoadingOf}). */
  assets: AssetLoading;
  /** `--vitals`: pages are measured (the real images, media and fonts are loaded). */
  vitals: boolean;
  /** `--a11y`: pages are checked by axe-core (the real images, media and fonts are loaded). */
  a11y: boolean;
}

/**
 * Playwright context options from the crawl's options: a device's settings, then `viewport`,
 * `locale` and `storageState` on top. The device's User-Agent is left out: the session sets its own.
 * With screenshots, pages render the same way on every run: `prefers-reduced-motion: reduce`
 * (sites drop their own motion: carousels, parallax, smooth scrolling) and, without a device,
 * a device scale factor of 1.
 */
export function contextOptionsOf(o: SessionOptions): BrowserContextOptions {
  const { defaultBrowserType: _ignored, userAgent: _ua, ...device } = o.device ? (devices[o.device] ?? {}) : ({} as Record<string, never>);
  return {
    ...device,
    ignoreHTTPSErrors: o.ignoreHttpsErrors,
    ...(o.viewport ? { viewport: o.viewport } : {}),
    ...(o.screenshotsDir ? { reducedMotion: 'reduce' as const, ...(o.device ? {} : { deviceScaleFactor: 1 }) } : {}),
    ...(o.locale ? { locale: o.locale } : {}),
    ...(o.storageState ? { storageState: o.storageState } : {}),
  };
}

/** What a {@link BrowserSession} is given besides its options. */
export interface SessionHooks {
  /** A browser launched by the caller: used as is, never closed or relaunched by the session. */
  browser?: Browser;
  /** A launch the caller started for the session (see `CrawlOptions.launching`): awaited instead of launching, then the session's own. */
  launching?: Promise<Browser>;
  /** Which request URLs get the `headers` (the crawl's scope), in the browser and the HTTP client. */
  headerScope: (url: string) => boolean;
  /** Told when the browser disconnected and is relaunched. */
  onNotice: (message: string) => void;
  /** Told each time the browser is relaunched after a crash. */
  onRelaunch?: () => void;
  /** Requests every visit tab refuses (sign-out URLs while logged in), or none. */
  guard?: RequestGuard | null;
  /** More init scripts (JavaScript source) for every page of every context (`vitalsInitScript()` with `--vitals`). */
  initScripts?: readonly string[];
}

/**
 * The crawl's browser and everything that speaks for it: the Chromium (launched, or the caller's),
 * its relaunch after a crash, the User-Agent, the one {@link HttpClient} for requests outside the
 * browser (robots.txt, sitemaps, link checks: same User-Agent, proxy and TLS settings) and the
 * {@link ContextPool} of reusable contexts that visits borrow.
 *
 * Two steps, so that a browser that cannot be launched stops the crawl before anything else
 * opens: {@link BrowserSession.launch}, then {@link BrowserSession.start}; {@link BrowserSession.close} at the end.
 */
export class BrowserSession {
  private browser: Browser | null = null;
  private readonly own: boolean;
  private relaunching: Promise<void> | null = null;
  /** Relaunches after a crash so far: a visit that saw this change while it ran lost its browser. */
  relaunches = 0;
  private client: HttpClient | null = null;
  private contexts: ContextPool | null = null;

  /**
   * @param options - the browser settings
   * @param hooks - a caller's browser, the header scope, where notices go
   */
  constructor(
    private readonly options: SessionOptions,
    private readonly hooks: SessionHooks,
  ) {
    this.own = !hooks.browser;
  }

  /**
   * Launch Chromium (or adopt the caller's browser).
   * @throws BrowserNotFoundError when no browser is found
   */
  async launch(): Promise<void> {
    if (this.browser) return;
    this.browser = this.hooks.browser ?? (await (this.hooks.launching ?? launchBrowser({ browserPath: this.options.browserPath, proxy: this.options.proxy }).then((l) => l.browser)));
  }

  /**
   * Decide the User-Agent and open the HTTP client and the context pool. The User-Agent is
   * `--user-agent`; else a device's own with ` spacrawl/<version>` appended; else the browser's
   * own with `HeadlessChrome` → `Chrome` and ` spacrawl/<version>` (DESIGN.md, "Browsers here").
   * @throws Error when called before {@link BrowserSession.launch}, or when the browser cannot open a page
   */
  async start(): Promise<void> {
    const browser = this.launched();
    const o = this.options;
    const deviceUa = o.device ? devices[o.device]?.userAgent : undefined;
    const userAgent = o.userAgent ?? (deviceUa ? `${deviceUa} spacrawl/${VERSION}` : defaultUserAgent(await browserUserAgent(browser), VERSION));
    this.client = new HttpClient({
      userAgent,
      proxy: o.proxy,
      ignoreHttpsErrors: o.ignoreHttpsErrors,
      headersFor: (url) => (this.hooks.headerScope(url) ? o.headers : {}),
    });
    this.contexts = new ContextPool(browser, {
      userAgent,
      // With screenshots every page starts from the same state: a fresh context (its own local
      // storage, session storage, IndexedDB and cache), so that what a click on one page stored
      // (a filter, a theme, a dismissed banner) cannot change how a later page renders.
      recycleAfter: o.screenshotsDir ? 1 : o.recycleAfter,
      shareContext: !o.screenshotsDir,
      tabsPerContext: Math.min(o.concurrency, tabsPerRenderer(browser)),
      contextOptions: contextOptionsOf(o),
      headers: o.headers,
      headerScope: this.hooks.headerScope,
      guard: this.hooks.guard ?? null,
      initScripts: this.hooks.initScripts ?? [],
      assets: assetLoadingOf(o),
    });
  }

  /**
   * A fresh context to log in with: the crawl's settings and `--storage-state`, not the current
   * session. The caller closes it. (A crashed browser is relaunched first.)
   * @throws InfrastructureError as {@link BrowserSession.ensureBrowser}; the browser's error when it cannot open one
   */
  async openLoginContext(): Promise<BrowserContext> {
    await this.ensureBrowser();
    return this.pool().openContext('initial');
  }

  /** Make a login's storage state the session of every context from now on (see `ContextPool.adoptSession`). */
  adoptSession(state: StorageState): void {
    this.pool().adoptSession(state);
  }

  /** `true` once {@link BrowserSession.start} has opened the pool (and until {@link BrowserSession.close}). */
  get started(): boolean {
    return this.contexts !== null;
  }

  /**
   * The client for every request outside the browser.
   * @throws Error before {@link BrowserSession.start}
   */
  get http(): HttpClient {
    if (!this.client) throw new Error('the browser session has not started');
    return this.client;
  }

  /** `true` while the browser is connected. */
  get connected(): boolean {
    return this.browser?.isConnected() ?? false;
  }

  /**
   * Make sure the browser is up: a crashed browser the session launched is relaunched (one
   * relaunch shared by every caller) and the pool moves to it.
   * @throws InfrastructureError when the browser is the caller's, or cannot be relaunched
   */
  async ensureBrowser(): Promise<void> {
    if (this.connected) return;
    if (!this.own) throw new InfrastructureError('the browser disconnected and is not ours to relaunch');
    if (!this.relaunching) {
      this.hooks.onNotice('the browser disconnected: relaunching it and requeueing the pages in flight');
      this.relaunching = (async () => {
        try {
          const { browser } = await launchBrowser({ browserPath: this.options.browserPath, proxy: this.options.proxy });
          this.browser = browser;
          this.pool().replaceBrowser(browser);
          this.relaunches++;
          this.hooks.onRelaunch?.();
        } catch (err) {
          throw new InfrastructureError(`the browser crashed and could not be relaunched: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        } finally {
          this.relaunching = null;
        }
      })();
    }
    await this.relaunching;
  }

  /**
   * Borrow a context and its tab for one visit (relaunching a crashed browser first, and again
   * when it died while the context was opened; a connected browser that does not open one in time
   * is asked {@link OPEN_ATTEMPTS} times in all). Give it back with {@link BrowserSession.release}.
   * `prefer` picks the free tab to take first (see `ContextPool.acquire`).
   * @throws InfrastructureError as {@link BrowserSession.ensureBrowser}; the pool's error when a
   * connected browser cannot open a context
   */
  async acquire(prefer?: (tab: VisitTab) => boolean): Promise<SessionSlot> {
    const pool = this.pool();
    for (let attempt = 1; ; attempt++) {
      await this.ensureBrowser();
      try {
        return await pool.acquire(prefer);
      } catch (err) {
        // The browser may have died between the check and the new context: relaunch it and try
        // again. A connected browser that did not open a context or tab in time (starved, or
        // busy closing others) gets OPEN_ATTEMPTS tries in all, each in a new context.
        if (attempt >= OPEN_ATTEMPTS) throw err;
        if (this.connected) this.hooks.onNotice(`the browser did not open a tab (${err instanceof Error ? err.message.split('\n')[0] : String(err)}): trying again in a new context`);
      }
    }
  }

  /** Open `slots` tabs ahead of the first visits (see `ContextPool.prewarm`). Never throws; does nothing before {@link BrowserSession.start}. */
  prewarm(slots: number): void {
    this.contexts?.prewarm(slots);
  }

  /** Give back a borrowed slot; `broken` (the visit says so) closes its context instead of reusing it. */
  release(slot: PoolSlot, broken: boolean): void {
    this.pool().release(slot, broken);
  }

  /**
   * Close the contexts, and the browser when the session launched it. Never throws.
   * @param background - the process exits next (see `CrawlOptions.processExitsAfter`): a browser
   *   the session launched is told to close (which closes its contexts) and not waited for
   */
  async close(background = false): Promise<void> {
    const pool = this.contexts;
    this.contexts = null;
    if (background && this.own && this.browser) {
      pool?.forget();
      void this.browser.close().catch(() => {});
      return;
    }
    await pool?.close();
    if (this.own) await this.browser?.close().catch(() => {});
  }

  private launched(): Browser {
    if (!this.browser) throw new Error('the browser session has not been launched');
    return this.browser;
  }

  private pool(): ContextPool {
    if (!this.contexts) throw new Error('the browser session has not started');
    return this.contexts;
  }
}

/**
 * How the crawl's tabs load images, media and web fonts: the `assets` option, except that a
 * screenshot (pixels), vitals (LCP, transfer size) and the accessibility check (axe-core's
 * contrast and target-size rules read the layout real images give) need the real ones.
 */
export function assetLoadingOf(o: Pick<SessionOptions, 'assets' | 'screenshotsDir' | 'vitals' | 'a11y'>): AssetLoading {
  return o.screenshotsDir || o.vitals || o.a11y ? 'load' : o.assets;
}
