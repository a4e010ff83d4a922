import fs from 'node:fs';
import path from 'node:path';
import pLimit from 'p-limit';
import { request as playwrightRequest, type APIRequestContext, type Browser } from 'playwright';
import { browserUserAgent, defaultUserAgent, launchBrowser } from '../browser/launch.js';
import { ContextPool } from '../browser/pool.js';
import { visitPage, type VisitResult } from '../browser/visit.js';
import { blankRecord, type PageRecord } from '../report/record.js';
import { screenshotFileName } from '../report/screenshot-name.js';
import type { EndReason } from '../report/summary.js';
import { normalize, toRequestUrl } from '../url/normalize.js';
import { RobotsCache } from '../url/robots.js';
import { Scope } from '../url/scope.js';
import { VERSION } from '../version.js';
import { Channel } from './channel.js';
import type { Frontier, FrontierEntry, Lease } from './frontier.js';
import { classifyLinks, type Candidate } from './link-pipeline.js';
import { MemoryFrontier } from './memory-frontier.js';
import { resolveOptions, type CrawlOptions, type ResolvedCrawlOptions } from './options.js';

/**
 * One crawl: the loop that leases URLs from the frontier, visits them under a p-limit
 * semaphore, sends their links through the link pipeline and robots.txt back to the frontier,
 * and streams a {@link PageRecord} for every URL it decides about.
 *
 * Ends when nothing is queued or in flight, when `maxPages` navigations have started (the
 * rest get `skipped: "budget"`), or on cancellation / `maxTimeSeconds` (no new pages, in-flight
 * pages get `graceMs`, then their leases are released unrecorded).
 */
export class Crawler {
  readonly options: ResolvedCrawlOptions;
  /** Why the crawl ended; set when iteration finishes. */
  endReason: EndReason = 'done';
  /** `true` once at least one seed was visited (not skipped). */
  seedVisited = false;

  private readonly input: CrawlOptions;
  private readonly frontier: Frontier;
  private readonly out = new Channel<PageRecord>();
  private readonly stop = new AbortController();
  private readonly cancelVisits = new AbortController();
  private stopReason: EndReason | null = null;
  private scope!: Scope;
  private robots: RobotsCache | null = null;
  private started = 0;
  private running = false;

  /** @throws OptionsError for nonsensical options (checked here, before anything starts) */
  constructor(options: CrawlOptions) {
    this.input = options;
    this.options = resolveOptions(options);
    this.frontier = options.frontier ?? new MemoryFrontier();
  }

  /** Ask the crawl to end: no new pages start; in-flight pages get the grace period. */
  cancel(reason: EndReason = 'interrupted'): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.stop.abort();
  }

  /** Stream the records. Iterate once. */
  records(): AsyncIterable<PageRecord> {
    if (!this.running) {
      this.running = true;
      this.run().then(
        () => this.out.close(),
        (err: unknown) => this.out.fail(err),
      );
    }
    return this.out;
  }

  private notice(msg: string): void {
    this.input.onNotice?.(msg);
  }

  private emit(r: PageRecord): void {
    this.out.push(r);
  }

  private async run(): Promise<void> {
    const o = this.options;
    const t0 = Date.now();
    this.scope = new Scope(o.seeds, { mode: o.scope });
    const seeds = o.seeds.map((s) => ({ url: normalize(s), requestedUrl: toRequestUrl(s) }));

    const onExternalAbort = (): void => this.cancel('interrupted');
    if (this.input.signal?.aborted) onExternalAbort();
    this.input.signal?.addEventListener('abort', onExternalAbort, { once: true });
    const maxTimer = o.maxTimeSeconds ? setTimeout(() => this.cancel('max-time'), o.maxTimeSeconds * 1000) : null;

    if (o.screenshotsDir) fs.mkdirSync(o.screenshotsDir, { recursive: true });

    let browser: Browser;
    let ownBrowser = false;
    if (this.input.browser) browser = this.input.browser;
    else {
      browser = (await launchBrowser({ browserPath: o.browserPath, proxy: o.proxy })).browser;
      ownBrowser = true;
    }
    let requestCtx: APIRequestContext | null = null;
    let pool: ContextPool | null = null;
    try {
      const userAgent = o.userAgent ?? defaultUserAgent(await browserUserAgent(browser), VERSION);
      requestCtx = await playwrightRequest.newContext({
        userAgent,
        ...(o.proxy ? { proxy: { server: o.proxy } } : {}),
      });
      if (!o.ignoreRobots) {
        this.robots = new RobotsCache({
          request: requestCtx,
          onProblem: (origin, outcome) => this.notice(`robots.txt of ${origin} unusable (${outcome.detail}): treating the whole origin as disallowed`),
        });
      }
      pool = new ContextPool(browser, { userAgent, recycleAfter: o.recycleAfter });

      await this.offer(
        seeds.map((s) => ({ ...s })),
        0,
        null,
      );
      await this.loop(pool, t0);
    } finally {
      if (maxTimer) clearTimeout(maxTimer);
      this.input.signal?.removeEventListener('abort', onExternalAbort);
      await pool?.close();
      await requestCtx?.dispose().catch(() => {});
      if (ownBrowser) await browser.close().catch(() => {});
      await this.frontier.close();
    }
  }

  private async loop(pool: ContextPool, _t0: number): Promise<void> {
    const o = this.options;
    const limit = pLimit(o.concurrency);
    const active = new Set<Promise<void>>();
    const stopped = new Promise<void>((r) => this.stop.signal.addEventListener('abort', () => r(), { once: true }));
    let budgetSpent = false;

    for (;;) {
      if (this.stopReason) break;
      if (active.size >= o.concurrency) {
        await Promise.race([...active, stopped]);
        continue;
      }
      if (this.started >= o.maxPages) {
        budgetSpent = true;
        break;
      }
      const lease = await this.frontier.next();
      if (!lease) {
        if (active.size === 0) break;
        await Promise.race([...active, stopped]);
        continue;
      }
      this.started++;
      const job: Promise<void> = limit(() => this.process(pool, lease)).finally(() => active.delete(job));
      active.add(job);
    }

    if (this.stopReason) {
      // Grace period for the pages in flight, then cut them short (their leases go back).
      const all = Promise.all(active);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, o.graceMs)))]);
      clearTimeout(timer);
      this.cancelVisits.abort();
      await all;
      this.endReason = this.stopReason;
      return;
    }
    await Promise.all(active);
    if (budgetSpent) {
      const left = await this.frontier.drain();
      for (const e of left) {
        const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
        r.skipped = 'budget';
        this.emit(r);
      }
      this.endReason = left.length > 0 ? 'max-pages' : 'done';
    } else this.endReason = 'done';
  }

  /**
   * Offer candidate URLs found at `depth - 1` (or seeds at 0) to the frontier, deciding
   * robots.txt and depth budget first; emits a record for each new URL that is skipped.
   */
  private async offer(cands: readonly Candidate[], depth: number, referrer: string | null): Promise<void> {
    const entries: FrontierEntry[] = [];
    for (const c of cands) {
      const e: FrontierEntry = { url: c.url, requestedUrl: c.requestedUrl, depth, referrer };
      if (depth > this.options.maxDepth) e.skip = 'budget';
      else if (this.robots && !(await this.robots.isAllowed(c.requestedUrl))) e.skip = 'robots';
      entries.push(e);
    }
    const fresh = await this.frontier.add(entries);
    for (const e of fresh) {
      if (!e.skip) continue;
      const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
      r.skipped = e.skip;
      this.emit(r);
    }
  }

  private async process(pool: ContextPool, lease: Lease): Promise<void> {
    const o = this.options;
    const e = lease.entry;
    const shotName = o.screenshotsDir ? screenshotFileName(e.url) : null;
    const slot = await pool.acquire();
    let res: VisitResult;
    try {
      res = await visitPage(slot.context, e.requestedUrl, {
        navigationTimeoutMs: o.timeoutMs,
        settleTimeoutMs: o.settleTimeoutMs,
        quietMs: o.quietMs,
        screenshotPath: shotName && o.screenshotsDir ? path.join(o.screenshotsDir, shotName) : null,
        maxDialogs: 10,
        signal: this.cancelVisits.signal,
      });
    } finally {
      // contextBroken is read below; a throw from visitPage (not expected) discards the context.
    }
    pool.release(slot, res.contextBroken);
    if (res.interrupted) {
      await this.frontier.release(lease).catch(() => {});
      return;
    }

    const r = blankRecord(e.url, e.requestedUrl, e.depth, e.referrer);
    r.attempts = 1;
    r.finalUrl = res.finalUrl;
    r.redirectChain = res.redirectChain;
    r.status = res.status;
    r.contentType = res.contentType;
    r.title = res.nonHtml || (res.status === null && res.error) ? null : res.title;
    r.settled = res.settled;
    r.timings = res.timings;
    r.consoleErrors = res.consoleErrors;
    r.pageErrors = res.pageErrors;
    r.failedRequests = res.failedRequests;
    r.dialogs = res.dialogs;
    r.screenshot = res.screenshot ? shotName : null;
    r.error = res.error;
    if (res.nonHtml && res.status !== null && res.status < 400) r.skipped = 'non-html';

    let followLinks = !res.nonHtml && res.error === null;
    if (res.finalUrl) {
      let finalCanonical: string | null = null;
      try {
        finalCanonical = normalize(res.finalUrl);
      } catch {
        finalCanonical = null;
      }
      if (finalCanonical && finalCanonical !== e.url) {
        // The seed's final URL after redirects joins the scope (http://a → https://www.a/).
        if (e.depth === 0 && !this.scope.inScope(finalCanonical)) this.scope.addRoot(finalCanonical);
        if (!this.scope.inScope(finalCanonical)) {
          r.skipped = 'scope';
          followLinks = false;
        } else {
          await this.frontier.markDone(finalCanonical);
        }
      }
    }

    if (followLinks) {
      const classified = classifyLinks(res.links, this.scope);
      r.links = classified.links;
      r.linkDetails = classified.linkDetails;
      r.externalLinks = classified.externalLinks;
      if (e.depth === 0 && r.skipped === null) this.seedVisited = true;
      await this.frontier.complete(lease);
      this.emit(r);
      await this.offer(classified.candidates, e.depth + 1, e.url);
      return;
    }
    if (e.depth === 0 && r.skipped === null && r.status !== null) this.seedVisited = true;
    await this.frontier.complete(lease);
    this.emit(r);
  }
}

/**
 * Crawl from `options.seeds` and stream one {@link PageRecord} per URL decided about.
 * Breaking out of the loop cancels the crawl.
 * @throws OptionsError for nonsensical options; BrowserNotFoundError when no Chromium is found
 * @example
 * for await (const record of crawl({ seeds: ['http://127.0.0.1:8080/'] })) console.log(record.url, record.status);
 */
export async function* crawl(options: CrawlOptions): AsyncGenerator<PageRecord, void, undefined> {
  const crawler = new Crawler(options);
  let finished = false;
  try {
    for await (const r of crawler.records()) yield r;
    finished = true;
  } finally {
    if (!finished) crawler.cancel('interrupted');
  }
}
