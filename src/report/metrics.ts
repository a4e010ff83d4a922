/**
 * `--metrics HOST:PORT`: the running crawl in Prometheus text format at `/metrics`, made with
 * the maintained `prom-client` (its exposition, its registry). Fed by the crawl's events
 * (`CrawlOptions.onEvent`) and, when scraped, by the frontier's sizes. Every metric name starts
 * with `spacrawl_`; in a Redis crawl every series carries `crawl_id` and `worker_id`.
 * @module
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry } from 'prom-client';
import type { CrawlEvent } from '../crawl/events.js';
import { isErrorPage, isPage, type PageRecord } from '../model/record.js';
import { outcomeOf } from './outcome.js';
import type { FrontierCounts } from '../store/frontier.js';
import { UsageError } from '../model/errors.js';
import type { MetricsAddress } from './metrics-address.js';

export { parseMetricsAddress, type MetricsAddress } from './metrics-address.js';

/** The metrics endpoint cannot listen where asked (address in use, not on this machine): exit 2. */
export class MetricsListenError extends UsageError {
  readonly code = 'metrics-listen';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MetricsListenError';
  }
}

/** Window of `spacrawl_pages_per_second` (ms). */
export const RATE_WINDOW_MS = 60_000;

export { outcomeOf } from './outcome.js';

/**
 * The metrics of one crawl (one worker in a Redis crawl).
 * @example
 * const m = new CrawlMetrics({ counts: () => crawler.frontierCounts() });
 * await m.listen({ host: '127.0.0.1', port: 9464 });
 * new Crawler({ ...options, onEvent: (e) => m.observe(e) });
 */
export class CrawlMetrics {
  /** The registry (this crawl's metrics only, no process defaults). */
  readonly registry = new Registry();
  private readonly pages: Counter<'outcome'>;
  private readonly skipped: Counter<'reason'>;
  private readonly retries: Counter<'reason'>;
  private readonly logins: Counter<'kind' | 'result'>;
  private readonly loggedOut: Counter;
  private readonly relaunches: Counter;
  private readonly leasesRecovered: Counter;
  private readonly logoutBlocked: Counter;
  private readonly waits: Counter<'host'>;
  private readonly waitSeconds: Counter<'host'>;
  private readonly notices: Counter;
  /** End times (ms since epoch) of the pages of the last {@link RATE_WINDOW_MS}. */
  private readonly recent: number[] = [];
  private server: http.Server | null = null;
  private readonly running: Gauge;

  /**
   * @param o.counts - the frontier's sizes at scrape time (`null` when unknown: the gauge keeps its last values)
   * @param o.labels - labels on every series (`crawl_id`, `worker_id` in a Redis crawl)
   */
  constructor(o: { counts: () => Promise<FrontierCounts | null>; labels?: Record<string, string> }) {
    const r = this.registry;
    if (o.labels) r.setDefaultLabels(o.labels);
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> => new Counter({ name, help, labelNames, registers: [r] });
    this.pages = counter('spacrawl_pages_total', 'URLs decided, by outcome: ok (2xx page), error_status (status >= 400), network_error (no usable response), redirect, skipped, other', ['outcome']);
    this.skipped = counter('spacrawl_skipped_total', 'URLs recorded without a visit, by reason (robots, budget, trap, duplicate, logout, ...)', ['reason']);
    this.retries = counter('spacrawl_retries_total', 'Visits to be made again, by reason (status N, network error, browser crash, logged out)', ['reason']);
    this.logins = counter('spacrawl_logins_total', 'Logins run (--login): kind first or relogin, result ok or failed', ['kind', 'result']);
    this.loggedOut = counter('spacrawl_logged_out_visits_total', 'Visits that found the session logged out (not recorded; visited again)');
    this.relaunches = counter('spacrawl_browser_relaunches_total', 'Browser relaunches after a crash');
    this.leasesRecovered = counter('spacrawl_leases_recovered_total', 'URLs this worker claimed by taking over a lease whose holder let it expire (a dead or stuck worker)');
    this.logoutBlocked = counter('spacrawl_logout_requests_blocked_total', 'Requests to sign-out URLs the browser refused while logged in');
    this.waits = counter('spacrawl_politeness_waits_total', 'Navigations that waited for their host (rate, Crawl-delay, Retry-After), by host:port', ['host']);
    this.waitSeconds = counter('spacrawl_politeness_wait_seconds_total', 'Seconds navigations waited for their host, by host:port', ['host']);
    this.notices = counter('spacrawl_notices_total', 'Notices logged (robots.txt problems, relaunches, logins, ...)');
    const recent = this.recent;
    new Gauge({
      name: 'spacrawl_pages_per_second',
      help: `URLs decided per second over the last ${RATE_WINDOW_MS / 1000} s`,
      registers: [r],
      collect() {
        const now = Date.now();
        while (recent.length && recent[0]! < now - RATE_WINDOW_MS) recent.shift();
        this.set(recent.length / (RATE_WINDOW_MS / 1000));
      },
    });
    this.running = new Gauge({
      name: 'spacrawl_crawl_running',
      help: '1 while the crawl runs, 0 once it ended (served during --metrics-linger)',
      registers: [r],
    });
    this.running.set(1);
    new Gauge({
      name: 'spacrawl_frontier_urls',
      help: 'URLs in the frontier by state: queued, in_flight, done (crawl-wide in a Redis crawl)',
      labelNames: ['state'],
      registers: [r],
      async collect() {
        const c = await o.counts().catch(() => null);
        if (!c) return;
        this.set({ state: 'queued' }, c.queued);
        this.set({ state: 'in_flight' }, c.inFlight);
        this.set({ state: 'done' }, c.done);
      },
    });
  }

  /** Count one event of the crawl. Never throws. */
  observe(e: CrawlEvent): void {
    switch (e.type) {
      case 'record': {
        const outcome = outcomeOf(e.record);
        this.pages.inc({ outcome });
        if (e.record.skipped) this.skipped.inc({ reason: e.record.skipped });
        this.recent.push(Date.now());
        return;
      }
      case 'retry':
        this.retries.inc({ reason: e.reason });
        return;
      case 'login':
        this.logins.inc({ kind: e.relogin ? 'relogin' : 'first', result: e.ok ? 'ok' : 'failed' });
        return;
      case 'logged-out':
        this.loggedOut.inc();
        return;
      case 'relaunch':
        this.relaunches.inc();
        return;
      case 'lease-recovered':
        this.leasesRecovered.inc();
        return;
      case 'logout-blocked':
        this.logoutBlocked.inc();
        return;
      case 'politeness-wait':
        this.waits.inc({ host: e.host });
        this.waitSeconds.inc({ host: e.host }, e.ms / 1000);
        return;
      case 'notice':
        this.notices.inc();
        return;
    }
  }

  /** The crawl ended: `spacrawl_crawl_running` is 0 from now on (the other values stay as they were last). */
  ended(): void {
    this.running.set(0);
  }

  /** The exposition (Prometheus text format 0.0.4). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Serve `GET /metrics` at `address` (other paths: 404).
   * @returns the URL of the endpoint
   * @throws MetricsListenError when it cannot listen there (address in use, not available)
   */
  async listen(address: MetricsAddress): Promise<string> {
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
        return;
      }
      this.text().then(
        (body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err instanceof Error ? err.message : String(err)}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      const fail = (err: Error): void => reject(new MetricsListenError(`--metrics ${address.host}:${address.port}: cannot listen (${err.message})`, { cause: err }));
      server.once('error', fail);
      server.listen(address.port, address.host, () => {
        server.off('error', fail);
        resolve();
      });
    });
    this.server = server;
    const a = server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}/metrics`;
  }

  /** Stop serving (connections open are closed). Never throws. */
  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
