import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright';
import { CookieJar, type JarView } from './cookie-jar.js';
import type { StorageState } from './login/perform.js';
import { installScheduleWatch } from './schedule-scripts.js';
import { installMutationClock, installSettleProbe } from './settle-scripts.js';
import { installStreamWatch } from './stream-scripts.js';
import type { AssetLoading } from './asset-placeholders.js';
import { openTab, type RequestGuard, type VisitTab } from './tab.js';
import { withTimeout } from './timeout.js';

/** Settings shared by every context of a {@link ContextPool}. */
export interface PoolOptions {
  /** User-Agent header and `navigator.userAgent`. */
  userAgent: string;
  /** Contexts are closed and replaced after this many visits (the crawl's `recycleAfter`). */
  recycleAfter: number;
  /** Playwright context options (viewport, locale, storage state …); the viewport is Playwright's own unless given. */
  contextOptions?: BrowserContextOptions;
  /** Extra request headers, added only to requests for which `headerScope` says yes. */
  headers?: Record<string, string>;
  /** Which request URLs get `headers` (the crawl's scope). */
  headerScope?: (url: string) => boolean;
  /** Requests every visit tab refuses (sign-out URLs while logged in), or none. */
  guard?: RequestGuard | null;
  /** How every tab loads images, media and web fonts (see `openTab`). @default 'load' */
  assets?: AssetLoading;
  /** More init scripts (JavaScript source) for every page of every context, e.g. `vitalsInitScript()` with `--vitals`. */
  initScripts?: readonly string[];
}

interface Slot {
  context: BrowserContext;
  /** The slot's reusable tab, opened on first use. */
  tab: VisitTab | null;
  uses: number;
  /** What the context holds of the crawl's cookie jar. */
  jar: JarView;
  /** The session it was opened with ({@link ContextPool.session}); an older one is never reused. */
  session: number;
}

/**
 * Reusable browser contexts, one per concurrency slot, each with one reusable tab: created on
 * first use, handed to one visit at a time, and replaced (context and tab) after `recycleAfter`
 * visits or when a visit reports the tab broken (stuck, crashed, unable to navigate). Reusing the
 * tab spares a renderer start per page. Service workers are blocked (cached responses would hide network
 * activity) and downloads are refused. All contexts share one {@link CookieJar}: a cookie a site
 * sets on one page is sent with every later page, whatever context renders it.
 *
 * A login's storage state ({@link ContextPool.adoptSession}) replaces the jar's cookies and is
 * given to every context opened from then on, recycled ones and those of a relaunched browser
 * included; contexts of an older session are closed instead of reused, and what they saw is not
 * taken into the jar (a logged-out visit's cookies must not overwrite the new session).
 */
export class ContextPool {
  private readonly free: Slot[] = [];
  private readonly all = new Set<Slot>();
  private readonly recycleAfter: number;
  /** The crawl's cookies, mirrored by every context before each visit. */
  readonly cookies = new CookieJar();
  /** The login's storage state, once a login ran (else the context options' own `storageState`). */
  private loginState: StorageState | null = null;
  /** Sessions adopted so far: 0 before any login. */
  private sessionNo = 0;

  constructor(
    private browser: Browser,
    private readonly opts: PoolOptions,
  ) {
    this.recycleAfter = opts.recycleAfter;
  }

  /** The session (login) new contexts get: 0 before any login, then 1, 2 … */
  get session(): number {
    return this.sessionNo;
  }

  /**
   * A context like the crawl's (User-Agent, viewport, locale, TLS, headers to in-scope URLs,
   * no service workers, no downloads), without the visit scripts.
   * @param state - `login`: the current login's storage state (or the options' own);
   * `initial`: only the options' own `storageState` (`--storage-state`), for running a login
   * @throws when the browser cannot open a context within 30 s
   */
  async openContext(state: 'login' | 'initial'): Promise<BrowserContext> {
    const storage = state === 'login' && this.loginState ? { storageState: this.loginState } : {};
    const context = await withTimeout(
      this.browser.newContext({
        ...this.opts.contextOptions,
        ...storage,
        userAgent: this.opts.userAgent,
        serviceWorkers: 'block',
        acceptDownloads: false,
      }),
      30_000,
      'creating a browser context',
    );
    const extra = this.opts.headers;
    const inScope = this.opts.headerScope;
    if (extra && Object.keys(extra).length && inScope) {
      await context.route('**/*', (route) => {
        const req = route.request();
        if (!inScope(req.url())) return route.fallback();
        return route.fallback({ headers: { ...req.headers(), ...extra } });
      });
    }
    return context;
  }

  private async create(): Promise<Slot> {
    const session = this.sessionNo;
    const context = await this.openContext('login');
    // In this order: the schedule watch adds its counters to the clock's state, and the probe reads them all.
    await context.addInitScript(installMutationClock);
    await context.addInitScript(installScheduleWatch);
    await context.addInitScript(installStreamWatch);
    await context.addInitScript(installSettleProbe);
    for (const content of this.opts.initScripts ?? []) await context.addInitScript({ content });
    const slot: Slot = { context, tab: null, uses: 0, jar: { version: -1, baseline: new Map() }, session };
    // Cookies the context starts with (a --storage-state) join the jar.
    await this.cookies.collect(context, slot.jar);
    this.all.add(slot);
    return slot;
  }

  /**
   * Borrow a slot (a context and its tab) for one visit; give it back with
   * {@link ContextPool.release}. With `prefer`, a free slot whose tab it picks is taken first
   * (a tab that shows the document of the URL to visit: see `visit/hash-route.ts`).
   * @throws when the browser cannot open a context or a page (e.g. it died)
   */
  async acquire(prefer?: (tab: VisitTab) => boolean): Promise<Slot & { tab: VisitTab }> {
    const at = prefer ? this.free.findIndex((s) => s.tab !== null && prefer(s.tab)) : -1;
    const slot = (at >= 0 ? this.free.splice(at, 1)[0] : this.free.pop()) ?? (await this.create());
    try {
      await this.cookies.apply(slot.context, slot.jar);
      if (!slot.tab) slot.tab = await openTab(slot.context, this.opts.guard ?? null, this.opts.assets ?? 'load');
      // The garbage collection the tab's last visit started (see `renderer-heap.ts`) ends first.
      if (slot.tab.tidying) {
        await slot.tab.tidying;
        slot.tab.tidying = null;
      }
    } catch (err) {
      this.release(slot, true);
      throw err;
    }
    return slot as Slot & { tab: VisitTab };
  }

  /**
   * Return a borrowed context. A broken one, or one that reached `recycleAfter` visits,
   * is closed (in the background) instead of reused.
   */
  release(slot: Slot, broken: boolean): void {
    slot.uses++;
    if (!this.all.has(slot)) return; // dropped by replaceBrowser()
    const stale = slot.session !== this.sessionNo;
    // What the visit did to cookies goes back to the jar (not from a broken context: it may not
    // answer; not from a context of an older session: its cookies are the old session's).
    const sync = broken || stale ? Promise.resolve() : this.cookies.collect(slot.context, slot.jar).catch(() => {});
    if (broken || stale || slot.uses >= this.recycleAfter) {
      this.all.delete(slot);
      void sync.then(() => withTimeout(slot.context.close(), 10_000, 'closing a context').catch(() => {}));
      return;
    }
    this.free.push(slot);
  }

  /**
   * Take a login's storage state as the crawl's session: the jar's cookies become exactly its
   * cookies, free contexts are closed, and contexts still in use are closed when given back.
   * Every context opened from now on starts with `state`.
   */
  adoptSession(state: StorageState): void {
    this.loginState = state;
    this.sessionNo++;
    this.cookies.replace(state.cookies);
    for (const s of this.free.splice(0)) {
      this.all.delete(s);
      withTimeout(s.context.close(), 10_000, 'closing a context').catch(() => {});
    }
  }

  /**
   * Switch to a new browser (after a crash): every context of the old one is dropped, and
   * new ones are created in `browser` on demand.
   */
  replaceBrowser(browser: Browser): void {
    this.browser = browser;
    for (const s of this.all) withTimeout(s.context.close(), 5_000, 'closing a context').catch(() => {});
    this.all.clear();
    this.free.length = 0;
  }

  /** Close every context. */
  async close(): Promise<void> {
    const slots = [...this.all];
    this.all.clear();
    this.free.length = 0;
    await Promise.all(slots.map((s) => withTimeout(s.context.close(), 10_000, 'closing a context').catch(() => {})));
  }
}

export type { Slot as PoolSlot };
