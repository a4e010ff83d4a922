import { Crawler } from '../crawl/crawler.js';
import type { CrawlOptions } from '../crawl/options.js';
import { JsonlWriter } from '../report/jsonl.js';
import { isErrorPage, isPage, type PageRecord } from '../model/record.js';
import { TerminalLog, type LogEnv } from '../report/progress.js';
import { DEFAULT_FAIL_ON, finishReports, planReports, type ReportingOptions } from './reporting.js';
import { classifyError } from './errors.js';
import { SummaryCounter, type CrawlSummary } from '../report/summary.js';
import { summaryLine } from '../report/terminal.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { openObservers, type LogFormat } from './observers.js';
import type { MetricsAddress } from '../report/metrics.js';

/** Where a CLI crawl writes. */
export interface CrawlOutput {
  /** JSON Lines report file, or `null`. */
  outFile: string | null;
  /** Log stream (stderr): one line per record and the summary line. */
  log: NodeJS.WritableStream;
  /** Print nothing per page (summary only). */
  quiet?: boolean;
  /** `--verbose`: settle timings on page lines, and a line per skipped URL. */
  verbose?: boolean;
  /** `false` for `--no-progress`: no live progress line even on a TTY. @default true */
  progress?: boolean;
  /** Environment for the log's TTY, `CI`, `NO_COLOR` and `FORCE_COLOR` decisions. @default process.env */
  env?: LogEnv;
  /** When `true`, the exit code is 0 whenever the crawl finishes (the `demo` command). */
  neverFailOnFindings?: boolean;
  /** Append to `outFile` instead of truncating it (resuming a `--state` crawl). */
  append?: boolean;
  /**
   * The frontier is shared with other workers (`--redis`): this run reports its own share of
   * the pages, and not visiting a seed (another worker did) is not a failure.
   */
  shared?: boolean;
  /** Records of earlier runs of the same crawl (`--state`), counted in the summary and exit code. */
  earlier?: AsyncIterable<PageRecord>;
  /**
   * URLs a resume queued again (`--state` with a larger budget): their records from earlier runs
   * are removed from `outFile`, since they get a new one.
   */
  reopened?: readonly string[];
  /** Reports, `--fail-on` and ignore lists; default: no reports, fail on broken links and server errors. */
  reporting?: ReportingOptions;
  /** `--log-format`: `json` writes one JSON object per line on `log` instead of the human lines. @default 'human' */
  logFormat?: LogFormat;
  /** `--metrics`: serve Prometheus metrics of the crawl here while it runs. @default none */
  metrics?: MetricsAddress | null;
  /** Labels on every metric: `crawl_id` and `worker_id` in a Redis crawl. */
  metricsLabels?: Record<string, string>;
}

/** Outcome of {@link runCrawl}. */
export interface CrawlRun {
  summary: CrawlSummary;
  exitCode: ExitCodeValue;
}

/**
 * Run a crawl the CLI way: records to `--out` as they finish, a log line per record and a
 * summary line on the log stream, SIGINT/SIGTERM handling (first: stop starting pages, give
 * in-flight ones the grace period, flush, exit 130/143; second: flush and exit at once),
 * and the exit code of DESIGN.md.
 * @throws OptionsError, BrowserNotFoundError, OutputError, InvalidUrlError before anything is crawled
 */
export async function runCrawl(options: CrawlOptions, output: CrawlOutput): Promise<CrawlRun> {
  const json = output.logFormat === 'json';
  const term = new TerminalLog({
    stream: output.log,
    quiet: json || (output.quiet ?? false),
    verbose: !json && (output.verbose ?? false),
    progress: !json && (output.progress ?? true),
    ...(output.env ? { env: output.env } : {}),
  });
  // With --log-format json, every log line is a JSON object (from the crawl's events).
  const say = (line: string): void => {
    if (!json) term.line(line);
  };
  let crawlerRef: Crawler | null = null;
  const observers = await openObservers({
    logFormat: output.logFormat ?? 'human',
    metrics: output.metrics ?? null,
    log: output.log,
    counts: async () => (crawlerRef ? crawlerRef.frontierCounts() : null),
    ...(output.metricsLabels ? { labels: output.metricsLabels } : {}),
  });
  if (observers.metricsUrl) {
    say(`metrics: ${observers.metricsUrl}`);
    if (json) observers.onEvent({ type: 'notice', message: `metrics: ${observers.metricsUrl}` });
  }
  let crawler: Crawler;
  try {
    crawler = new Crawler({ ...options, onNotice: (m) => say(`note: ${m}`), onEvent: (e) => observers.onEvent(e) }); // validates options first
  } catch (err) {
    await observers.close();
    throw err;
  }
  crawlerRef = crawler;
  const reporting: ReportingOptions = output.reporting ?? {
    reports: [],
    outputDir: null,
    failOn: DEFAULT_FAIL_ON,
    failOnWarnings: false,
    ignore: [],
    slowMs: 3000,
    json: false,
    screenshotsDir: options.screenshotsDir ?? null,
  };
  const plan = planReports(reporting);
  const all: PageRecord[] = [];
  // Resuming: records the store has but --out lacks (the process died between the two) are
  // written first, so every page ends up in --out exactly once.
  const reopened = new Set(output.reopened ?? []);
  const inOut = output.outFile && output.append ? JsonlWriter.recover(output.outFile, reopened) : new Set<string>();
  const writer = output.outFile ? new JsonlWriter(output.outFile, output.append ?? false) : null;
  const counter = new SummaryCounter();
  // For the live progress line: pages decided and error pages, earlier runs included.
  let pagesDone = 0;
  let errorPages = 0;
  const tally = (r: PageRecord): void => {
    if (isPage(r)) pagesDone++;
    if (isErrorPage(r)) errorPages++;
  };
  let earlier = 0;
  if (output.earlier) {
    let caughtUp = 0;
    for await (const r of output.earlier) {
      counter.add(r);
      tally(r);
      all.push(r);
      earlier++;
      if (writer && !inOut.has(r.url)) {
        writer.write(r);
        caughtUp++;
      }
    }
    if (earlier) say(`resuming: ${earlier} URLs already decided in earlier runs${caughtUp ? ` (${caughtUp} written to --out now)` : ''}`);
    if (reopened.size) say(`resuming: ${reopened.size} URLs skipped for the budget before are queued again`);
  }
  const t0 = Date.now();
  let origin: string | null = null;
  try {
    origin = new URL(options.seeds[0]!).origin;
  } catch {
    origin = null;
  }

  let signalExit: ExitCodeValue | null = null;
  const onSignal = (sig: NodeJS.Signals): void => {
    const code = sig === 'SIGTERM' ? ExitCode.Sigterm : ExitCode.Sigint;
    if (signalExit !== null) {
      // Second signal: records are already on disk line by line; leave now.
      writer?.close();
      term.stop();
      say(`${sig} again: exiting now`);
      process.exit(code);
    }
    signalExit = code;
    say(`${sig}: finishing pages in flight (${sig === 'SIGINT' ? 'press Ctrl-C' : 'send SIGTERM'} again to quit at once)`);
    crawler.cancel('interrupted');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let fatal: { message: string } | null = null;
  let written = 0;
  let lastQueued: number | null = null;
  term.start(async () => {
    try {
      lastQueued = (await crawler.frontierCounts()).queued;
    } catch {
      // the store closes as the crawl ends: keep the last count
    }
    return { done: pagesDone, queued: lastQueued, errors: errorPages };
  }, t0);
  try {
    for await (const r of crawler.records()) {
      writer?.write(r);
      written++;
      counter.add(r);
      tally(r);
      all.push(r);
      term.record(r, origin);
    }
  } catch (err) {
    const c = classifyError(err);
    // A problem found before anything was crawled is a usage error (exit 2, no summary); one
    // that stops a running crawl is an infrastructure failure: flush, summarize, exit 3.
    if (c.exit === ExitCode.Usage && written === 0) {
      await observers.close();
      throw err;
    }
    fatal = { message: c.message };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    writer?.close();
    term.stop();
  }
  const result = crawler.result();
  const summary = counter.snapshot(Date.now() - t0, result.endReason, result.sitemapUrls, result.notes, result.learnedParams);
  if (result.logins) summary.logins = result.logins;
  say(summaryLine(summary));
  observers.summary(summary);
  const outcome = finishReports(all, summary, reporting, plan, say);
  // No seed answered (and no earlier run or other worker did): the crawl found nothing to audit.
  const noSeed = !result.seedVisited && earlier === 0 && !output.shared;
  let exitCode: ExitCodeValue = ExitCode.Ok;
  if (fatal) {
    say(`spacrawl: crawl aborted: ${fatal.message}`);
    observers.failure(`crawl aborted: ${fatal.message}`, ExitCode.Infrastructure);
    exitCode = ExitCode.Infrastructure;
  } else if (signalExit !== null) exitCode = signalExit;
  else {
    if (noSeed) {
      const seeds = all.filter((r) => r.depth === 0 && r.referrer === null);
      const why = seeds.map((r) => {
        // robots.txt failed without any HTTP answer: say that the host is unreachable, not only robots.
        const unreachable = r.error?.code === 'robots-unavailable' ? /could not be fetched \((?!HTTP )(.*)\); the origin/.exec(r.error.message) : null;
        if (unreachable) return `${r.url} cannot be reached (${unreachable[1]}), not even its robots.txt`;
        return r.skipped ? `${r.url} skipped (${r.skipped}${r.error ? `: ${r.error.message}` : ''})` : `${r.url} ${r.error ? r.error.message : 'not reached'}`;
      });
      say(`spacrawl: no seed could be crawled${why.length ? `: ${why.join('; ')}` : ''}`);
      observers.failure(`no seed could be crawled${why.length ? `: ${why.join('; ')}` : ''}`, ExitCode.Findings);
    }
    if (!output.neverFailOnFindings && (outcome.failing.length > 0 || noSeed)) exitCode = ExitCode.Findings;
  }
  await observers.close();
  return { summary, exitCode };
}
