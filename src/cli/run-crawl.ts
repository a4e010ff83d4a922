import { Crawler } from '../crawl/crawler.js';
import type { CrawlOptions } from '../crawl/options.js';
import { JsonlWriter } from '../report/jsonl.js';
import { isErrorPage } from '../report/record.js';
import { SummaryCounter, type CrawlSummary } from '../report/summary.js';
import { recordLine, summaryLine } from '../report/terminal.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';

/** Where a CLI crawl writes. */
export interface CrawlOutput {
  /** JSON Lines report file, or `null`. */
  outFile: string | null;
  /** Log stream (stderr): one line per record and the summary line. */
  log: NodeJS.WritableStream;
  /** Print nothing per page (summary only). */
  quiet?: boolean;
  /** When `true`, the exit code is 0 whenever the crawl finishes (the `demo` command). */
  neverFailOnFindings?: boolean;
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
  const say = (line: string): void => {
    output.log.write(`${line}\n`);
  };
  const crawler = new Crawler({ ...options, onNotice: (m) => say(`note: ${m}`) }); // validates options first
  const writer = output.outFile ? new JsonlWriter(output.outFile) : null;
  const counter = new SummaryCounter();
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
      say(`${sig} again: exiting now`);
      process.exit(code);
    }
    signalExit = code;
    say(`${sig}: finishing pages in flight (press Ctrl-C again to quit at once)`);
    crawler.cancel('interrupted');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let anyFinding = false;
  try {
    for await (const r of crawler.records()) {
      writer?.write(r);
      counter.add(r);
      if (isErrorPage(r) || r.soft404) anyFinding = true; // a soft 404 is a broken link too
      if (!output.quiet) say(recordLine(r, origin));
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    writer?.close();
  }
  const summary = counter.snapshot(Date.now() - t0, crawler.endReason, crawler.sitemapUrls, crawler.notes, crawler.learnedRules());
  say(summaryLine(summary));
  let exitCode: ExitCodeValue = ExitCode.Ok;
  if (signalExit !== null) exitCode = signalExit;
  else if (!output.neverFailOnFindings && (anyFinding || !crawler.seedVisited)) exitCode = ExitCode.Findings;
  return { summary, exitCode };
}
