import { SpacrawlCommand } from '../cli/base-command.js';
import path from 'node:path';
import fs from 'node:fs';
import { Args } from '@oclif/core';
import { devices } from 'playwright';
import { applyConfig } from '../cli/config.js';
import { describeFsError, ensureWritableDir } from '../report/files.js';
import { classifyError, failAndExit } from '../cli/errors.js';
import { crawlFlags } from '../cli/flags.js';
import { runCrawl } from '../cli/run-crawl.js';
import { planReports, readIgnoreFile, type ReportingOptions } from '../cli/reporting.js';
import type { CrawlSummary } from '../model/summary.js';
import { DEFAULT_MAX_PAGES, OptionsError, type CrawlOptions } from '../crawl/options.js';
import { SqliteFrontier } from '../store/sqlite/frontier.js';
import { applyCrawlKey, crawlKeyOf } from '../crawl/crawl-key.js';
import { NoSuchCrawlError, RedisFrontier } from '../store/redis/frontier.js';
import { checkRedisTarget } from '../cli/redis-target.js';
import { parseBudget } from '../report/budget.js';

export { crawlKeyOf } from '../crawl/crawl-key.js';
import type { PageRecord } from '../model/record.js';
import { InvalidUrlError } from '../url/normalize.js';
import { compilePattern, type ScopeMode } from '../url/scope.js';
import type { HashRouteMode } from '../url/normalize.js';

/**
 * Check a seed (or another URL given on the command line) before anything starts: absolute
 * http(s), no credentials.
 * @param raw - the argument as typed
 * @param what - what the URL is, for the error line (default `seed URL`)
 * @returns the parsed URL (its WHATWG `href`)
 * @throws InvalidUrlError with a one-line message otherwise
 */
export function checkSeed(raw: string, what = 'seed URL'): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new InvalidUrlError(raw, `expected an absolute http:// or https:// ${what}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new InvalidUrlError(raw, `unsupported scheme ${u.protocol} (only http and https can be crawled)`);
  }
  if (u.username || u.password) throw new InvalidUrlError(raw, 'URLs with credentials (user:pass@) are refused');
  return u.href;
}

/** `spacrawl crawl <url...>`: the main job. */
export default class Crawl extends SpacrawlCommand {
  static override summary = 'Crawl a site in real Chromium and report every page a person can reach';
  static override description = `Loads each page in headless Chromium, waits for it to settle (network idle and no DOM change, capped), reads the rendered links and title, clicks navigation without href, and follows in-scope links breadth-first. Writes a log line per page, a summary and the issue table to stderr; --out writes JSON Lines; --report and --output-dir write reports; --json prints the summary object on stdout.

Exit codes: 0 finished and no --fail-on rule matched; 1 a --fail-on rule matched (default: broken-link,server-error, i.e. a page with an error, a status >= 400 or a soft 404, or a 5xx) or no seed could be crawled; 2 bad usage or input (nothing crawled); 3 infrastructure failure (partial output flushed); 130/143 interrupted by SIGINT/SIGTERM (partial output flushed).`;
  static override examples = [
    '<%= config.bin %> crawl https://example.com/',
    '<%= config.bin %> crawl http://127.0.0.1:3000/ --concurrency 8 --out pages.jsonl --screenshots shots/',
    '<%= config.bin %> crawl https://example.com/ --max-depth 2 --json > summary.json',
  ];
  static override strict = false;
  static override enableJsonFlag = true;
  static override args = {
    url: Args.string({ description: 'seed URL(s): absolute http:// or https:// URLs (optional for a worker joining a --redis crawl)', required: false }),
  };
  static override flags = crawlFlags;

  async run(): Promise<CrawlSummary> {
    const parsed = await this.parse(Crawl);
    const { argv } = parsed;
    let flags = parsed.flags;
    try {
      flags = await applyConfig(Crawl.flags, flags, this.argv, flags.config);
      const seeds = (argv as string[]).map((a) => checkSeed(a));
      checkSharedFlags(flags, seeds.length);
      let out = flags.out ? path.resolve(flags.out) : null;
      const shots = flags.screenshots
        ? path.resolve(flags.screenshots)
        : flags['output-dir']
          ? path.join(path.resolve(flags['output-dir']), 'screenshots')
          : null;
      if (shots) checkWritableDir(shots, flags.screenshots ? `screenshots to ${shots}` : `to --output-dir ${path.resolve(flags['output-dir']!)}`);
      let options: CrawlOptions = {
        seeds,
        concurrency: flags.concurrency,
        maxPages: flags['max-pages'],
        scope: flags.scope as ScopeMode,
        screenshotsDir: shots,
        ignoreRobots: flags['ignore-robots'],
        userAgent: flags['user-agent'] ?? null,
        timeoutMs: flags.timeout,
        settleTimeoutMs: flags['settle-timeout'],
        browserPath: flags['browser-path'] ?? null,
        proxy: flags.proxy ?? null,
        click: flags.click as 'auto' | 'all' | 'off',
        clickLimit: flags['click-limit'],
        clickExclude: flags['click-exclude'] ?? [],
        clickRepeat: flags['click-repeat'],
        scroll: flags.scroll,
        scrollLimit: flags['scroll-limit'],
        soft404: flags.soft404,
        dedupeContent: flags['dedupe-content'],
        include: flags.include ?? [],
        exclude: flags.exclude ?? [],
        hashRoutes: flags['hash-routes'] as HashRouteMode,
        keepParams: flags['keep-params'],
        stripParams: flags['strip-param'] ?? [],
        foldTrailingSlash: flags['fold-trailing-slash'],
        foldIndex: flags['fold-index'],
        robotsAgent: flags['robots-agent'],
        followNofollow: flags['follow-nofollow'],
        sitemap: flags.sitemap,
        rate: flags.rate === undefined ? null : parseRate(flags.rate),
        perHostConcurrency: flags['per-host-concurrency'] ?? null,
        retries: flags.retries,
        maxRetryAfterMs: flags['max-retry-after'] * 1000,
        maxQueryVariants: flags['max-query-variants'],
        recycleAfter: flags['recycle-after'],
        ignoreHttpsErrors: flags['ignore-https-errors'],
        viewport: flags.viewport ? parseViewport(flags.viewport) : null,
        device: flags.device ? checkDevice(flags.device) : null,
        locale: flags.locale ?? null,
        storageState: flags['storage-state'] ? checkReadable('--storage-state', path.resolve(flags['storage-state'])) : null,
        headers: parseHeaders(flags.header ?? []),
        checkExternal: flags['check-external'],
        checkFragments: flags['check-fragments'],
        a11y: flags.a11y,
        a11yTags: flags['a11y-tags'].split(',').map((t) => t.trim()).filter(Boolean),
        vitals: flags.vitals,
        vitalsConcurrency: flags['vitals-concurrency'] ?? null,
        vitalsThrottle: flags['vitals-throttle'] as 'none' | 'mobile',
      };
      if (flags.budget !== undefined && !flags.vitals) throw new OptionsError('--budget needs --vitals (budgets limit the measured vitals)');
      for (const p of [...(options.include ?? []), ...(options.exclude ?? [])]) compilePattern(p);
      for (const p of options.clickExclude ?? []) checkRegex('--click-exclude', p);
      if (flags['max-depth'] !== undefined) options.maxDepth = flags['max-depth'];
      if (flags['max-time'] !== undefined) options.maxTimeSeconds = flags['max-time'];
      let earlier: AsyncIterable<PageRecord> | undefined;
      let durable: SqliteFrontier | null = null;
      if (flags.state) {
        durable = SqliteFrontier.open(path.resolve(flags.state), { crawlKey: crawlKeyOf(options), force: flags.force });
        options.frontier = durable;
        earlier = durable.records();
      }
      const reporting: ReportingOptions = {
        reports: flags.report ?? [],
        outputDir: flags['output-dir'] ? path.resolve(flags['output-dir']) : null,
        failOn: flags['fail-on'].split(',').map((x) => x.trim()).filter(Boolean),
        failOnWarnings: flags['fail-on-warnings'],
        ignore: [...(flags['ignore-url'] ?? []), ...readIgnoreFile(path.resolve('.spacrawlignore'))],
        slowMs: flags.slow,
        budget: flags.budget === undefined ? null : parseBudget(flags.budget),
        json: flags.json ?? false,
        screenshotsDir: shots,
      };
      planReports(reporting); // bad report flags are usage errors, found before crawling
      // After every usage check, so that a usage error leaves a shared crawl untouched.
      if (flags.redis) {
        const store = await RedisFrontier.open(flags.redis, {
          crawlId: flags['crawl-id']!,
          crawlKey: seeds.length ? crawlKeyOf(options) : null,
          force: flags.force,
          leaseTtlMs: flags['lease-ttl'] * 1000,
          retryMs: flags['redis-timeout'] * 1000,
          maxPages: flags['max-pages'],
        }).catch((err: unknown) => {
          if (err instanceof NoSuchCrawlError) throw new OptionsError(`${err.message}: give seed URLs to start it`);
          throw err;
        });
        if (!seeds.length) {
          options = applyCrawlKey(options, store.crawlKey);
          process.stderr.write(`joining crawl ${store.crawlId}: ${options.seeds.join(' ')}\n`);
        }
        options.frontier = store;
      }
      if (!out && flags['output-dir']) out = path.join(path.resolve(flags['output-dir']), 'pages.jsonl');
      // A resume with a larger --max-pages or --max-depth goes on where the budget stopped (after
      // every usage check: runCrawl takes the reopened URLs' old records out of --out).
      const reopened = durable ? await durable.reopenBudget({ maxPages: options.maxPages ?? DEFAULT_MAX_PAGES, maxDepth: options.maxDepth ?? Infinity }) : [];
      const { summary, exitCode } = await runCrawl(options, {
        reporting,
        outFile: out,
        log: process.stderr,
        quiet: flags.quiet,
        verbose: flags.verbose,
        progress: flags.progress,
        append: Boolean(flags.state),
        shared: Boolean(flags.redis),
        ...(earlier ? { earlier, reopened } : {}),
      });
      process.exitCode = exitCode;
      return summary;
    } catch (err) {
      const { message, exit } = classifyError(err);
      failAndExit(message, exit);
    }
  }
}

/**
 * Check the flags of a shared (`--redis`) crawl against each other and the seeds.
 * @throws OptionsError for `--redis` without `--crawl-id` (or the reverse), `--redis` with
 * `--state`, a bad Redis URL or crawl id, or no seed without `--redis`
 */
export function checkSharedFlags(flags: { redis?: string | undefined; 'crawl-id'?: string | undefined; state?: string | undefined }, seedCount: number): void {
  if (flags.redis && flags.state) throw new OptionsError('--redis and --state cannot be used together (one frontier per crawl)');
  if (flags.redis && !flags['crawl-id']) throw new OptionsError('--redis needs --crawl-id NAME (the shared crawl to join)');
  if (flags['crawl-id'] && !flags.redis) throw new OptionsError('--crawl-id needs --redis URL');
  if (flags.redis) checkRedisTarget(flags.redis, flags['crawl-id']!);
  else if (seedCount === 0) throw new OptionsError('give at least one seed URL, e.g. spacrawl crawl https://example.com/');
}

/**
 * Parse `--viewport WIDTHxHEIGHT`.
 * @throws OptionsError otherwise
 */
export function parseViewport(v: string): { width: number; height: number } {
  const m = /^(\d{2,5})x(\d{2,5})$/i.exec(v.trim());
  if (!m) throw new OptionsError(`--viewport must look like 1280x800, got ${JSON.stringify(v)}`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

/**
 * Check a Playwright device name.
 * @throws OptionsError for an unknown one, naming a few known ones
 */
export function checkDevice(name: string): string {
  if (devices[name]) return name;
  const near = Object.keys(devices).filter((d) => d.toLowerCase().includes(name.toLowerCase().split(' ')[0] ?? '')).slice(0, 5);
  throw new OptionsError(`unknown --device ${JSON.stringify(name)}${near.length ? ` (did you mean ${near.map((d) => JSON.stringify(d)).join(', ')}?)` : ''}`);
}

/**
 * Parse repeated `--header "Name: value"`.
 * @throws OptionsError for a value without a colon or with an invalid name
 */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const i = v.indexOf(':');
    const name = i > 0 ? v.slice(0, i).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new OptionsError(`--header must look like "Name: value", got ${JSON.stringify(v)}`);
    out[name] = v.slice(i + 1).trim();
  }
  return out;
}

/**
 * Check that a file exists and can be read.
 * @throws OptionsError otherwise
 */
export function checkReadable(flag: string, file: string): string {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return file;
  } catch {
    throw new OptionsError(`${flag} ${file}: no such readable file`);
  }
}

/**
 * Check a regex flag value.
 * @throws OptionsError with a one-line message when it does not compile
 */
export function checkRegex(flag: string, source: string): void {
  try {
    new RegExp(source, 'i');
  } catch (err) {
    throw new OptionsError(`${flag} ${JSON.stringify(source)} is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Parse `--rate`: a positive number of navigations per second.
 * @throws OptionsError otherwise
 */
export function parseRate(v: string): number {
  const n = Number(v);
  if (!/^\d*\.?\d+$/.test(v.trim()) || !(n > 0)) throw new OptionsError(`--rate must be a positive number of page navigations per second, got ${JSON.stringify(v)}`);
  return n;
}

/**
 * Make sure `dir` exists (creating it) and is writable.
 * @param what - what the error line says cannot be written (default `screenshots to <dir>`)
 * @throws OptionsError with a one-line message otherwise
 */
export function checkWritableDir(dir: string, what = `screenshots to ${dir}`): void {
  try {
    ensureWritableDir(dir);
  } catch (err) {
    throw new OptionsError(`cannot write ${what}: ${describeFsError(err)}`);
  }
}
