import type { Browser } from 'playwright';
import { launchBrowser } from '../../src/browser/launch.js';

let shared: Promise<Browser> | null = null;

/**
 * The Chromium of this vitest worker, launched on first use and shared by every browser-tier file
 * the worker runs (the tier runs with `isolate: false`, so this module and its browser outlive one
 * file). A file opens its own contexts through the crawler and leaves the browser open; it ends
 * with the worker (Playwright closes what it launched when the process exits). A browser that was
 * closed or lost is launched again. A file that kills browser processes, or needs launch options of
 * its own (a proxy, a hanging renderer), launches its own with `launchBrowser`.
 */
export async function sharedBrowser(): Promise<Browser> {
  const current = shared ? await shared.catch(() => null) : null;
  if (current?.isConnected()) return current;
  shared = launchBrowser().then((r) => r.browser);
  return shared;
}
