/**
 * The CLI's crawl run: the crawl phase and the end phase (reports, baseline, exit code).
 * A little over 400 lines because both phases are closures over one run's state (reporters, the
 * records file, the stop handler, the counts); split apart they would pass that state around.
 * @module
 */
import { Crawler, type CrawlResult } from '../crawl/crawler.js';
import type { CrawlOptions } from '../crawl/options.js';
import type { PageRecord } from '../model/record.js';
import type { CrawlSummary } from '../model/summary.js';
import { audit, failingIssues } from '../report/audit.js';
import type { ReportInput } from '../report/input.js';
import { JsonlWriter } from '../report/jsonl.js';
import { Multiplexer } from '../report/multiplexer.js';
import { TerminalLog } from '../report/progress.js';
import { SummaryCounter } from '../report/summary.js';
import { TerminalReporter } from '../report/terminal-reporter.js';
import { classifyError } from './errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { GithubReporter } from './github.js';
import type { CliIO } from './io.js';
import { CrawlStop } from './crawl-stop.js';
import { RecordsFile } from './records-file.js';
import { DEFAULT_FAIL_ON, IssueTable, ReportFiles } from './reporting.js';
import { planReports, type ReportingOptions } from './report-plan.js';
import { noSeedLine, SeedRecords } from './seeds.js';
import path from 'node:path';
import { Writable } from 'node:stream';
import { openObservers, type LogFormat } from './observers.js';
import type { MetricsAddress } from '../report/metrics.js';
import type { FrontierCounts } from '../store/frontier.js';
import type { BaselineResult } from '../diff/baseline.js';
import { skippedLinesNote } from '../diff/source.js';
import type { RecordSource as DiffRecordSource } from '../diff/source.js';

/** Where a CLI crawl writes, besides its {@link CliIO} streams. */
export interface CrawlOutput {
  /** JSON Lines report file, or `null`. */
  outFile?: string | null;
  /** Print nothing per page (summary only). */
  quiet?: boolean;
  /** `--verbose`: settle timings on page lines, and a line per skipped URL. */
  verbose?: boolean;
  /** `false` for `--no-progress`: no live progress line even on a TTY. @default true */
  progress?: boolean;
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
  /**
   * With `append` (`--state`): whether the store still waits to decide a URL. Its records in
   * `outFile` are stale, and are removed too: a resume that reopened URLs and stopped before it
   * rewrote `outFile` (killed, or refused after the store was opened) left them there, and the
   * next resume's `reopened` no longer names them.
   */
  undecided?: (url: string) => boolean;
  /** Reports, `--fail-on` and ignore lists; default: no reports, fail on broken links and server errors. */
  reporting?: ReportingOptions;
  /** `--log-format`: `json` writes one JSON object per line on stderr instead of the human lines. @default 'human' */
  logFormat?: LogFormat;
  /** `--metrics`: serve Prometheus metrics of the crawl here while it runs. @default none */
  metrics?: MetricsAddress | null;
  /** Labels on every metric: `crawl_id` and `worker_id` in a Redis crawl. */
  metricsLabels?: Record<string, string>;
  /**
   * `--metrics-linger`: after the crawl ends (not when a signal stopped it), keep serving the
   * final values this long (ms) before returning, so a scrape after the end sees it; a signal
   * ends the wait at once. @default 0
   */
  metricsLingerMs?: number;
  /** `--baseline`: compare with this crawl after this one; only new findings fail (see `compareWithBaseline`). */
  baseline?: BaselineRun;
  /**
   * The run's signal listener, when the command started it before (to cover its own checks);
   * `runCrawl` then uses it, and closes it when it returns. @default one of its own
   */
  stop?: CrawlStop;
}

/** The baseline comparison of a run. */
export interface BaselineRun {
  /** The baseline, opened before the crawl. */
  source: DiffRecordSource;
  /** Changed-pixel ratio above which a page changed visually. */
  visualThreshold: number;
  /** Folder for diff images, or `null`. */
  visualDir: string | null;
}

/** The optional checks a crawl with these options runs (the summary's `checks`), by flag. */
export function ranChecks(o: Pick<CrawlOptions, 'a11y' | 'vitals' | 'checkExternal' | 'checkFragments'>): string[] {
  const out: string[] = [];
  if (o.a11y) out.push('a11y');
  if (o.vitals) out.push('vitals');
  if (o.checkExternal) out.push('check-external');
  if (o.checkFragments) out.push('check-fragments');
  return out;
}

/** Outcome of {@link runCrawl}. */
export interface CrawlRun {
  summary: CrawlSummary;
  exitCode: ExitCodeValue;
}

/**
 * Run a crawl the CLI way: every record goes to the reporters as it finishes (`--out`, the log
 * line, the summary counts); after the crawl the records are read back from the JSON Lines file
 * (`--out`, or a spool file) for the audit and the reports, so memory does not grow with the
 * pages crawled. SIGINT/SIGTERM (through `io.onSignal`, one listener from start to end, see
 * `CrawlStop`): before the crawl starts, it leaves at once; during the crawl, the first stops
 * starting pages, gives in-flight ones the grace period, flushes and ends with 130/143, and the
 * second flushes and leaves at once (`io.exit`); after the crawl, the reports are still written
 * whole. Returns the exit code of DESIGN.md.
 * @param options - what to crawl
 * @param io - the streams, environment and signals of the process (or of a test)
 * @param output - files, reports and log settings
 * @throws OptionsError, BrowserNotFoundError, OutputError, InvalidUrlError before anything is crawled
 */
export async function runCrawl(options: CrawlOptions, io: CliIO, output: CrawlOutput = {}): Promise<CrawlRun> {
  // One signal listener from the start to the end of the reports (see CrawlStop).
  const stop = output.stop ?? new CrawlStop(io);
  try {
    return await runCrawlWith(stop, options, io, output);
  } finally {
    stop.close();
  }
}

/** {@link runCrawl} with its signal listener. */
async function runCrawlWith(stop: CrawlStop, options: CrawlOptions, io: CliIO, output: CrawlOutput): Promise<CrawlRun> {
  /** The baseline comparison's module, once `againstBaseline` has loaded it. */
  let baselineModule: typeof import('../diff/baseline.js') | null = null;
  // With --log-format json, every line on stderr is a JSON object (from the crawl's events):
  // the human lines go nowhere.
  const json = output.logFormat === 'json';
  const nowhere = new Writable({ write: (_chunk, _enc, done) => done() });
  const term = new TerminalLog({
    stream: json ? nowhere : io.stderr,
    env: io.env,
    quiet: json || (output.quiet ?? false),
    verbose: !json && (output.verbose ?? false),
    progress: !json && (output.progress ?? true),
  });
  const say = (line: string): void => term.line(line);
  stop.logTo(say);
  let counts: (() => Promise<{ queued: number; inFlight: number; done: number } | null>) | null = null;
  const observers = await openObservers({
    logFormat: output.logFormat ?? 'human',
    metrics: output.metrics ?? null,
    log: io.stderr,
    counts: async () => (counts ? counts() : null),
    ...(output.metricsLabels ? { labels: output.metricsLabels } : {}),
  });
  if (observers.metricsUrl) {
    say(`metrics: ${observers.metricsUrl}`);
    if (json) observers.onEvent({ type: 'notice', message: `metrics: ${observers.metricsUrl}` });
  }
  let crawler: Crawler | null;
  try {
    crawler = new Crawler({ ...options, processExitsAfter: io.exitsAfterRun === true, onNotice: (m) => say(`note: ${m}`), onEvent: (e) => observers.onEvent(e) }); // validates options first
  } catch (err) {
    await observers.close();
    throw err;
  }
  // The metrics read the frontier's sizes while the crawl runs; then the last sizes read stay
  // (the crawler is let go).
  let watched: Crawler | null = crawler;
  let lastCounts: FrontierCounts | null = null;
  counts = async () => {
    if (!watched) return lastCounts;
    lastCounts = await watched.frontierCounts().catch(() => lastCounts);
    return lastCounts;
  };
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
  const outFile = output.outFile ?? null;
  const append = output.append ?? false;
  // Resuming: records the store has but --out lacks (the process died between the two) are
  // written first, and records --out has of URLs the store has not decided (reopened for a larger
  // budget, by this run or by one that stopped before it rewrote --out) are taken out, so every
  // page ends up in --out exactly once.
  const reopened = new Set(output.reopened ?? []);
  const undecided = output.undecided ?? (() => false);
  const inOut = outFile && append ? JsonlWriter.recover(outFile, (url) => reopened.has(url) || undecided(url)) : new Set<string>();
  const writer = outFile ? new JsonlWriter(outFile, append) : null;
  const records = RecordsFile.open(outFile ? { file: outFile, append } : null, plan.specs);
  stop.beforeExitAtStart(() => records.remove());
  try {
    return await crawlAndReport();
  } finally {
    records.remove();
    await observers.close();
  }

  /**
   * The crawl itself: records to the reporters as they come, signals handled. The crawler is
   * dropped here (`crawler = null`), so that its frontier and browser session can be collected
   * before the reports read the records back.
   */
  async function crawlPhase(reporters: Multiplexer, terminal: TerminalReporter, t0: number): Promise<{ result: CrawlResult; fatal: { message: string } | null; signalExit: ExitCodeValue | null }> {
    const running = crawler!;
    crawler = null;
    stop.crawling({
      cancel: () => running.cancel('interrupted'),
      flush: () => {
        reporters.onRecordsEnd();
        records.remove();
      },
    });
    let fatal: { message: string } | null = null;
    let written = 0;
    let lastQueued: number | null = null;
    terminal.start(async () => {
      try {
        lastQueued = (await running.frontierCounts()).queued;
      } catch {
        // the store closes as the crawl ends: keep the last count
      }
      return lastQueued;
    }, t0);
    // A reporter that fails on a record (an --out file on a full disk) stops the crawl: its
    // records up to there are kept, the rest is drained unwritten, and the error leaves as thrown
    // (an unwritable output: exit 2, one line; docs/exit-codes.md).
    let reporterFailure: { err: unknown } | null = null;
    try {
      for await (const r of running.records()) {
        if (reporterFailure) continue;
        try {
          reporters.onRecord(r);
          written++;
        } catch (err) {
          reporterFailure = { err };
          running.cancel('interrupted');
        }
      }
    } catch (err) {
      const c = classifyError(err);
      // A problem found before anything was crawled is a usage error (exit 2, no summary); one
      // that stops a running crawl is an infrastructure failure: flush, summarize, exit 3.
      if (c.exit === ExitCode.Usage && written === 0) throw err;
      fatal = { message: c.message };
    } finally {
      stop.ending();
      try {
        reporters.onRecordsEnd();
      } catch (err) {
        // The reporter's own failure is the one to tell.
        if (!reporterFailure) throw err;
      }
    }
    if (reporterFailure) throw reporterFailure.err;
    await counts?.();
    watched = null;
    return { result: running.result(), fatal, signalExit: stop.exitCode };
  }

  /** `--metrics-linger`: the endpoint says the crawl ended and serves its final values for a while. */
  async function lingerForScrapes(): Promise<void> {
    const ms = output.metricsLingerMs ?? 0;
    if (!observers.metrics) return;
    observers.metrics.ended();
    if (ms <= 0) return;
    const line = `metrics: serving the final values at ${observers.metricsUrl} for ${Math.round(ms / 100) / 10} s (a signal ends the wait)`;
    say(line);
    if (json) observers.onEvent({ type: 'notice', message: line });
    let stopListening: () => void = () => {};
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      stopListening = io.onSignal(() => resolve());
    });
    clearTimeout(timer);
    stopListening();
  }

  /** This crawl compared with the baseline, or the one-line reason it could not be (a crawl of another site). */
  async function againstBaseline(b: BaselineRun, failOn: readonly string[]): Promise<BaselineResult | { error: string }> {
    try {
      // The comparison (and its image diff: pngjs, pixelmatch) is loaded only with --baseline.
      baselineModule = await import('../diff/baseline.js');
      return await baselineModule.compareWithBaseline(b.source, records.source, {
        failOn,
        screenshotsDir: options.screenshotsDir ?? null,
        slowMs: reporting.slowMs,
        ignore: plan.ignore,
        budget: reporting.budget ?? null,
        visualThreshold: b.visualThreshold,
        visualDir: b.visualDir,
      });
    } catch (err) {
      return { error: classifyError(err).message };
    }
  }

  async function crawlAndReport(): Promise<CrawlRun> {
    let origin: string | null = null;
    try {
      origin = new URL(options.seeds[0]!).origin;
    } catch {
      origin = null;
    }
    const counter = new SummaryCounter(records.source);
    const terminal = new TerminalReporter(term, origin);
    const seeds = new SeedRecords();
    const failOn = reporting.failOnWarnings ? [...reporting.failOn, 'warnings'] : reporting.failOn;
    const stdoutTaken = reporting.json || plan.specs.some((s) => s.path === null);
    // The report formats (and their writers: csv-stringify, fast-xml-parser) are loaded only when a report is asked for.
    const writeReport = plan.specs.length ? (await import('../report/formats.js')).writeReport : () => {};
    const reporters = new Multiplexer([
      ...(writer ? [writer] : []),
      ...(records.spool ? [records.spool] : []),
      terminal,
      { onRecord: (r: PageRecord) => counter.add(r) },
      seeds,
      new ReportFiles(plan.specs, records.file, io.stdout, say, writeReport),
      new IssueTable(say),
      new GithubReporter(io.env, io.stdout, say, plan.specs, stdoutTaken),
    ]);
    let earlier = 0;
    if (output.earlier) {
      let caughtUp = 0;
      for await (const r of output.earlier) {
        counter.add(r);
        terminal.count(r);
        seeds.onRecord(r);
        records.spool?.write(r);
        earlier++;
        if (writer && !inOut.has(r.url)) {
          writer.write(r);
          caughtUp++;
        }
      }
      if (earlier) say(`resuming: ${earlier} URLs already decided in earlier runs${caughtUp ? ` (${caughtUp} written to --out now)` : ''}`);
    }
    if (reopened.size) say(`resuming: ${reopened.size} URLs skipped for the budget before are queued again`);
    const t0 = Date.now();
    const { result, fatal, signalExit } = await crawlPhase(reporters, terminal, t0);
    const summary = counter.snapshot(Date.now() - t0, result.endReason, result.sitemapUrls, result.notes, result.learnedParams);
    if (result.logins) summary.logins = result.logins;
    const checks = ranChecks(options);
    if (checks.length) summary.checks = checks;
    if (options.screenshotsDir) summary.screenshotsDir = path.resolve(options.screenshotsDir);
    // A signal (during the crawl, or since) skips the comparison: only the reports are left to write.
    const base = fatal || stop.exitCode !== null || !output.baseline ? null : await againstBaseline(output.baseline, failOn);
    const end: ReportInput = {
      records: records.source,
      summary,
      audit: audit(records.source, { slowMs: reporting.slowMs, ignore: plan.ignore, budget: reporting.budget ?? null }),
      failOn,
      screenshotsDir: reporting.screenshotsDir,
      ...(base && 'isNew' in base ? { isNew: base.isNew, notCompared: base.notCompared } : {}),
      budget: reporting.budget ?? null,
    };
    // Synchronous: a signal meanwhile is handled after it, so no report is ever cut (see CrawlStop).
    reporters.onEnd(end);
    stop.written();
    if (base && 'isNew' in base) {
      const skipped = output.baseline ? skippedLinesNote(output.baseline.source) : null;
      if (skipped) say(`${skipped} (--baseline)`);
      baselineModule?.reportBaseline(base, failOn, reporting.outputDir, say);
    }
    // With a baseline, the new findings that match --fail-on (visual changes included).
    const failing = base && 'isNew' in base ? base.failing : failingIssues(end.audit, failOn);
    // No seed answered (and no earlier run or other worker did): the crawl found nothing to audit.
    const noSeed = !result.seedVisited && earlier === 0 && !output.shared;
    let exitCode: ExitCodeValue = ExitCode.Ok;
    observers.summary(summary);
    if (fatal) {
      say(`spacrawl: crawl aborted: ${fatal.message}`);
      observers.failure(`crawl aborted: ${fatal.message}`, ExitCode.Infrastructure);
      exitCode = ExitCode.Infrastructure;
    } else if (signalExit !== null || stop.exitCode !== null) exitCode = signalExit ?? stop.exitCode!;
    else if (base && 'error' in base) {
      say(`spacrawl: --baseline: ${base.error}`);
      observers.failure(`--baseline: ${base.error}`, ExitCode.Usage);
      exitCode = ExitCode.Usage;
    } else {
      if (noSeed) {
        say(noSeedLine(seeds.list));
        observers.failure(noSeedLine(seeds.list).replace(/^spacrawl: /, ''), ExitCode.Findings);
      }
      if (!output.neverFailOnFindings && (failing.length > 0 || noSeed)) exitCode = ExitCode.Findings;
    }
    if (base && 'isNew' in base && output.baseline) {
      const f = base.diff.findings;
      observers.baseline({
        baseline: output.baseline.source.label,
        new: f.new.length,
        fixed: f.fixed.length,
        unchanged: f.unchanged.length,
        notCompared: f.notCompared.length,
        visualChanges: base.diff.visual ? base.diff.visual.changes.length : null,
        failOn,
        failing: failing.length,
        exitCode,
      });
    }
    // --metrics-linger answers signals itself.
    stop.close();
    if (stop.exitCode === null) await lingerForScrapes();
    return { summary, exitCode };
  }
}
