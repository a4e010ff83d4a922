import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS } from './src/browser/launch.js';
import { locateBrowser } from './src/browser/locate.js';

// Browser-level end-to-end tests (test/e2e/*.pw.ts). They use the same browser the crawler
// finds (--browser-path / SPACRAWL_BROWSER, Playwright's Chromium, then a system Chromium) and
// the same launch switches, so what these tests see is what a crawl sees. To point spacrawl at
// your own Playwright settings, copy the `use` block below into your config, or pass
// --browser-path / --user-agent / --proxy on the command line.
const browser = locateBrowser();

export default defineConfig({
  testDir: './test/e2e',
  testMatch: '**/*.pw.ts',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: browser.executablePath,
      args: [...CHROMIUM_ARGS],
    },
  },
});
