import pLimit from 'p-limit';
import { HttpRequestError, type HttpClient } from '../net/http-client.js';
import type { LinkCheck, PageRecord, RecordError } from '../model/record.js';
import { backoffMs, parseRetryAfter, RETRYABLE_STATUS } from './retry.js';
import { sleep } from '../browser/timeout.js';

/** Options of {@link LinkChecker}. Times in milliseconds. */
export interface LinkCheckerOptions {
  /** Timeout of one request, redirects included (ms). */
  timeoutMs: number;
  /** Requests in flight per host (`host:port`). @default 2 */
  perHostConcurrency?: number;
  /** Requests in flight in all. @default 16 */
  concurrency?: number;
  /** Redirects followed per request. @default 10 */
  maxRedirects?: number;
  /**
   * GETs repeated after a transient failure (`--retries`): a 408, 425 or 5xx, or a connection
   * lost on the way (reset, hang-up); not a 429, a timeout, a refused connection or an unknown
   * host. @default 0
   */
  retries?: number;
  /** Longest pause before a retry (`--max-retry-after`): a `Retry-After` or the backoff is cut to it (ms). @default 60000 */
  maxRetryAfterMs?: number;
}

/** The answer to one URL, without the `kind` its page gives it. */
export type CheckAnswer = Omit<LinkCheck, 'kind'>;

/**
 * The `Accept` header of a link check: what a browser sends when a person follows a link
 * (RFC 9110 §12.5.1). Servers that negotiate content answer a bare `*\/*` differently (some with
 * 404 or 406) although the link works in a browser. A `--header Accept: …` for the crawl's own
 * origins replaces it.
 */
export const NAVIGATION_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * HEAD and then, only if needed, GET: which requests a check made. Also after a HEAD that timed
 * out: some servers never answer HEAD and answer GET at once (wummel/linkchecker#28: Amazon;
 * html-proofer#439). Not after a 429: the server asked for fewer requests (RFC 6585 §4), and a
 * GET right after would be one more; the answer stands (the audit's `blocked`: rate-limited, not
 * proof the link is broken).
 */
const RETRY_WITH_GET = (a: Attempt): boolean => ('error' in a ? true : a.status >= 400 && a.status !== 429);

/**
 * The HEAD's share of the timeout: half of it. A server that leaves HEAD unanswered then costs a
 * check 1.5 × the timeout, not 2 ×, and one that answers anything within the timeout still
 * answers the GET.
 */
const HEAD_TIMEOUT_SHARE = 0.5;

type Attempt = ({ status: number; blockedBy: string | null } | { error: RecordError }) & {
  /** The failure may pass: another GET may answer (see `LinkCheckerOptions.retries`). */
  transient: boolean;
  /** The response's `Retry-After`, in ms, when it had one. */
  retryAfterMs: number | null;
};

/**
 * Network failures that repeat on every attempt: nothing listens, the host has no address, the
 * certificate is refused, the redirects lead nowhere. Retrying only delays the report.
 */
const STABLE_NETWORK_ERROR = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|certificate|CERT_|self[- ]signed|SSL|TLS/i;

/**
 * Checks URLs with requests made outside any page, through the crawl's {@link HttpClient} (its
 * User-Agent, proxy, TLS settings and in-scope `--header` values):
 * HEAD first (with half the timeout), then GET when HEAD failed or answered >= 400 but not 429
 * (many servers answer HEAD with 403, 404, 405 or 501 when GET works), each with a browser's navigation
 * `Accept` ({@link NAVIGATION_ACCEPT}), and up to `retries` more GETs after a transient failure.
 * Each URL is checked once per
 * checker: the answer (or the request in flight) is shared by every caller. At most
 * `perHostConcurrency` requests go to one host at a time, `concurrency` in all.
 *
 * It never crawls: response bodies are discarded, and nothing found in them is followed.
 */
export class LinkChecker {
  private readonly cache = new Map<string, Promise<CheckAnswer>>();
  private readonly hosts = new Map<string, ReturnType<typeof pLimit>>();
  private readonly all: ReturnType<typeof pLimit>;
  private readonly perHost: number;
  private readonly maxRedirects: number;
  /** HTTP requests sent so far (a HEAD and its GET fallback are two). */
  requests = 0;

  /**
   * @param request - the client requests go through
   * @param opts - timeouts and concurrency
   */
  constructor(
    private readonly request: HttpClient,
    private readonly opts: LinkCheckerOptions,
  ) {
    this.perHost = opts.perHostConcurrency ?? 2;
    this.all = pLimit(opts.concurrency ?? 16);
    this.maxRedirects = opts.maxRedirects ?? 10;
  }

  /**
   * Check one absolute http(s) URL (once per checker; later calls share the answer). Never throws.
   * @param url - the key the answer is cached and reported under (a canonical URL)
   * @param request - the URL actually requested, as it was linked (default: `url`)
   */
  check(url: string, request = url): Promise<CheckAnswer> {
    let p = this.cache.get(url);
    if (!p) {
      p = this.hostLimit(request)(() => this.all(() => this.run(url, request)));
      this.cache.set(url, p);
    }
    return p;
  }

  private hostLimit(url: string): ReturnType<typeof pLimit> {
    let key: string;
    try {
      key = new URL(url).host;
    } catch {
      key = url;
    }
    let l = this.hosts.get(key);
    if (!l) {
      l = pLimit(this.perHost);
      this.hosts.set(key, l);
    }
    return l;
  }

  private async run(url: string, request: string): Promise<CheckAnswer> {
    let method: 'HEAD' | 'GET' = 'HEAD';
    let a = await this.attempt(request, method, Math.max(1, Math.round(this.opts.timeoutMs * HEAD_TIMEOUT_SHARE)));
    if (RETRY_WITH_GET(a)) {
      method = 'GET';
      a = await this.attempt(request, method);
    }
    // A 503 during a deploy or a reset connection is no broken link: ask again, as the crawl
    // asks again for its own pages (the per-host slot stays held meanwhile: no burst at the host).
    const retries = this.opts.retries ?? 0;
    for (let i = 1; i <= retries && a.transient; i++) {
      const cap = this.opts.maxRetryAfterMs ?? 60_000;
      await sleep(Math.min(a.retryAfterMs ?? backoffMs(i), cap));
      method = 'GET';
      a = await this.attempt(request, method);
    }
    if ('error' in a) return { url, method, status: null, blockedBy: null, error: a.error };
    return { url, method, status: a.status, blockedBy: a.blockedBy, error: null };
  }

  private async attempt(url: string, method: 'HEAD' | 'GET', timeoutMs = this.opts.timeoutMs): Promise<Attempt> {
    this.requests++;
    try {
      const resp = await this.request.request(url, { method, timeoutMs, maxRedirects: this.maxRedirects, accept: NAVIGATION_ACCEPT });
      const status = resp.status;
      const mitigated = resp.headers['cf-mitigated'];
      const transient = RETRYABLE_STATUS.has(status) && status !== 429;
      return { status, blockedBy: status === 403 && mitigated ? `cf-mitigated: ${mitigated}` : null, transient, retryAfterMs: transient ? parseRetryAfter(resp.headers['retry-after']) : null };
    } catch (err) {
      const error = requestError(err, timeoutMs);
      // Only a connection lost on the way: not a timeout (a second one would double the wait), not redirects that lead nowhere.
      const transient = err instanceof HttpRequestError && err.code === 'network' && !STABLE_NETWORK_ERROR.test(err.message);
      return { error, transient, retryAfterMs: null };
    }
  }
}

/** A request failure as a record error: `timeout`, or `network` with the first line of the message. */
export function requestError(err: unknown, timeoutMs: number): RecordError {
  if (err instanceof HttpRequestError && err.code === 'timeout') return { code: 'timeout', message: `no answer within ${timeoutMs} ms` };
  return { code: 'network', message: (err instanceof Error ? err.message : String(err)).split('\n')[0]! };
}

/** A URL to check for a page, and why. */
export interface CheckTarget {
  /** Canonical URL: the key of the answer and the `url` of the record's `LinkCheck`. */
  url: string;
  /** What is requested: the URL as it was linked (see `ClassifiedLinks.requestUrls`). */
  request: string;
  kind: LinkCheck['kind'];
}

/**
 * The off-site target of a redirect record the crawl stopped at the scope's edge (`redirect: true`,
 * `skipped: "scope"`), else `null`. The browser never requests it (docs/urls.md, "Redirects"), so
 * a link to `/go/partner` that forwards to a gone page elsewhere would pass unseen: with
 * `--check-external` it is checked as an off-site link is (lychee#726: a 301 into a 404 must fail).
 */
export function offsiteForward(r: PageRecord): string | null {
  const target = r.finalUrl;
  return r.redirect && r.skipped === 'scope' && target !== null && /^https?:/i.test(target) ? target : null;
}

/**
 * The requests to make for one page's record: with `checkExternal` every off-site link, or for a
 * redirect record stopped at the scope's edge its off-site target ({@link offsiteForward}: its
 * canonical URL is the key `requestUrls` gives it, else the target as forwarded); and, on
 * an `https:` page, every `http://` link in scope (off-site ones only with `checkExternal`) plus
 * its `https://` form. Each URL once per kind, links first, in document order. A URL is
 * requested as it was linked (`requestUrls`: canonical URL → as linked), never in its canonical
 * spelling: that may have lost parameters (`sid`, tracking), their order or escapes the server needs.
 */
export function checkTargets(r: PageRecord, checkExternal: boolean, requestUrls: ReadonlyMap<string, string> = new Map()): CheckTarget[] {
  const out: CheckTarget[] = [];
  const seen = new Set<string>();
  const add = (url: string, request: string, kind: LinkCheck['kind']): void => {
    const key = `${kind} ${url}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ url, request, kind });
  };
  const asLinked = (u: string): string => requestUrls.get(u) ?? u;
  if (checkExternal) for (const u of r.externalLinks) add(u, asLinked(u), 'link');
  const forward = checkExternal ? offsiteForward(r) : null;
  if (forward) add([...requestUrls].find(([, v]) => v === forward)?.[0] ?? forward, forward, 'link');
  const secure = (r.finalUrl ?? r.url).startsWith('https:');
  if (secure) {
    const insecure = [...r.links, ...(checkExternal ? r.externalLinks : [])].filter((u) => u.startsWith('http:'));
    for (const u of insecure) add(u, asLinked(u), 'link');
    for (const u of insecure) add(httpsForm(u), httpsForm(asLinked(u)), 'https-form');
  }
  return out;
}

/** `http://x/y` → `https://x/y` (same host, port and path). */
export function httpsForm(url: string): string {
  const u = new URL(url);
  u.protocol = 'https:';
  return u.href;
}

/**
 * Fill `r.linkChecks` for a page (see {@link checkTargets}).
 * @param requestUrls - canonical URL → the URL as linked (`ClassifiedLinks.requestUrls`); a URL missing here is requested in its canonical form
 * @param allowed - whether a URL may be requested at all (robots.txt of an origin the crawl
 *   reads: a link left out of the crawl by `--exclude` is still on a site whose rules apply,
 *   RFC 9309 §2.2.2); one it refuses is not checked and gets no entry
 * @returns `false` when `signal` aborted first (the record is left unchanged), else `true`
 */
export async function applyLinkChecks(
  checker: LinkChecker,
  r: PageRecord,
  checkExternal: boolean,
  signal?: AbortSignal,
  requestUrls: ReadonlyMap<string, string> = new Map(),
  allowed: (url: string) => Promise<boolean> = async () => true,
): Promise<boolean> {
  const candidates = checkTargets(r, checkExternal, requestUrls);
  const permitted = await Promise.all(candidates.map((t) => allowed(t.request).catch(() => false)));
  const targets = candidates.filter((_, i) => permitted[i]);
  if (targets.length === 0) return true;
  const work = Promise.all(
    targets.map(async (t): Promise<LinkCheck> => {
      const a = await checker.check(t.url, t.request);
      return { url: a.url, kind: t.kind, method: a.method, status: a.status, blockedBy: a.blockedBy, error: a.error };
    }),
  );
  if (!signal) {
    r.linkChecks = await work;
    return true;
  }
  if (signal.aborted) return false;
  let onAbort!: () => void;
  const aborted = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const checks = await Promise.race([work, aborted]);
    if (checks === null) return false;
    r.linkChecks = checks;
    return true;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
