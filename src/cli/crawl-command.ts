/**
 * What `spacrawl crawl` does once its flags are parsed: check them, open the stores, crawl, report.
 * `src/commands/crawl.ts` declares the command (what `--help` and flag parsing need) and loads this
 * module only when a crawl runs, so that `--help` and a bad flag never load Playwright, the stores
 * or the reporters; this module loads them only once its usage checks passed, so that bad input
 * does not either (`test/unit/startup-imports.test.ts`).
 * @module
 */
import path from 'node:path';
// Only what the usage checks need is imported here: the crawl's machinery (the stores, the
// crawler and Playwright, the reporters, the metrics, the diff with the baseline) is imported
// below once the checks passed, so that bad input answers without loading it.
import { applyConfig } from './config.js';
import { classifyError } from './errors.js';
import { crawlFlags, type CrawlFlags } from './flags.js';
import type { SpacrawlCommand } from './base-command.js';
import { CLI_OPTIONS as X } from './cli-options.js';
import type { FrontierChoice } from './open-frontier.js';
import type { BaselineRun } from './run-crawl.js';
import { CrawlStop } from './crawl-stop.js';
import { startEarlyLaunch, type EarlyLaunch } from './early-launch.js';
import { planReports, readIgnoreFile, type ReportingOptions } from './report-plan.js';
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
} from './validate.js';
import type { LogFormat } from './observers.js';
import { checkBaselineSite, openBaseline, type CrawlTargets } from '../diff/baseline-open.js';
import { parseGateFailOn } from '../diff/findings.js';
import { parseVisualThreshold } from '../diff/visual-threshold.js';
import { mapSourceOrigins, parseOriginMaps } from '../diff/map-origin.js';
import type { CrawlSummary } from '../model/summary.js';
import { resolveValues, type CrawlOptions } from '../crawl/options.js';
import { checkSeedsNotExcluded } from '../crawl/excluded-seeds.js';
import { OptionsError } from '../crawl/options-error.js';
import { parseMetricsAddress } from '../report/metrics-address.js';
import { parseBudget } from '../report/budget.js';
import { CRAWL_OPTIONS as C } from '../crawl/option-table.js';
import { toLibraryUnit } from '../crawl/option-spec.js';
import type { AssetLoading } from '../browser/asset-placeholders.js';
import type { HashRouteMode } from '../url/normalize.js';
import type { ScopeMode } from '../url/scope.js';
import { checkWritableFile, describeFsError, missingFolders, removeEmptyFolders } from '../util/files.js';

/**
 * Run `spacrawl crawl` with its parsed flags and seed arguments: usage checks first (flags, seeds,
 * folders, patterns, reports), then the stores, then the crawl; sets the command's exit code.
 * An error leaves through {@link SpacrawlCommand.fail} with its exit code.
 * @param cmd - the running `crawl` command (its streams, raw argv for `--config`, exit code)
 * @param parsed - oclif's parse of the command line: the flags and the seed URLs
 * @returns the crawl's summary (what `--json` prints)
 */
export async function crawlCommand(cmd: SpacrawlCommand, parsed: { flags: CrawlFlags; argv: readonly string[] }): Promise<CrawlSummary> {
  // Folders the usage checks create (--output-dir, --screenshots and their parents): a crawl
  // refused before it starts removes them again while they are empty.
  let madeFolders: string[] = [];
  let started = false;
  // Ctrl-C from here on is the crawl's to answer (before it starts: leave at once, nothing crawled).
  const stop = new CrawlStop(cmd.io, () => removeEmptyFolders(madeFolders));
  let early: EarlyLaunch | null = null;
  try {
    // Every usage check first (flags, seeds, folders, patterns, reports), then the stores.
    const flags = await applyConfig(crawlFlags, parsed.flags, cmd.argv, parsed.flags.config);
    const seeds = parsed.argv.map((a) => checkSeed(a));
    checkSharedFlags(flags, seeds.length);
    checkAuditFlags(flags);
    const outputDir = flags['output-dir'] ? path.resolve(flags['output-dir']) : null;
    const shots = flags.screenshots ? path.resolve(flags.screenshots) : outputDir ? path.join(outputDir, 'screenshots') : null;
    checkScreenshotFlags(flags, shots !== null);
    madeFolders = [...new Set([...(shots ? missingFolders(shots) : []), ...(outputDir ? missingFolders(outputDir) : [])])].sort((a, b) => b.length - a.length);
    if (shots) checkWritableDir(shots, flags.screenshots ? `screenshots to ${shots}` : `to --output-dir ${outputDir!}`);
    // A login recipe reads its secrets from the command's environment.
    const options = { ...crawlOptionsOf(flags, seeds, shots), loginEnv: cmd.io.env };
    checkPatterns(options);
    const reporting = reportingOf(flags, outputDir, shots);
    // --fail-on new / new:RULE need --baseline; the audit gets plain rule ids.
    reporting.failOn = parseGateFailOn(reporting.failOn, Boolean(flags.baseline)).rules;
    planReports(reporting); // bad report flags are usage errors, found before crawling
    const metrics = flags.metrics ? parseMetricsAddress(flags.metrics) : null;
    if (flags.metrics && !metrics) throw new OptionsError(`--metrics ${JSON.stringify(flags.metrics)}: expected PORT or HOST:PORT, e.g. 9464 or 0.0.0.0:9464`);
    const out = flags.out ? path.resolve(flags.out) : outputDir ? path.join(outputDir, 'pages.jsonl') : null;
    // Before the browser launches: the writer would refuse it only once the crawl's machinery is up.
    if (out) {
      try {
        checkWritableFile(out);
      } catch (err) {
        throw new OptionsError(`cannot write ${out}: ${describeFsError(err)}`);
      }
    }
    if (flags['map-origin'] !== undefined && !flags.baseline) throw new OptionsError('--map-origin needs --baseline (it maps the baseline\'s URLs)');
    const baseline = flags.baseline ? await baselineOf(flags, { outputDir, outFile: out, stateFile: flags.state ? path.resolve(flags.state) : null, seeds: options.seeds }) : undefined;
    // The crawler's own checks of the values (ranges, --proxy, --logged-out, --a11y-tags): it
    // makes them again, but here they come before a store is opened or the metrics listen.
    const values = resolveValues(options);
    checkSeedsNotExcluded(options.seeds, values);
    // The checks passed: now the crawl's machinery, with the browser launching meanwhile.
    early = startEarlyLaunch(options);
    // Chromium's process starts before the crawl's modules are evaluated, and starts up meanwhile.
    await early.started;
    const [{ openFrontier }, { runCrawl }] = await Promise.all([import('./open-frontier.js'), import('./run-crawl.js')]);
    const opened = await openFrontier(options, frontierChoiceOf(flags), (line) => cmd.io.stderr.write(`${line}\n`));
    started = true;
    const launching = early.for(opened.options);
    const { summary, exitCode } = await runCrawl(launching ? { ...opened.options, launching } : opened.options, cmd.io, {
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
      ...(opened.worker ? { metricsLabels: { crawl_id: opened.worker.crawlId, worker_id: opened.worker.workerId } } : {}),
      shared: opened.shared,
      ...(opened.earlier ? { earlier: opened.earlier } : {}),
      reopened: opened.reopened,
      ...(opened.undecided ? { undecided: opened.undecided } : {}),
      stop,
    });
    await baseline?.source.close();
    cmd.setExitCode(exitCode);
    return summary;
  } catch (err) {
    if (!started) removeEmptyFolders(madeFolders);
    const { message, exit } = classifyError(err);
    cmd.fail(message, exit);
  } finally {
    stop.close();
    // When the crawl did not take it (it closes its own). A process that exits next need not wait
    // for the browser to close: its exit kills what is left (see `CrawlOptions.processExitsAfter`).
    await closeEarly(early, cmd.io.exitsAfterRun === true);
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

/**
 * Close the early browser launch, if one was started (see `early-launch.ts`). A function of its
 * own because TypeScript narrows `early` to `null` in the `finally` of the try that assigns it.
 * @param exitsNext - the process exits next: the close is started and not waited for
 */
async function closeEarly(early: EarlyLaunch | null, exitsNext: boolean): Promise<void> {
  const closing = early?.close();
  if (!exitsNext) await closing;
}
