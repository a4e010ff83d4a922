import { Flags } from '@oclif/core';

/** Flags shared by every command that crawls (`crawl`, `demo`). Names follow the issue tracker's contract. */
export const crawlFlags = {
  concurrency: Flags.integer({ description: 'pages in flight at once', default: 4, min: 1 }),
  'max-depth': Flags.integer({ description: 'deepest link distance from a seed to visit (seeds are 0); default: no limit', min: 0 }),
  'max-pages': Flags.integer({ description: 'most page navigations to start (a budget against infinite URL spaces)', default: 10_000, min: 1 }),
  'max-time': Flags.integer({ description: 'wall-clock budget in seconds; when spent the crawl stops like Ctrl-C, with the normal exit code', min: 1 }),
  scope: Flags.string({ description: 'which URLs may be crawled', options: ['host', 'subdomains', 'domain'], default: 'host' }),
  out: Flags.string({ description: 'write one JSON record per URL to this file (JSON Lines)' }),
  screenshots: Flags.string({ description: 'save a full-page PNG of every visited page into this folder' }),
  'ignore-robots': Flags.boolean({ description: 'do not fetch or obey robots.txt', default: false }),
  'user-agent': Flags.string({ description: "User-Agent header (default: the browser's own, with HeadlessChrome → Chrome, plus spacrawl/<version>)" }),
  timeout: Flags.integer({ description: 'navigation timeout in ms (up to DOMContentLoaded)', default: 30_000, min: 1 }),
  'settle-timeout': Flags.integer({ description: 'cap in ms on waiting for a page to go quiet (network idle and no DOM change)', default: 5_000, min: 0 }),
  'browser-path': Flags.string({ description: 'Chromium executable to use (else SPACRAWL_BROWSER, Playwright\'s Chromium, then a system chromium)' }),
  proxy: Flags.string({ description: 'send all browser traffic through this HTTP or SOCKS proxy' }),
  quiet: Flags.boolean({ char: 'q', description: 'print only the summary line', default: false }),
};
