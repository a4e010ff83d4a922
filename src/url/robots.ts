import { createRequire } from 'node:module';
import { HttpRequestError, type HttpClient } from '../net/http-client.js';
import { normalizePercent } from './normalize.js';
import { ROBOTS_TOKEN } from './robots-token.js';

/** robots-parser's parsed file (its CommonJS typings do not resolve as an ES default import). */
interface ParsedRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getMatchingLineNumber(url: string, ua?: string): number;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, contents: string) => ParsedRobots;

export { ROBOTS_TOKEN } from './robots-token.js';

/** Largest robots.txt body parsed (bytes); the rest is ignored (RFC 9309 §2.5 allows >= 500 KiB). */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** What became of one origin's robots.txt. */
export interface RobotsOutcome {
  /** `parsed` (2xx), `allow-all` (4xx but 429, or none), `disallow-all` (5xx, 429, timeout, network error). */
  kind: 'parsed' | 'allow-all' | 'disallow-all';
  /** HTTP status (also of a response whose body then failed), or `null` when no response arrived. */
  status: number | null;
  /** Why, for reporting (e.g. `HTTP 503`, `net::ERR_CONNECTION_REFUSED`). */
  detail: string;
  /** Minimum gap between navigations to this origin from `Crawl-delay` (ms), or `null`. */
  crawlDelayMs: number | null;
  /** `Sitemap:` lines. */
  sitemaps: string[];
  /**
   * `true` when the request for robots.txt got no HTTP answer at all (connection refused, DNS
   * failure, timeout, TLS failure): the host cannot be reached. Absent otherwise.
   */
  unanswered?: true;
}

interface Entry {
  outcome: RobotsOutcome;
  isAllowed(url: string): boolean;
  /** 1-based line of the rule that decided `url`, or -1 when no rule matched. */
  lineOf(url: string): number;
  /** The parsed text (up to {@link ROBOTS_MAX_BYTES}), or '' when none was parsed. */
  text: string;
  /** When the fetch failed: the earliest time (ms since epoch) of its one retry. */
  retryAt?: number;
}

/** The answer for one URL. */
export interface RobotsDecision {
  allowed: boolean;
  /** The origin's robots.txt outcome that decided it. */
  outcome: RobotsOutcome;
}

/** Why a URL is allowed or not, for `spacrawl robots`. */
export interface RobotsExplanation extends RobotsDecision {
  /** robots.txt URL consulted. */
  robotsUrl: string;
  /** 1-based line number of the deciding rule, or `null` when no rule matched (allowed by default). */
  line: number | null;
  /** The deciding rule's text, e.g. `Disallow: /shop/`, or `null`. */
  rule: string | null;
  /** The product token matched against `User-agent` groups. */
  agent: string;
}

/** Wait before the single re-fetch of a robots.txt that failed (ms). */
export const ROBOTS_RETRY_DELAY_MS = 10_000;

/** Options for {@link RobotsCache}. */
export interface RobotsOptions {
  /** Requests robots.txt with the crawl's own settings (User-Agent, proxy, TLS, in-scope headers). */
  request: HttpClient;
  /** Product token for group matching. @default 'spacrawl' */
  agent?: string;
  /** Fetch timeout (ms). @default 10000 */
  timeoutMs?: number;
  /**
   * Called once per origin when its robots.txt could not be used as is: `disallow-all` (5xx,
   * 429, no answer), or `allow-all` when its redirects led to no file (RFC 9309 §2.3.1.2).
   */
  onProblem?: (origin: string, outcome: RobotsOutcome) => void;
  /** Called once per origin with the outcome of its fetch (e.g. to apply `Crawl-delay`). */
  onOutcome?: (origin: string, outcome: RobotsOutcome) => void;
  /**
   * A cache shared with other workers of the same crawl (Redis): a robots.txt fetched by one
   * worker is not fetched again by the others. Failed fetches (network errors, 5xx) are not
   * shared: each worker tries them itself. Errors of the store propagate.
   */
  shared?: RobotsStore;
}

/** A robots.txt fetch as it is shared between workers. */
export interface RobotsFetch {
  /** HTTP status of the final response. */
  status: number;
  /** The body (up to {@link ROBOTS_MAX_BYTES}) for a 2xx, else `null`. */
  text: string | null;
}

/** Where {@link RobotsCache} shares fetched robots.txt files between workers. */
export interface RobotsStore {
  /** The fetch stored for `origin`, or `null`. */
  get(origin: string): Promise<RobotsFetch | null>;
  /** Store the fetch of `origin` (first writer wins). */
  set(origin: string, fetched: RobotsFetch): Promise<void>;
}

/**
 * robots.txt per origin (scheme, host, port), fetched once before the first request to that
 * origin; concurrent callers share one fetch. Status handling follows RFC 9309 §2.3.1:
 * 2xx → parsed; redirects followed up to 5 hops (§2.3.1.2), and redirects that lead to no
 * file (more than 5, a loop, a `Location` that is not an http(s) URL) are "unavailable", as a 4xx
 * is (§2.3.1.2 → §2.3.1.3); 4xx → everything allowed
 * (§2.3.1.3: a crawler MAY access the site) except 429, which asks for fewer requests (RFC 6585
 * §4) and is taken as 5xx is, as Google's crawler does; 5xx and network errors → everything
 * disallowed (§2.3.1.4), and robots.txt asked for again later.
 * Matching (longest match wins, `Allow` wins ties, `*` and `$`) is robots-parser's.
 */
export class RobotsCache {
  private readonly cache = new Map<string, Promise<Entry>>();
  private readonly agent: string;

  constructor(private readonly opts: RobotsOptions) {
    this.agent = opts.agent ?? ROBOTS_TOKEN;
  }

  /**
   * May our agent fetch `url`? Non-http(s) URLs are never allowed.
   * @param url - absolute URL as it will be requested
   */
  async isAllowed(url: string): Promise<boolean> {
    return (await this.check(url)).allowed;
  }

  /**
   * Like {@link RobotsCache.isAllowed}, with the origin's outcome, so a caller can tell a
   * rule from a blanket disallow caused by an unreachable robots.txt (RFC 9309 §2.3.1.4).
   */
  async check(url: string): Promise<RobotsDecision> {
    let origin: string;
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
      origin = u.origin;
    } catch {
      return { allowed: false, outcome: { kind: 'disallow-all', status: null, detail: 'not an http(s) URL', crawlDelayMs: null, sitemaps: [] } };
    }
    const entry = await this.entry(origin);
    return { allowed: entry.isAllowed(url), outcome: entry.outcome };
  }

  /** The robots.txt outcome of `url`'s origin (fetching it if needed). */
  async outcome(url: string): Promise<RobotsOutcome> {
    return (await this.entry(new URL(url).origin)).outcome;
  }

  /**
   * Explain the decision for `url`: allowed or not, the rule and its line number, plus the
   * origin's crawl-delay and sitemaps (in `outcome`).
   * @throws TypeError when `url` is not an absolute http(s) URL
   */
  async explain(url: string): Promise<RobotsExplanation> {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url}`);
    const entry = await this.entry(u.origin);
    const n = entry.lineOf(u.href);
    const line = n > 0 ? n : null;
    const rule = line ? (entry.text.split(/\r\n|\r|\n/)[line - 1] ?? '').trim() || null : null;
    return { allowed: entry.isAllowed(u.href), outcome: entry.outcome, robotsUrl: `${u.origin}/robots.txt`, line, rule, agent: this.agent };
  }

  private retried = new Set<string>();

  private async entry(origin: string): Promise<Entry> {
    let p = this.cache.get(origin);
    if (p) {
      // A robots.txt that could not be fetched is fetched once more, later in the crawl.
      const e = await p;
      if (e.retryAt !== undefined && Date.now() >= e.retryAt && !this.retried.has(origin)) {
        this.retried.add(origin);
        p = undefined;
      }
    }
    if (!p) {
      p = this.fetch(origin).then((entry) => {
        this.opts.onOutcome?.(origin, entry.outcome);
        return entry;
      });
      this.cache.set(origin, p);
    }
    return p;
  }

  private async fetch(origin: string): Promise<Entry> {
    const robotsUrl = `${origin}/robots.txt`;
    const blanket = (kind: 'allow-all' | 'disallow-all', status: number | null, detail: string, unanswered = false): Entry => {
      const outcome: RobotsOutcome = { kind, status, detail, crawlDelayMs: null, sitemaps: [], ...(unanswered ? { unanswered: true as const } : {}) };
      if (kind === 'disallow-all') {
        this.opts.onProblem?.(origin, outcome);
        return { outcome, isAllowed: () => false, lineOf: () => -1, text: '', retryAt: Date.now() + ROBOTS_RETRY_DELAY_MS };
      }
      return { outcome, isAllowed: () => true, lineOf: () => -1, text: '' };
    };
    let fetched = this.opts.shared ? await this.opts.shared.get(origin) : null;
    if (!fetched) {
      let resp;
      try {
        // Only the first ROBOTS_MAX_BYTES are read; the rest of a larger file is never downloaded.
        resp = await this.opts.request.request(robotsUrl, { timeoutMs: this.opts.timeoutMs ?? 10_000, maxRedirects: 5, maxBodyBytes: ROBOTS_MAX_BYTES });
      } catch (err) {
        if (err instanceof HttpRequestError && err.code === 'redirect') {
          // The server answered, with redirects that lead to no file: "unavailable" (RFC 9309
          // §2.3.1.2, "MAY assume that the robots.txt file is unavailable"), which §2.3.1.3
          // treats as a 4xx: everything allowed (Google: "treated as a 404"). The host is reachable.
          const entry = blanket('allow-all', err.status, err.message.split('\n')[0]!);
          this.opts.onProblem?.(origin, entry.outcome);
          await this.opts.shared?.set(origin, { status: err.status ?? 300, text: null });
          return entry;
        }
        // No robots.txt: "unreachable" (§2.3.1.4), everything disallowed. The host itself could
        // not be reached only when no response arrived at all; a response whose body was cut off
        // or never finished came from a host that is there, as a 5xx does.
        const status = err instanceof HttpRequestError ? err.status : null;
        return blanket('disallow-all', status, err instanceof Error ? err.message.split('\n')[0]! : String(err), status === null);
      }
      const status = resp.status;
      if (status >= 500 || status === 429) return blanket('disallow-all', status, `HTTP ${status}`);
      const text = status >= 200 && status < 300 ? resp.body.toString('utf8') : null;
      fetched = { status, text };
      await this.opts.shared?.set(origin, fetched);
    }
    const { status } = fetched;
    if (fetched.text === null) return blanket('allow-all', status, `HTTP ${status}`);
    const text = fetched.text;
    // robots-parser answers `undefined` for URLs outside the file's origin; the URL is then
    // governed by that other origin's robots.txt, which isAllowed() never mixes up.
    const robots = robotsParser(robotsUrl, normalizeRuleEscapes(text));
    const delay = robots.getCrawlDelay(this.agent);
    const outcome: RobotsOutcome = {
      kind: 'parsed',
      status,
      detail: `HTTP ${status}`,
      crawlDelayMs: typeof delay === 'number' && delay > 0 ? Math.round(delay * 1000) : null,
      sitemaps: robots.getSitemaps(),
    };
    return {
      outcome,
      isAllowed: (url) => robots.isAllowed(matchForm(url), this.agent) !== false,
      lineOf: (url) => robots.getMatchingLineNumber(matchForm(url), this.agent),
      text,
    };
  }
}

/** An `Allow:` or `Disallow:` line: the key (with its colon) and the rule's path. */
const RULE_LINE = /^([ \t]*(?:allow|disallow)[ \t]*:)([^\r\n]*)/gim;

/**
 * RFC 9309 §2.2.2: an escaped ASCII character that is not reserved is compared unescaped, in the
 * rules as in the URL (`Disallow: /%61rchive/` is `/archive/`); escaped reserved characters stay
 * escaped (`%2F` is not `/`). Applied to the rule paths before robots-parser reads them (it only
 * escapes non-ASCII); line numbers do not change.
 */
function normalizeRuleEscapes(text: string): string {
  return text.replace(RULE_LINE, (_line, key: string, rule: string) => key + normalizePercent(rule));
}

/** `url` with its path and query percent-normalized the same way (`/%7Estaff/` → `/~staff/`), for matching. */
function matchForm(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${normalizePercent(u.pathname + u.search)}`;
  } catch {
    return url;
  }
}
