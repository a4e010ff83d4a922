/**
 * The CLI's own options (output, reports, audit, stores, terminal), declared like the crawl's
 * (`src/crawl/option-table.ts`, same {@link OptionSpec} shape): flags, `--help`, `--config` keys
 * and README's flag table come from here.
 * @module
 */
import type { OptionSpec } from '../crawl/option-spec.js';
import { DEFAULT_LEASE_TTL_MS, DEFAULT_REDIS_RETRY_MS } from '../store/redis/frontier.js';
import { VERSION } from '../version.js';
import { DEFAULT_FAIL_ON } from './reporting.js';
import { DEFAULT_THRESHOLD_MS, DEFAULT_THRESHOLD_RATIO } from '../diff/diff.js';
import { DEFAULT_DIFF_FAIL_ON } from '../diff/findings.js';

/** Options of the commands themselves, not of the crawl library. Names carry their unit (`slowMs`). */
export const CLI_OPTIONS = {
  out: {
    flag: 'out',
    kind: 'string',
    default: null,
    value: 'FILE',
    topic: 'output',
    help: 'write one JSON record per URL to this file (JSON Lines)',
    doc: ': one PageRecord per line, written as each URL is decided',
  },
  state: {
    flag: 'state',
    kind: 'string',
    default: null,
    value: 'FILE',
    topic: 'store',
    help: 'keep the frontier and the records in this SQLite file: run the same command again to resume after Ctrl-C, a crash or kill -9',
    doc: '; see "Resume"',
  },
  force: {
    flag: 'force',
    kind: 'boolean',
    default: false,
    topic: 'store',
    help: 'with --state or --redis: resume or join even if the seeds or scope differ from the stored crawl (the stored ones are replaced)',
  },
  redis: {
    flag: 'redis',
    kind: 'string',
    default: null,
    value: 'URL',
    topic: 'store',
    help: 'share the crawl through Redis (redis://[:password@]host:port[/db]): every worker started with the same --redis and --crawl-id crawls it together; later workers may omit the seeds',
    doc: '; see "Distributed crawls"',
  },
  crawlId: { flag: 'crawl-id', kind: 'string', default: null, value: 'NAME', topic: 'store', help: 'with --redis: the name of the shared crawl (letters, digits, . _ -)' },
  leaseTtlMs: {
    flag: 'lease-ttl',
    kind: 'integer',
    unit: 'ms',
    flagUnit: 's',
    min: 1,
    default: DEFAULT_LEASE_TTL_MS,
    value: 'S',
    topic: 'store',
    help: 'with --redis: seconds without a renewal after which a page claimed by a worker that died is given to another',
  },
  redisRetryMs: {
    flag: 'redis-timeout',
    kind: 'integer',
    unit: 'ms',
    flagUnit: 's',
    min: 1,
    default: DEFAULT_REDIS_RETRY_MS,
    value: 'S',
    topic: 'store',
    help: 'with --redis: seconds to keep reconnecting to a Redis that cannot be reached before exiting 3',
  },
  reports: {
    flag: 'report',
    kind: 'list',
    default: [],
    value: 'FORMAT[:PATH]',
    topic: 'output',
    help: 'write a report: FORMAT[:PATH] with FORMAT jsonl, json, csv, html, junit, sitemap, markdown; no PATH = stdout (repeatable; only one report may use stdout, and none with --json)',
  },
  outputDir: {
    flag: 'output-dir',
    kind: 'string',
    default: null,
    value: 'DIR',
    topic: 'output',
    help: 'write every report format into this folder under conventional names (report.json, pages.jsonl, pages.csv, index.html, junit.xml, sitemap.xml, summary.md) plus screenshots/',
  },
  failOn: {
    flag: 'fail-on',
    kind: 'string',
    default: DEFAULT_FAIL_ON.join(','),
    value: 'RULES',
    topic: 'audit',
    help: 'exit 1 when an issue of these rules is found (comma-separated rule ids, or none)',
    doc: '; see "Audit and CI"',
  },
  failOnWarnings: { flag: 'fail-on-warnings', kind: 'boolean', default: false, topic: 'audit', help: 'exit 1 on every error- and warning-level rule' },
  ignoreUrls: {
    flag: 'ignore-url',
    kind: 'list',
    default: [],
    value: 'PATTERN',
    topic: 'audit',
    help: 'findings for URLs matching this glob or /regex/ are reported as ignored and never fail the build (repeatable; also read from .spacrawlignore)',
  },
  slowMs: {
    flag: 'slow',
    kind: 'integer',
    unit: 'ms',
    min: 1,
    default: 3_000,
    value: 'MS',
    topic: 'audit',
    help: 'slow-page threshold: ms a page waited for servers to answer (timings.serverWaitMs)',
  },
  config: {
    flag: 'config',
    kind: 'string',
    default: null,
    defaultText: '`./spacrawl.config.json` if present',
    value: 'FILE',
    topic: 'terminal',
    help: 'JSON file of flag values (default: ./spacrawl.config.json when present); command-line flags win',
    doc: '; e.g. `{"max-depth": 3, "exclude": ["/admin/"]}`: every flag of this table is a key, with its value in the flag\'s unit',
  },
  quiet: { flag: 'quiet', char: 'q', exclusive: ['verbose'], kind: 'boolean', default: false, topic: 'terminal', help: 'print only the summary line and the issue table' },
  verbose: {
    flag: 'verbose',
    char: 'v',
    exclusive: ['quiet'],
    kind: 'boolean',
    default: false,
    topic: 'terminal',
    help: 'also print settle timings on each page line, and a line per skipped URL (robots, budget, trap, duplicate)',
    doc: '; the timings are `ttfb`, `load` and when the page was read',
  },
  progress: {
    flag: 'progress',
    kind: 'boolean',
    allowNo: true,
    default: true,
    topic: 'terminal',
    help: 'on a terminal (stderr is a TTY and CI is not set), draw a live progress line: pages done / queued, pages/s, errors, elapsed',
    doc: '; see "Terminal output"',
  },
  /** `spacrawl login`: where the storage state goes. */
  saveState: {
    flag: 'save-state',
    kind: 'string',
    default: null,
    value: 'FILE',
    topic: 'browser',
    help: 'spacrawl login: write the storage state (cookies, local storage) of the session to this file (mode 600), for --storage-state',
  },
  /** `spacrawl robots` asks for robots.txt outside a browser, so its User-Agent is not the browser's. */
  robotsUserAgent: {
    flag: 'user-agent',
    kind: 'string',
    default: `Mozilla/5.0 (compatible; spacrawl/${VERSION})`,
    value: 'UA',
    topic: 'robots',
    help: 'User-Agent header of the robots.txt request',
  },
  /** `spacrawl diff`: which NEW findings fail it (not the crawl's `--fail-on`: another default). */
  diffFailOn: {
    flag: 'fail-on',
    kind: 'string',
    default: DEFAULT_DIFF_FAIL_ON.join(','),
    value: 'RULES',
    topic: 'audit',
    help: 'exit 1 when a NEW finding of these rules appears (comma-separated rule ids of crawl --fail-on, warnings for every error- and warning-level rule, or none)',
  },
  thresholdMs: {
    flag: 'threshold-ms',
    kind: 'integer',
    unit: 'ms',
    min: 0,
    default: DEFAULT_THRESHOLD_MS,
    value: 'MS',
    topic: 'audit',
    help: 'smallest timing change reported, in ms (timings.total, timings.serverWaitMs, web vitals)',
  },
  thresholdPercent: {
    flag: 'threshold-percent',
    kind: 'integer',
    min: 0,
    default: Math.round(DEFAULT_THRESHOLD_RATIO * 100),
    value: 'N',
    topic: 'audit',
    help: 'smallest timing change reported, in percent of the old value (both thresholds must be passed)',
  },
} as const satisfies Record<string, OptionSpec>;
