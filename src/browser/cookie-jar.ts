import type { BrowserContext, Cookie } from 'playwright';
import { withTimeout } from './timeout.js';

/** What a context saw of the jar when it last synchronized with it. */
export interface JarView {
  /** The jar's version the context mirrors, or -1 when it does not (new, or another context changed the jar since). */
  version: number;
  /** The jar's cookies as the context got them, keyed like the jar: changes are measured against this. */
  baseline: Map<string, Cookie>;
}

const key = (c: Cookie): string => `${c.name}\u0000${c.domain}\u0000${c.path}`;
const same = (a: Cookie, b: Cookie): boolean =>
  a.value === b.value && a.expires === b.expires && a.httpOnly === b.httpOnly && a.secure === b.secure && a.sameSite === b.sameSite;

/**
 * One cookie jar for a whole crawl, as a person has one browser profile. The crawl renders pages
 * in a series of browser contexts (the slots' tabs share one, replaced every `recycleAfter` pages;
 * with screenshots, one per page), and each context has cookies of its own: a cookie a site sets on one page (a session, a
 * consent choice, a locale) would be missing on pages visited in another context, which would
 * then see a cookie wall or another variant of the page. So every context mirrors this jar
 * before a visit ({@link CookieJar.apply}) and hands back what the visit changed
 * ({@link CookieJar.collect}): set, changed and deleted cookies, the last writer winning.
 *
 * Only cookies carry over; `localStorage` stays with its context.
 */
export class CookieJar {
  private readonly cookies = new Map<string, Cookie>();
  private version = 0;
  /** Sessions replaced so far: what a context collected under an earlier one is dropped. */
  private epoch = 0;
  /**
   * Collects under way, with the context each reads: a visit that starts after another ended
   * waits for that one's cookies, unless they are in its own context already.
   */
  private readonly pending = new Map<Promise<void>, BrowserContext>();

  /** Cookies in the jar now. */
  get size(): number {
    return this.cookies.size;
  }

  /**
   * Make the jar hold exactly `cookies` (a new login's session): every context mirrors them
   * before its next visit.
   */
  replace(cookies: readonly Cookie[]): void {
    this.cookies.clear();
    for (const c of cookies) this.cookies.set(key(c), c);
    this.version++;
    this.epoch++;
  }

  /**
   * Make `context` hold exactly the jar's cookies, unless it already does (`view.version` is
   * current). Sets `view` to the jar as the context now holds it.
   * @throws when the browser does not answer within 10 s
   */
  async apply(context: BrowserContext, view: JarView): Promise<void> {
    // A collect from this context brings nothing this context lacks: only other contexts' are
    // waited for (the tabs of one shared context would otherwise wait for each other's reads
    // before every visit: ~90 ms a visit at concurrency 4 on the TypeDoc site).
    await this.settled((c) => c !== context);
    if (view.version !== this.version) {
      // Rewriting the context's cookies must not drop what its own last visit set: all collects first.
      await this.settled(() => true);
    }
    if (view.version !== this.version) {
      const all = [...this.cookies.values()];
      const version = this.version;
      // Cookies are overwritten in place and only those the jar lacks are removed, never all of them
      // first: the context's other tabs may be mid-visit, and a request sent between a clear and
      // an add would go out without the session (a logged-in crawl then saw a page logged out).
      const held = await withTimeout(context.cookies(), 10_000, 'reading cookies');
      const wanted = new Set(all.map(key));
      for (const c of held) {
        if (!wanted.has(key(c))) await withTimeout(context.clearCookies({ name: c.name, domain: c.domain, path: c.path }), 10_000, 'clearing cookies');
      }
      if (all.length) await withTimeout(context.addCookies(all), 10_000, 'adding cookies');
      view.version = version;
      view.baseline = new Map(all.map((c) => [key(c), c]));
      // Another visit may have changed the jar meanwhile: then the context is behind again.
      if (version !== this.version) view.version = -1;
      return;
    }
    view.baseline = new Map(this.cookies);
  }

  /**
   * Take into the jar what changed in `context` since `view.baseline`: cookies set or changed,
   * and cookies deleted (unless another visit has set them anew meanwhile). Later
   * {@link CookieJar.apply} calls wait for it.
   * @throws when the browser does not answer within 10 s
   */
  collect(context: BrowserContext, view: JarView): Promise<void> {
    const p = this.merge(context, view);
    const settled = p.then(
      () => {},
      () => {},
    );
    this.pending.set(settled, context);
    void settled.then(() => this.pending.delete(settled));
    return p;
  }

  /** Wait until no collect of a context that `which` picks is under way. */
  private async settled(which: (context: BrowserContext) => boolean): Promise<void> {
    for (;;) {
      const waiting = [...this.pending].filter(([, c]) => which(c)).map(([p]) => p);
      if (!waiting.length) return;
      await Promise.allSettled(waiting);
    }
  }

  private async merge(context: BrowserContext, view: JarView): Promise<void> {
    const epoch = this.epoch;
    const now = await withTimeout(context.cookies(), 10_000, 'reading cookies');
    // The session was replaced meanwhile: these are the old session's cookies.
    if (epoch !== this.epoch) return;
    const current = view.version === this.version;
    let changed = false;
    const seen = new Set<string>();
    for (const c of now) {
      const k = key(c);
      seen.add(k);
      const before = view.baseline.get(k);
      if (before && same(before, c)) continue;
      this.cookies.set(k, c);
      changed = true;
    }
    for (const [k, before] of view.baseline) {
      if (seen.has(k)) continue;
      const inJar = this.cookies.get(k);
      if (inJar && same(inJar, before)) {
        this.cookies.delete(k);
        changed = true;
      }
    }
    if (!changed) return;
    this.version++;
    // A context that mirrored the jar before its own changes still mirrors it after them.
    view.version = current ? this.version : -1;
    view.baseline = new Map(this.cookies);
  }
}
