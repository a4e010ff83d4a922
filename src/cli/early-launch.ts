/**
 * The crawl command's browser, launched as soon as the usage checks pass: Chromium takes
 * 250-350 ms to start here, time the command otherwise spends loading the crawl's modules and
 * opening its store with the browser not yet asked for. The crawl takes the launch over
 * (`CrawlOptions.launching`); whatever happens before it does, {@link EarlyLaunch.close} closes it.
 * @module
 */
import type { Browser } from 'playwright';
import type { CrawlOptions } from '../crawl/options.js';

/** A launch started before the crawl (see the module comment). */
export interface EarlyLaunch {
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
  const browser = import('../browser/launch.js').then((m) => m.launchBrowser({ browserPath, proxy })).then((l) => l.browser);
  browser.catch(() => {}); // observed: the crawl that takes it sees the error
  const close = async (): Promise<void> => {
    const b = await browser.catch(() => null);
    if (b?.isConnected()) await b.close().catch(() => {});
  };
  return {
    for(o) {
      if ((o.browserPath ?? null) === browserPath && (o.proxy ?? null) === proxy) return browser;
      void close();
      return null;
    },
    close,
  };
}
