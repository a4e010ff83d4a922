/**
 * Who watches a CLI crawl besides the terminal: `--log-format json` (one JSON object per line on
 * the log stream instead of the human lines) and `--metrics HOST:PORT` (a Prometheus endpoint).
 * Both are fed by the crawl's events.
 * @module
 */
import type { CrawlEvent } from '../crawl/events.js';
import type { CrawlSummary } from '../model/summary.js';
import type { FrontierCounts } from '../store/frontier.js';
import { baselineLogObject, errorLogObject, logLine, logObjectOf, summaryLogObject, type BaselineVerdict } from '../report/json-log.js';
import type { CrawlMetrics, MetricsAddress } from '../report/metrics.js';

/** How the log stream is written: `human` lines (default) or `json` lines. */
export type LogFormat = 'human' | 'json';

/** The crawl's watchers. */
export interface Observers {
  /** `true` with `--log-format json`: human lines are not written. */
  readonly json: boolean;
  /** The metrics endpoint's URL, or `null`. */
  readonly metricsUrl: string | null;
  /** The metrics (for tests and the library), or `null`. */
  readonly metrics: CrawlMetrics | null;
  /** Give every crawl event here. */
  onEvent(e: CrawlEvent): void;
  /** The summary, once (a JSON line in `json` format). */
  summary(s: CrawlSummary): void;
  /** A failure that stops the crawl (a JSON line in `json` format). */
  failure(message: string, exitCode: number): void;
  /** The `--baseline` verdict, once, after the summary (a JSON line in `json` format). */
  baseline(v: BaselineVerdict): void;
  /** Stop serving metrics. Never throws. */
  close(): Promise<void>;
}

/**
 * Start the watchers of one crawl.
 * @param o.counts - the frontier's sizes, for `spacrawl_frontier_urls`
 * @param o.labels - labels on every metric (`crawl_id`, `worker_id` of a Redis crawl)
 * @throws the listen error of the metrics endpoint (address in use …)
 */
export async function openObservers(o: {
  logFormat: LogFormat;
  metrics: MetricsAddress | null;
  log: NodeJS.WritableStream;
  counts: () => Promise<FrontierCounts | null>;
  labels?: Record<string, string>;
}): Promise<Observers> {
  const json = o.logFormat === 'json';
  // prom-client is loaded only for a crawl that serves metrics.
  const metrics = o.metrics ? new (await import('../report/metrics.js')).CrawlMetrics({ counts: o.counts, ...(o.labels ? { labels: o.labels } : {}) }) : null;
  const metricsUrl = metrics && o.metrics ? await metrics.listen(o.metrics) : null;
  const write = (line: string): void => {
    o.log.write(line);
  };
  return {
    json,
    metricsUrl,
    metrics,
    onEvent(e) {
      metrics?.observe(e);
      if (!json) return;
      const obj = logObjectOf(e);
      if (obj) write(logLine(obj));
    },
    summary(s) {
      if (json) write(logLine(summaryLogObject(s)));
    },
    failure(message, exitCode) {
      if (json) write(logLine(errorLogObject(message, exitCode)));
    },
    baseline(v) {
      if (json) write(logLine(baselineLogObject(v)));
    },
    close: async () => metrics?.close(),
  };
}
