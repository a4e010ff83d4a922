/**
 * spacrawl's library API: crawl a JavaScript-heavy site in real Chromium and stream one
 * {@link PageRecord} per URL decided about.
 *
 * @example
 * import { crawl } from 'spacrawl';
 * for await (const r of crawl({ seeds: ['http://127.0.0.1:3000/'], concurrency: 4 })) {
 *   if (r.status !== null && r.status >= 400) console.log('broken:', r.url, 'found on', r.referrer);
 * }
 * @module
 */
export { crawl, Crawler, type CrawlResult } from './crawl/crawler.js';
export { resolveOptions, OptionsError, type CrawlOptions, type ResolvedCrawlOptions } from './crawl/options.js';
export type { CrawlEvent, CrawlEventType } from './crawl/events.js';
export { loginOnly, type LoginOnlyResult } from './crawl/login-only.js';
export { LoginError, MAX_FAILED_LOGINS } from './crawl/session-guard.js';
export { LoggedOutRuleError } from './crawl/logged-out.js';
export { LoginRecipeError, type LoginArgs, type LoginFunction } from './browser/login/recipe.js';
export type { StorageState } from './browser/login/perform.js';
export { CrawlMetrics, MetricsListenError, parseMetricsAddress, type MetricsAddress } from './report/metrics.js';
export { MemoryFrontier } from './store/memory.js';
export {
  StaleLeaseError,
  isShared,
  type Frontier,
  type SharedFrontier,
  type FrontierEntry,
  type FrontierCounts,
  type Lease,
  type PolitenessStore,
  type ResumeBudget,
} from './store/frontier.js';
export { CrawlMismatchError, StoreError, type CrawlProgress } from './store/policy.js';
export { SqliteFrontier, StateFileError, StateLockedError, StateStoreError, type SqliteFrontierOptions } from './store/sqlite/frontier.js';
export { readStateFile, type StateFileStatus } from './store/sqlite/reader.js';
export {
  RedisFrontier,
  RedisStoreError,
  RedisTargetError,
  NoSuchCrawlError,
  type RedisFrontierOptions,
  type CrawlStatus,
} from './store/redis/frontier.js';
/** @deprecated One class for both stores now: {@link CrawlMismatchError}. */
export { CrawlMismatchError as RedisCrawlMismatchError } from './store/policy.js';
export { crawlKeyOf, type CrawlKey } from './crawl/crawl-key.js';
export {
  SCHEMA_VERSION,
  blankRecord,
  isErrorPage,
  isPage,
  type PageRecord,
  type RedirectHop,
  type LinkDetail,
  type LinkSource,
  type PageTimings,
  type FailedRequest,
  type DialogRecord,
  type SkipReason,
  type RecordError,
  type LinkCheck,
  type FragmentLink,
  type Soft404Reason,
  type A11yAudit,
  type A11yViolation,
  type PageVitals,
  type ServerHtml,
  type SpaSignals,
} from './model/record.js';
export { robotsRulesFor, type RobotsRules, type RobotsSources, type MetaTag } from './crawl/robots-directives.js';
export { audit, RULES, type AuditIssue, type AuditResult, type RuleId, type Severity } from './report/audit.js';
export { SummaryCounter, type CrawlSummary, type EndReason } from './report/summary.js';
export { normalize, toRequestUrl, isHashRoute, InvalidUrlError, type NormalizeOptions, type HashRouteMode } from './url/normalize.js';
export { Scope, type ScopeMode, type ScopeOptions } from './url/scope.js';
export { RobotsCache, ROBOTS_TOKEN, type RobotsOutcome } from './url/robots.js';
export { HttpClient, HttpRequestError, type HttpClientOptions, type HttpRequestOptions, type HttpResponse } from './net/http-client.js';
export { locateBrowser, BrowserNotFoundError, type LocatedBrowser } from './browser/locate.js';
export { launchBrowser, CHROMIUM_ARGS, defaultUserAgent } from './browser/launch.js';
export { ExitCode } from './cli/exit-codes.js';
