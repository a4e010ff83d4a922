import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright';
import { CookieJar, type JarView } from './cookie-jar.js';
import type { StorageState } from './login/perform.js';
import { installScheduleWatch } from './schedule-scripts.js';
import { installAsyncWatch } from './async-scripts.js';
import { initScript } from './init-scripts.js';
import { installMutationClock } from './clock-scripts.js';
import { SETTLE_PROBE_SCRIPT } from './settle-scripts.js';
import { PAGE_LIBRARY_SCRIPT } from './page-library.js';
import { installStreamWatch } from './stream-scripts.js';
import type { AssetLoading } from './asset-placeholders.js';
import { RendererHeaps } from './renderer-heap.js';
import { openTab, type RequestGuard, type VisitTab } from './tab.js';
import { installLongTaskWatch, stopIfStalled, type ScriptStops } from './hang-watch.js';
import { installClickListenerWatch } from './click-hooks.js';
import { installNativeConstructors } from './native-scripts.js';
import { withTimeout } from './timeout.js';

/**
 * The visit scripts of every pool context, in this order: the browser's constructors kept first (`native-scripts.ts`);
 * the schedule and async watches add their counters to the clock's state, the settle probe reads them all.
 */
const VISIT_SCRIPTS: readonly ((() => void) | string)[] = [installNativeConstructors, installMutationClock, installScheduleWatch, installAsyncWatch,
  installStreamWatch, SETTLE_PROBE_SCRIPT, installLongTaskWatch, installClickListenerWatch, PAGE_LIBRARY_SCRIPT];

/** Settings shared by every context of a {@link ContextPool}. */
export interface PoolOptions {
  /** User-Agent header and `navigator.userAgent`. */
  userAgent: string;
  /** Tabs are closed and replaced after this many visits, and so is the context they were opened in (the crawl's `recycleAfter`). */
  recycleAfter: number;
  /**
   * `true`: the slots' tabs share one context (see {@link ContextPool}); `false`: every slot has
   * a context of its own (a screenshot crawl, where each page starts from a fresh context).
   * @default true
   */
  shareContext?: boolean;
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
  /**
   * Tabs a shared context opens at once, before any of them navigates (with `shareContext`): they
   * then render in one renderer process. A tab opened in a context whose renderer already shows the
   * site gets a renderer process of its own. @default 1
   */
  tabsPerContext?: number;
}

/** A browser context of the pool and the slots whose tabs live in it. */
interface PoolContext {
  context: BrowserContext;
  /** What the context holds of the crawl's cookie jar. */
  jar: JarView;
  /** The session it was opened with ({@link ContextPool.session}); an older one gets no new tab. */
  session: number;
  /** Slots with a tab in it, in use or free. */
  slots: number;
  /** `true` once it gets no new tab (a tab of it was recycled or broke, or a session replaced it); closed when its last slot goes. */
  retired: boolean;
  /** Tabs opened with the context, before any of its tabs navigated, not yet given to a slot (`null`: one failed to open). */
  spares: Promise<VisitTab | null>[];
}

interface Slot {
  /** `ctx.context`. */
  context: BrowserContext;
  ctx: PoolContext;
  /** The slot's reusable tab, opened on first use. */
  tab: VisitTab | null;
  uses: number;
  /** The session its context was opened with. */
  session: number;
}

/**
 * Reusable tabs, one per concurrency slot, in one shared browser context: created on first use,
 * handed to one visit at a time, and replaced after `recycleAfter` visits or when a visit reports
 * the tab broken (stuck, crashed, unable to navigate). Reusing the tab spares a renderer start per
 * page. Sharing the context, as a person's browser and Crawlee do, lets the tabs of one site share
 * one renderer process (`--renderer-process-limit=1`, see `launch.ts`) and one HTTP cache, when
 * they are opened together before any of them navigates: a context opens
 * {@link PoolOptions.tabsPerContext} tabs at once, and a slot beyond those gets a new context.
 * A page that hangs its renderer is told from the siblings it stalls by `hang-watch.ts`. Measured
 * with plain Playwright loads at 4 tabs (2 cores): the process tree's peak PSS was 25–28 % lower on
 * the shared TypeDoc site and 39 % lower on Elements than with a context per tab, at the same or
 * a shorter wall time. When a tab is recycled or breaks, its context gets no new tabs (it is
 * retired): the next tabs open in a new context, and the old one is closed with its last tab, so
 * no context outlives about `recycleAfter` visits per slot. With `shareContext: false` every slot
 * has a context of its own, replaced with its tab. Service workers are blocked (cached responses
 * would hide network activity) and downloads are refused. All contexts share one
 * {@link CookieJar}: a cookie a site sets on one page is sent with every later page, whatever
 * context renders it.
 *
 * A login's storage state ({@link ContextPool.adoptSession}) replaces the jar's cookies and is
 * given to every context opened from then on, recycled ones and those of a relaunched browser
 * included; contexts of an older session are closed instead of reused, and what they saw is not
 * taken into the jar (a logged-out visit's cookies must not overwrite the new session).
 */
export class ContextPool {
  private readonly free: Slot[] = [];
  /** The heap watches of the browser's renderers, shared by every tab (see `renderer-heap.ts`). */
  private readonly heaps = new RendererHeaps();
  /** Scripts stopped by the pool's tabs (see `hang-watch.ts`). */
  private readonly stops: ScriptStops = { count: 0 };
  private readonly all = new Set<Slot>();
  private readonly recycleAfter: number;
  private readonly shareContext: boolean;
  /** The context new tabs open in (with `shareContext`), or `null` before the first. */
  private current: PoolContext | null = null;
  /** The shared context being opened, which every slot created meanwhile waits for. */
  private opening: Promise<PoolContext> | null = null;
  /** Tabs each shared context opens at once (see {@link PoolOptions.tabsPerContext}). */
  private readonly tabsPerContext: number;
  /** The slots {@link ContextPool.prewarm} is opening, until the last is free (or failed). */
  private warming: Promise<void> | null = null;
  /** Slots {@link ContextPool.prewarm} is still opening. */
  private warmingSlots = 0;
  /** Visits waiting for a warming slot: one is woken per slot that is ready, all once none is left. */
  private warmWaiters: (() => void)[] = [];
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
    this.shareContext = opts.shareContext ?? true;
    this.tabsPerContext = this.shareContext ? Math.max(1, opts.tabsPerContext ?? 1) : 1;
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

  /** A new context with the visit scripts and `tabs` tabs opened in it, its starting cookies taken into the jar. */
  private async openPoolContext(tabs: number): Promise<PoolContext> {
    const session = this.sessionNo;
    const context = await this.openContext('login');
    for (const script of VISIT_SCRIPTS) await context.addInitScript(initScript(script));
    for (const content of this.opts.initScripts ?? []) await context.addInitScript({ content });
    const ctx: PoolContext = { context, jar: { version: -1, baseline: new Map() }, session, slots: 0, retired: false, spares: [] };
    ctx.spares = Array.from({ length: tabs }, () => this.openTab(context).catch(() => null));
    // Cookies the context starts with (a --storage-state) join the jar; not those of a session
    // that a login replaced while the context opened (they would overwrite the new session's).
    if (session === this.sessionNo) await this.cookies.collect(context, ctx.jar);
    return ctx;
  }

  /** A visit tab in `context`, with the pool's settings. */
  private openTab(context: BrowserContext): Promise<VisitTab> {
    return openTab(context, this.opts.guard ?? null, this.opts.assets ?? 'load', this.heaps, this.stops);
  }

  /**
   * A new slot, with one of the tabs its context opened at its start. With `shareContext`, the
   * current context is used while it has such a tab left; then a new one is opened (once, however
   * many slots ask meanwhile) with {@link PoolOptions.tabsPerContext} tabs, and the old one gets no
   * more. So the tabs of a context render in one renderer process, and no more than
   * `tabsPerContext` share it: a page that hangs its renderer's main thread stalls only those.
   */
  private async create(): Promise<Slot> {
    let ctx: PoolContext;
    if (!this.shareContext) ctx = await this.openPoolContext(1);
    else {
      for (;;) {
        const cur = this.current;
        if (cur && !cur.retired && cur.session === this.sessionNo && cur.spares.length) {
          ctx = cur;
          break;
        }
        if (!this.opening) {
          this.opening = this.openPoolContext(this.tabsPerContext)
            .then((opened) => {
              if (this.current) this.retire(this.current);
              this.current = opened;
              return opened;
            })
            .finally(() => {
              this.opening = null;
            });
        }
        await this.opening;
      }
    }
    ctx.slots++;
    const spare = ctx.spares.shift() ?? Promise.resolve(null);
    const slot: Slot = { context: ctx.context, ctx, tab: null, uses: 0, session: ctx.session };
    this.all.add(slot);
    slot.tab = await spare;
    return slot;
  }

  /** Give `ctx` no new tab; close it now when no slot has a tab in it. */
  private retire(ctx: PoolContext): void {
    ctx.retired = true;
    if (this.current === ctx) this.current = null;
    if (ctx.slots === 0) void withTimeout(ctx.context.close(), 10_000, 'closing a context').catch(() => {});
  }

  /** Close `slot`'s tab (its context too, when it is retired and this was its last tab). */
  private drop(slot: Slot, after: Promise<void>): void {
    const ctx = slot.ctx;
    ctx.slots--;
    if (!this.shareContext) ctx.retired = true;
    const closeContext = ctx.retired && ctx.slots === 0;
    const page = slot.tab?.page ?? null;
    void after.then(() =>
      closeContext ? withTimeout(ctx.context.close(), 10_000, 'closing a context').catch(() => {}) : page ? withTimeout(page.close(), 10_000, 'closing a tab').catch(() => {}) : undefined,
    );
  }

  /**
   * Borrow a slot (a context and its tab) for one visit; give it back with
   * {@link ContextPool.release}. With `prefer`, a free slot whose tab it picks is taken first
   * (a tab that shows the document of the URL to visit: see `visit/hash-route.ts`).
   * @throws when the browser cannot open a context or a page (e.g. it died)
   */
  async acquire(prefer?: (tab: VisitTab) => boolean): Promise<Slot & { tab: VisitTab }> {
    // A warming slot is taken as soon as it is ready, not when all of them are.
    while (!this.free.length && this.warmingSlots > 0) await new Promise<void>((wake) => this.warmWaiters.push(wake));
    const at = prefer ? this.free.findIndex((s) => s.tab !== null && prefer(s.tab)) : -1;
    const slot = (at >= 0 ? this.free.splice(at, 1)[0] : this.free.pop()) ?? (await this.create());
    try {
      await this.cookies.apply(slot.context, slot.ctx.jar);
      if (!slot.tab) slot.tab = await this.openTab(slot.context);
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
   * Open `slots` slots (a tab each, in contexts as {@link ContextPool.create} opens them) before the first visits ask for them:
   * the crawl starts this while robots.txt is fetched, so its first navigations (the seed's, the
   * soft-404 probe's) do not wait for a context and a tab (100-200 ms here). Does nothing once the
   * pool has a slot. Never throws: a slot that fails to open is dropped, and the visit that would
   * have used it opens its own (and meets the failure itself).
   */
  prewarm(slots: number): void {
    if (this.all.size || this.warming || slots < 1) return;
    const one = async (): Promise<void> => {
      const slot = await this.create();
      try {
        slot.tab ??= await this.openTab(slot.context);
      } catch {
        this.release(slot, true);
        return;
      }
      if (this.all.has(slot) && slot.session === this.sessionNo) this.free.push(slot);
      else this.release(slot, false); // a login replaced the session meanwhile (closed), or the browser died (gone already)
    };
    const ready = (): void => {
      this.warmingSlots--;
      if (this.warmingSlots > 0) this.warmWaiters.shift()?.();
      else for (const wake of this.warmWaiters.splice(0)) wake();
    };
    this.warmingSlots = slots;
    // The first tab opens alone: the crawl's first page waits for it, and opening the others at
    // the same time made it ready ~0.1 s later (the browser builds every context and tab at once).
    // The others are needed once that page has given links, a few hundred ms later.
    const first = one().catch(() => {}).finally(ready);
    this.warming = Promise.all([first, first.then(() => Promise.all(Array.from({ length: slots - 1 }, () => one().catch(() => {}).finally(ready))))])
      .then(() => {})
      .finally(() => {
        this.warming = null;
      });
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
    const sync = broken || stale ? Promise.resolve() : this.cookies.collect(slot.context, slot.ctx.jar).catch(() => {});
    if (broken || stale || slot.uses >= this.recycleAfter) {
      this.all.delete(slot);
      // A broken tab may still be running a script that holds its renderer's main thread (an
      // endless loop), which the context's other tabs share: stop it now, not when it closes (if
      // it is still stalled: a stop would end a sibling's call as well).
      if (broken && slot.tab) stopIfStalled(slot.tab);
      // A broken tab may have broken its context; a recycled one means the context has had its share of pages.
      if (!slot.ctx.retired) this.retire(slot.ctx);
      this.drop(slot, sync);
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
    if (this.current) this.retire(this.current);
    for (const s of this.free.splice(0)) {
      this.all.delete(s);
      if (!s.ctx.retired) this.retire(s.ctx);
      this.drop(s, Promise.resolve());
    }
  }

  /**
   * Switch to a new browser (after a crash): every context of the old one is dropped, and
   * new ones are created in `browser` on demand.
   */
  replaceBrowser(browser: Browser): void {
    this.browser = browser;
    for (const context of this.contexts()) withTimeout(context.close(), 5_000, 'closing a context').catch(() => {});
    this.all.clear();
    this.free.length = 0;
    this.current = null;
  }

  /** Close every context. */
  async close(): Promise<void> {
    await this.warming;
    await Promise.all(this.forget().map((c) => withTimeout(c.close(), 10_000, 'closing a context').catch(() => {})));
  }

  /** Let go of every context without closing them (their browser closes them); returns them. */
  forget(): BrowserContext[] {
    const contexts = this.contexts();
    this.all.clear();
    this.free.length = 0;
    this.current = null;
    return contexts;
  }

  /** The contexts of the pool's slots, and the current one, each once. */
  private contexts(): BrowserContext[] {
    const set = new Set<BrowserContext>([...this.all].map((s) => s.context));
    if (this.current) set.add(this.current.context);
    return [...set];
  }
}

export type { Slot as PoolSlot };
