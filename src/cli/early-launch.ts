/**
 * The crawl command's browser, launched as soon as the usage checks pass: Chromium takes
 * 250-350 ms to start here, time the command otherwise spends loading the crawl's modules and
 * opening its store with the browser not yet asked for. The crawl takes the launch over
 * (`CrawlOptions.launching`); whatever happens before it does, {@link EarlyLaunch.close} closes it.
 *
 * The command waits for {@link EarlyLaunch.started} before it loads the crawl's modules: Playwright
 * starts Chromium's process only after a few turns of the event loop (~16 ms after `launch()` on
 * an idle loop here), and the modules' evaluation (~170 ms, synchronous) held those turns back, so
 * Chromium began starting only once the modules were in (TypeDoc crawls: its process started
 * 520-580 ms after the command, the first page asked for at 774-889 ms; after: 475-505 and 764-814).
 * @module
 */
import type { Browser } from 'playwright';
import type { CrawlOptions } from '../crawl/options.js';

/**
 * How long (ms) the command leaves the event loop to the launch once `launch()` was called, for
 * Playwright to start Chromium's process (see the module comment), unless the launch ends sooner.
 */
export const SPAWN_LEAD_MS = 30;

/** A launch started before the crawl (see the module comment). */
export interface EarlyLaunch {
  /**
   * Resolves once Playwright has been loaded, `launch()` called and the event loop left to it for
   * {@link SPAWN_LEAD_MS} (or the launch ended, either way): the browser's process is starting. Never rejects.
   */
  started: Promise<void>;
  /**
   * The launch for a crawl with `options`, or `null` when they ask for another browser than the
   * one launched (a Redis worker that joins a crawl takes the crawl's stored options, whose
   * `--proxy` may differ): that one is then closed, and the crawl launches its own.
   */
  for(options: Pick<CrawlOptions, 'browserPath' | 'proxy'>): Promise<Browser> | null;
  /** Close the browser unless the crawl already did. Never throws; a failed launch is ignored here (the crawl reported it, or never needed it). */
  close(): Promise<void>;
}

/**
 * Start launching Chromium with the crawl's `browserPath` and `proxy` (Playwright is loaded
 * here). A launch that fails rejects only for the crawl that takes it: never an unhandled rejection.
 */
export function startEarlyLaunch(options: Pick<CrawlOptions, 'browserPath' | 'proxy'>): EarlyLaunch {
  const browserPath = options.browserPath ?? null;
  const proxy = options.proxy ?? null;
  const loaded = import('../browser/launch.js');
  // Registered on `loaded` before the lead below: `launch()` is called first.
  const browser = loaded.then((m) => m.launchBrowser({ browserPath, proxy })).then((l) => l.browser);
  browser.catch(() => {}); // observed: the crawl that takes it sees the error
  const ended = browser.then(
    () => {},
    () => {},
  );
  const started = Promise.race([ended, loaded.then(() => new Promise<void>((resolve) => setTimeout(resolve, SPAWN_LEAD_MS)), () => {})]);
  const close = async (): Promise<void> => {
    const b = await browser.catch(() => null);
    if (b?.isConnected()) await b.close().catch(() => {});
  };
  return {
    started,
    for(o) {
      if ((o.browserPath ?? null) === browserPath && (o.proxy ?? null) === proxy) return browser;
      void close();
      return null;
    },
    close,
  };
}
