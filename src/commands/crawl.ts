import { SpacrawlCommand } from '../cli/base-command.js';
import path from 'node:path';
import { Args } from '@oclif/core';
import { applyConfig } from '../cli/config.js';
import { classifyError } from '../cli/errors.js';
import { crawlFlags, type CrawlFlags } from '../cli/flags.js';
import { CLI_OPTIONS as X } from '../cli/cli-options.js';
import { openFrontier, type FrontierChoice } from '../cli/open-frontier.js';
import { runCrawl, type BaselineRun } from '../cli/run-crawl.js';
import { CrawlStop } from '../cli/crawl-stop.js';
import { checkBaselineSite, openBaseline, parseGateFailOn, type CrawlTargets } from '../diff/baseline.js';
import { parseVisualThreshold } from '../diff/visual.js';
import { mapSourceOrigins, parseOriginMaps } from '../diff/map-origin.js';
import { planReports, readIgnoreFile, type ReportingOptions } from '../cli/reporting.js';
import {
  checkAuditFlags,
  checkDevice,
  checkPatterns,
  checkReadable,
  checkScreenshotFlags,
  checkStorageState,
  checkSeed,
  checkSharedFlags,
  checkWritableDir,
  parseHeaders,
  parseRate,
  parseViewport,
} from '../cli/validate.js';
import type { CrawlSummary } from '../model/summary.js';
import type { LogFormat } from '../cli/observers.js';
import { OptionsError } from '../crawl/options.js';
import { parseMetricsAddress } from '../report/metrics.js';
import { RedisFrontier } from '../store/redis/frontier.js';
import { parseBudget } from '../report/budget.js';
import type { CrawlOptions } from '../crawl/options.js';
import { CRAWL_OPTIONS as C } from '../crawl/option-table.js';
import { toLibraryUnit } from '../crawl/option-spec.js';
import type { AssetLoading } from '../browser/asset-placeholders.js';
import type { HashRouteMode } from '../url/normalize.js';
import type { ScopeMode } from '../url/scope.js';
import { missingFolders, removeEmptyFolders } from '../util/files.js';

export { crawlKeyOf } from '../crawl/crawl-key.js';

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
  // The default synopsis lists every flag (over 20 lines): the common ones, then FLAGS below.
  static override usage = [
    '<%= command.id %> URL... [--out FILE] [--report FORMAT...] [--output-dir DIR] [--fail-on RULES] [FLAGS]',
    '<%= command.id %> --redis URL [--crawl-id ID] [FLAGS]',
  ];
  static override strict = false;
  static override enableJsonFlag = true;
  static override args = {
    url: Args.string({ description: 'seed URL(s): absolute http:// or https:// URLs (optional for a worker joining a --redis crawl)', required: false }),
  };
  static override flags = crawlFlags;

  async run(): Promise<CrawlSummary> {
    const parsed = await this.parse(Crawl);
    // Folders the usage checks create (--output-dir, --screenshots and their parents): a crawl
    // refused before it starts removes them again while they are empty.
    let madeFolders: string[] = [];
    let started = false;
    // Ctrl-C from here on is the crawl's to answer (before it starts: leave at once, nothing crawled).
    const stop = new CrawlStop(this.io, () => removeEmptyFolders(madeFolders));
    try {
      // Every usage check first (flags, seeds, folders, patterns, reports), then the stores.
      const flags = await applyConfig(Crawl.flags, parsed.flags, this.argv, parsed.flags.config);
      const seeds = (parsed.argv as string[]).map((a) => checkSeed(a));
      checkSharedFlags(flags, seeds.length);
      checkAuditFlags(flags);
      const outputDir = flags['output-dir'] ? path.resolve(flags['output-dir']) : null;
      const shots = flags.screenshots ? path.resolve(flags.screenshots) : outputDir ? path.join(outputDir, 'screenshots') : null;
      checkScreenshotFlags(flags, shots !== null);
      madeFolders = [...new Set([...(shots ? missingFolders(shots) : []), ...(outputDir ? missingFolders(outputDir) : [])])].sort((a, b) => b.length - a.length);
      if (shots) checkWritableDir(shots, flags.screenshots ? `screenshots to ${shots}` : `to --output-dir ${outputDir!}`);
      // A login recipe reads its secrets from the command's environment.
      const options = { ...crawlOptionsOf(flags, seeds, shots), loginEnv: this.io.env };
      checkPatterns(options);
      const reporting = reportingOf(flags, outputDir, shots);
      // --fail-on new / new:RULE need --baseline; the audit gets plain rule ids.
      reporting.failOn = parseGateFailOn(reporting.failOn, Boolean(flags.baseline)).rules;
      planReports(reporting); // bad report flags are usage errors, found before crawling
      const metrics = flags.metrics ? parseMetricsAddress(flags.metrics) : null;
      if (flags.metrics && !metrics) throw new OptionsError(`--metrics ${JSON.stringify(flags.metrics)}: expected PORT or HOST:PORT, e.g. 9464 or 0.0.0.0:9464`);
      const out = flags.out ? path.resolve(flags.out) : outputDir ? path.join(outputDir, 'pages.jsonl') : null;
      if (flags['map-origin'] !== undefined && !flags.baseline) throw new OptionsError('--map-origin needs --baseline (it maps the baseline\'s URLs)');
      const baseline = flags.baseline ? await baselineOf(flags, { outputDir, outFile: out, stateFile: flags.state ? path.resolve(flags.state) : null, seeds: options.seeds }) : undefined;
      const opened = await openFrontier(options, frontierChoiceOf(flags), (line) => this.io.stderr.write(`${line}\n`));
      const frontier = opened.options.frontier;
      started = true;
      const { summary, exitCode } = await runCrawl(opened.options, this.io, {
        ...(baseline ? { baseline } : {}),
        reporting,
        outFile: out,
        quiet: flags.quiet,
        verbose: flags.verbose,
        progress: flags.progress,
        append: opened.durable,
        logFormat: flags['log-format'] as LogFormat,
        metrics,
        metricsLingerMs: toLibraryUnit(X.metricsLingerMs, flags['metrics-linger']),
        ...(frontier instanceof RedisFrontier ? { metricsLabels: { crawl_id: frontier.crawlId, worker_id: frontier.workerId } } : {}),
        shared: opened.shared,
        ...(opened.earlier ? { earlier: opened.earlier } : {}),
        reopened: opened.reopened,
        stop,
      });
      await baseline?.source.close();
      this.setExitCode(exitCode);
      return summary;
    } catch (err) {
      if (!started) removeEmptyFolders(madeFolders);
      const { message, exit } = classifyError(err);
      this.fail(message, exit);
    } finally {
      stop.close();
    }
  }
}

/**
 * The crawl's options from the flags: names, units (`--max-retry-after` seconds →
 * `maxRetryAfterMs`) and parsed values; the defaults are already in the flags.
 * @throws OptionsError for a bad `--rate`, `--viewport`, `--device`, `--storage-state` or `--header`
 */
export function crawlOptionsOf(flags: CrawlFlags, seeds: string[], screenshotsDir: string | null): CrawlOptions {
  return {
    seeds,
    concurrency: flags.concurrency,
    maxPages: flags['max-pages'],
    scope: flags.scope as ScopeMode,
    screenshotsDir,
    screenshotMode: flags.screenshot as 'full' | 'viewport',
    hide: flags.hide ?? [],
    visualMask: flags['visual-mask'] ?? [],
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
    assets: flags.assets as AssetLoading,
    hashRouteReuse: flags['hash-route-reuse'],
    historyRouteReuse: flags['history-route-reuse'],
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
    maxRetryAfterMs: toLibraryUnit(C.maxRetryAfterMs, flags['max-retry-after']),
    maxQueryVariants: flags['max-query-variants'],
    recycleAfter: flags['recycle-after'],
    ignoreHttpsErrors: flags['ignore-https-errors'],
    viewport: flags.viewport ? parseViewport(flags.viewport) : null,
    device: flags.device ? checkDevice(flags.device) : null,
    locale: flags.locale ?? null,
    storageState: flags['storage-state'] ? checkStorageState('--storage-state', path.resolve(flags['storage-state'])) : null,
    headers: parseHeaders(flags.header ?? []),
    login: flags.login ? checkReadable('--login', path.resolve(flags.login)) : null,
    loggedOut: flags['logged-out'] ?? [],
    checkExternal: flags['check-external'],
    checkFragments: flags['check-fragments'],
    a11y: flags.a11y,
    ...(flags['a11y-tags'] !== undefined ? { a11yTags: flags['a11y-tags'].flatMap((v) => v.split(',')).map((t) => t.trim()).filter(Boolean) } : {}),
    vitals: flags.vitals,
    vitalsConcurrency: flags['vitals-concurrency'] ?? null,
    vitalsThrottle: flags['vitals-throttle'] as 'none' | 'mobile',
    ...(flags['max-depth'] !== undefined ? { maxDepth: flags['max-depth'] } : {}),
    ...(flags['max-time'] !== undefined ? { maxTimeSeconds: flags['max-time'] } : {}),
  };
}

/**
 * `--baseline` opened before the crawl, with `--visual-threshold`; diff images go to
 * `--output-dir`'s `visual-diff/`.
 * `--map-origin` wraps the baseline so that its URLs are read on this crawl's origin.
 * @throws DiffInputError for a missing baseline, one that is not a crawl or one this crawl writes,
 *   a baseline of another origin without `--map-origin`, a bad `--map-origin` or a bad threshold
 */
async function baselineOf(flags: CrawlFlags, targets: CrawlTargets & { seeds: readonly string[] }): Promise<BaselineRun> {
  const visualThreshold = parseVisualThreshold(flags['visual-threshold']);
  const originMap = parseOriginMaps(flags['map-origin'] ?? []);
  // --map-origin: the baseline's URLs read on this crawl's origin, for the site check and the diff.
  const source = mapSourceOrigins(await openBaseline(flags.baseline!, targets), originMap);
  try {
    await checkBaselineSite(source, targets.seeds);
  } catch (err) {
    await source.close();
    throw err;
  }
  return { source, visualThreshold, visualDir: targets.outputDir ? path.join(targets.outputDir, 'visual-diff') : null };
}

/** Reports, `--fail-on` and the ignore lists from the flags (and `./.spacrawlignore`). */
export function reportingOf(flags: CrawlFlags, outputDir: string | null, screenshotsDir: string | null): ReportingOptions {
  return {
    reports: flags.report ?? [],
    outputDir,
    failOn: flags['fail-on'].split(',').map((x) => x.trim()).filter(Boolean),
    failOnWarnings: flags['fail-on-warnings'],
    ignore: [...(flags['ignore-url'] ?? []), ...readIgnoreFile(path.resolve('.spacrawlignore'))],
    slowMs: flags.slow,
    budget: flags.budget === undefined ? null : parseBudget(flags.budget),
    json: flags.json ?? false,
    screenshotsDir,
  };
}

/** The store flags, in the library's units. */
export function frontierChoiceOf(flags: CrawlFlags): FrontierChoice {
  return {
    state: flags.state ? path.resolve(flags.state) : null,
    redis: flags.redis ?? null,
    crawlId: flags['crawl-id'] ?? null,
    force: flags.force,
    leaseTtlMs: toLibraryUnit(X.leaseTtlMs, flags['lease-ttl']),
    redisRetryMs: toLibraryUnit(X.redisRetryMs, flags['redis-timeout']),
  };
}
