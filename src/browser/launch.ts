import { GC_FUNCTION } from './renderer-heap.js';
import type { Browser } from 'playwright';
import { chromium } from './playwright.js';
import { BrowserNotFoundError, locateBrowser, type LocatedBrowser } from './locate.js';

/**
 * The features Playwright 1.65.1 turns off (its `chromiumSwitches.ts`). Chromium keeps only the
 * last `--disable-features` switch of a command line, so spacrawl's own switch must repeat them;
 * `test/launch.test.ts` checks this list against the switch Playwright actually passes.
 */
export const PLAYWRIGHT_DISABLED_FEATURES: readonly string[] = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * Features spacrawl turns off on top of Playwright's.
 * - `WebUIOmniboxPopup`, `WebUIOmniboxAimPopup`: headless Chromium preloads the omnibox popups
 *   (chrome:// pages) in every browser context, each in its own renderer process: a second
 *   renderer per context (~45 MB of PSS each) that a crawl never uses.
 * - `AutofillServerCommunication`: on every page with a form, Chromium asks
 *   `content-autofill.googleapis.com` what its fields are (and retries), a host the crawl never
 *   asked for.
 */
export const SPACRAWL_DISABLED_FEATURES: readonly string[] = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup', 'AutofillServerCommunication'];

/**
 * An address Chromium refuses to connect to before any socket is opened (port 1 is on its list of
 * restricted ports: `ERR_UNSAFE_PORT`). Services pointed here fail at once, on this machine.
 */
const NOWHERE = 'http://127.0.0.1:1/';

/**
 * Chromium switches used for every launch. The browser makes no request to a host the crawl did
 * not ask for (checked by `test/proxy.test.ts` through a logging proxy):
 * - `--disable-background-networking`, `--disable-component-update`, `--disable-sync`: the usual
 *   calls home (DESIGN.md, "Browsers here").
 * - `--component-updater=url-source=…`: Chromium 156 still asks `update.googleapis.com` for the
 *   on-device model manifest component (`ceofaddefefcbblgcgnibnonglccbfja`, requested "on
 *   demand", which `--disable-component-update` does not stop); the updater is pointed at
 *   {@link NOWHERE}.
 * - `--gaia-url=…`: every profile starts by asking `accounts.google.com/ListAccounts` which Google
 *   accounts are signed in (and retries after 1 s and 3 s). Playwright's answer,
 *   `--enable-features=SkipListAccountsWithoutGaiaCookies`, does not exist in Chromium 156; the
 *   sign-in service is pointed at {@link NOWHERE}.
 * - `--no-pings`: no hyperlink-auditing pings (`<a ping>`). Debian's `/etc/chromium.d/default-flags`
 *   means to do this with `--disable-pings`, which is not a Chromium switch.
 *
 * Debian's `/usr/bin/chromium` wrapper also sources `/etc/chromium.d/`: Google API keys
 * (`apikeys`), `--enable-remote-extensions` and an empty `--load-extension=` (`extensions`; with
 * them the wrapper leaves out its own `--disable-background-networking`, which is passed here),
 * `--disable-dev-shm-usage`, `--enable-gpu-rasterization`, `--media-router=0`. None of them causes a
 * request once the switches here are in place.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  // The GPU service (software compositing here) runs as a thread of the browser process instead
  // of a process of its own: ~25 MB less at the same speed (400-page bench tree, concurrency 8).
  '--in-process-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  `--component-updater=url-source=${NOWHERE}`,
  `--gaia-url=${NOWHERE}`,
  '--no-pings',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
  // Chromium's spare renderer (a process started ahead for the next navigation) belongs to one
  // context and is thrown away when another context navigates: at concurrency 8 with a context
  // per tab that started ~2 renderer processes per page. At the process limit no spare is
  // started, same-site navigations keep their process, and the tabs of the shared context (see
  // `pool.ts`) render one site in one process. Processes are never shared across contexts, and
  // site isolation still gives other sites their own process.
  '--renderer-process-limit=1',
  // V8 (see `renderer-heap.ts`): the garbage collection a renderer gets between visits is V8's own
  // full collection, called in the page as `__spacrawlGc()`, which keeps the compilation cache
  // (CDP's collection empties it); with a heap sized for memory rather than speed (young
  // generation at most 2 MB a semi-space, the memory-saving mode Chromium uses on small devices),
  // what that collection frees is given back. One tab over 12 Elements pages: renderer CPU 10.6 s
  // and 143 MB after, against 13.5 s and 140 MB with CDP's collection (measurements in
  // docs/bench.md, "What moved it").
  // The memory-saving mode also lets the heap grow by only a little after each collection, so a
  // page that builds a large heap while it renders (Elements, a React app) is collected more often
  // during its load (one tab, five Elements pages, `--trace-gc`: 5 full collections against 2) and
  // every such collection compacts: Elements at concurrency 4 took 27.4–30.3 s and 49–54 CPU-s.
  // The heap may grow to 2.5 times what a collection left (`--heap-growing-percent=150`; V8's own
  // rule for desktops allows up to 4 times): 25.4–26.3 s and 45–46 CPU-s, 777–781 MB at the peak
  // against 699–724 (the floor: ~980); TypeDoc within the noise, 644–671 MB against 630–653.
  // Without the memory-saving mode it was faster still on Elements (24.2–25.4 s) but TypeDoc's peak
  // rose to 668–712 MB, the floor's (docs/bench.md, "The heap's growth").
  `--js-flags=--expose-gc-as=${GC_FUNCTION} --max-semi-space-size=2 --optimize-for-size --heap-growing-percent=150`,
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...SPACRAWL_DISABLED_FEATURES].join(',')}`,
];

/** Options for {@link launchBrowser}. */
export interface LaunchOptions {
  /** Path from `--browser-path`; otherwise {@link locateBrowser} decides. */
  browserPath?: string | null;
  /** Proxy for all browser traffic, e.g. `http://127.0.0.1:8080`. */
  proxy?: string | null;
  /** Launch timeout (ms). @default 30000 */
  timeoutMs?: number;
}

/** The browser each {@link launchBrowser} found, by the `Browser` it returned. */
const launchedFrom = new WeakMap<Browser, LocatedBrowser>();

/**
 * The executable `browser` was launched from by {@link launchBrowser}, for settings that depend on
 * the build (see `tabsPerRenderer`); `null` for a browser launched otherwise.
 */
export function locatedOf(browser: Browser): LocatedBrowser | null {
  return launchedFrom.get(browser) ?? null;
}

/**
 * Launch a headless Chromium with the crawl's settings. Signals are left to our own handler
 * (`handleSIGINT: false`), so a first Ctrl-C does not close the browser under in-flight pages.
 * @throws BrowserNotFoundError when no browser is found, or the one found does not start (not a
 *   Chromium, a missing library): one line naming it and why (see {@link launchFailure})
 */
export async function launchBrowser(opts: LaunchOptions = {}): Promise<{ browser: Browser; located: LocatedBrowser }> {
  const located = locateBrowser(opts.browserPath ?? null);
  const browser = await chromium
    .launch({
      executablePath: located.executablePath,
      headless: true,
      args: [...CHROMIUM_ARGS],
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: opts.timeoutMs ?? 30_000,
      ...(opts.proxy ? { proxy: { server: opts.proxy } } : {}),
    })
    .catch((err: unknown) => {
      throw new BrowserNotFoundError(`the browser ${located.executablePath} did not start: ${launchFailure(err instanceof Error ? err.message : String(err))}`);
    });
  launchedFrom.set(browser, located);
  return { browser, located };
}

/**
 * Why a launch failed, in one line, from Playwright's launch error: its first line, unless that
 * only says the connection closed ("Target page, context or browser has been closed", as when
 * the executable exits at once: `/bin/false`, a missing library); then the executable's exit
 * code, and the first line it printed itself (Playwright's "Browser logs").
 * @param message - the launch error's message (several lines; may hold ANSI colour codes)
 */
export function launchFailure(message: string): string {
  const lines = message.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const first = lines[0]!.replace(/^browserType\.launch: /, '').trim();
  if (!/has been closed/.test(first)) return first;
  // "Browser logs:" holds Playwright's <launching>/<launched> lines and what the executable
  // printed, as `[pid=N][err] text`, up to "Call log:".
  const logsAt = lines.findIndex((l) => l.trim() === 'Browser logs:');
  const callLogAt = lines.findIndex((l) => l.trim() === 'Call log:');
  const logs = logsAt < 0 ? [] : lines.slice(logsAt + 1, callLogAt > logsAt ? callLogAt : undefined);
  const said = logs
    .map((l) => l.trim().replace(/^\[pid=\d+\]\[(?:err|out)\] /, ''))
    .find((l) => l !== '' && !/^<launch(?:ing|ed)>/.test(l) && !/^\[pid=\d+\]/.test(l));
  const exit = /<process did exit: exitCode=(\w+), signal=(\w+)>/.exec(message);
  if (!exit && !said) return first;
  const how = exit ? (exit[2] !== 'null' ? `it ended at once (signal ${exit[2]})` : `it exited at once (exit code ${exit[1]})`) : 'it closed at once';
  return said ? `${how}: ${said}` : how;
}

/**
 * The default User-Agent: the browser's own with `HeadlessChrome` replaced by `Chrome`
 * (headless agents are often turned away) and ` spacrawl/<version>` appended (DESIGN.md).
 * @param browserUserAgent - `navigator.userAgent` of the launched browser
 * @param version - spacrawl's version
 */
export function defaultUserAgent(browserUserAgent: string, version: string): string {
  return `${browserUserAgent.replace(/HeadlessChrome/g, 'Chrome')} spacrawl/${version}`;
}

/**
 * The launched browser's own `navigator.userAgent`. Asked of the browser over CDP
 * (`Browser.getVersion`, one round trip, a few ms); a browser without a CDP session (not
 * Chromium) is asked in a throwaway page instead (a context and a renderer: 200-400 ms here).
 */
export async function browserUserAgent(browser: Browser): Promise<string> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    try {
      const { userAgent } = await cdp.send('Browser.getVersion');
      if (userAgent) return userAgent;
    } finally {
      await cdp.detach().catch(() => {});
    }
  } catch {
    // not Chromium, or a browser that refuses the session: read it in a page
  }
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    return await page.evaluate(() => navigator.userAgent);
  } finally {
    await ctx.close().catch(() => {});
  }
}
