/**
 * App shells: one HTML document a server sends for many paths of an origin (a client-routed
 * single-page app with a history-mode router: `/`, `/users/1`, `/settings` all answer the same
 * `index.html`, and the app renders the route from `location`). A crawl learns them from the
 * documents it loads; `visit/history-route.ts` then reaches further paths of such an origin by
 * routing the app a tab already shows, instead of loading and booting it again.
 * @module
 */

/** What one origin's loaded documents said about shells. */
interface OriginShells {
  /** Body digest → the first document URL (without fragment) that answered it (at most {@link MAX_DIGESTS} kept). */
  firstUrl: Map<string, string>;
  /** Digests that answered two different document URLs: shells. */
  shells: Set<string>;
  /** Route visits whose probe got the shell back (the route was rendered in place). */
  hits: number;
  /** Probes that got another answer (another document, status or type): those URLs were loaded after all. */
  misses: number;
  /** `true` once an app was seen without a `popstate` listener: its routes are never reached in place. */
  noRouter: boolean;
  /** Route visits checked against a load of the same URL and found to read the same. */
  verified: number;
  /** `true` once a route visit read differently from a load of the same URL: its routes are loaded from then on. */
  differs: boolean;
}

/** Digests remembered per origin while looking for a shell (a site of distinct documents never finds one). */
const MAX_DIGESTS = 64;
/**
 * Probes that got another document are let go this many times beyond those that got the shell:
 * each such probe costs the site one more request for that URL (the probe, then the load).
 */
const MISS_ALLOWANCE = 3;
/**
 * Route visits of an origin checked against a full load of the same URL before its routes are
 * trusted: an app may keep state across routes (an expanded menu, a filled form) that a load
 * would not show, and its records must read as a load's.
 */
export const ROUTE_CHECKS = 2;

/**
 * The app shells of one crawl, per origin (shared by every tab). A digest is a shell once two
 * different document URLs of the origin answered it with a 2xx HTML body of exactly those bytes.
 * Routes of an origin are reached in place only while they keep reading as loads: the first
 * {@link ROUTE_CHECKS} route visits are each followed by a load of the same URL (the load is
 * the one recorded), and one difference ends routing there.
 */
export class DocumentShells {
  private readonly origins = new Map<string, OriginShells>();

  /** @param onNote - told, once per origin and kind, when a shell is found and when its routes stop being reached in place (a one-line notice for the user) */
  constructor(private readonly onNote: (message: string) => void = () => {}) {}

  private of(origin: string): OriginShells {
    let o = this.origins.get(origin);
    if (!o) {
      o = { firstUrl: new Map(), shells: new Set(), hits: 0, misses: 0, noRouter: false, verified: 0, differs: false };
      this.origins.set(origin, o);
    }
    return o;
  }

  /**
   * Note a loaded document: `url` (its fragment is ignored) answered a 2xx HTML body whose
   * digest is `digest`.
   */
  noteLoad(url: string, digest: string): void {
    const u = new URL(url);
    u.hash = '';
    const o = this.of(u.origin);
    if (o.shells.has(digest)) return;
    const first = o.firstUrl.get(digest);
    if (first === undefined) {
      if (o.firstUrl.size < MAX_DIGESTS) o.firstUrl.set(digest, u.href);
    } else if (first !== u.href) {
      o.shells.add(digest);
      o.firstUrl.delete(digest);
      if (o.shells.size === 1) this.onNote(`${u.origin} answers ${first} and ${u.href} with the same app shell: its other paths are routed in place when the server sends that shell for them (--history-route-reuse)`);
    }
  }

  /**
   * `true` when a document of `origin` with body `digest` is a shell worth routing in place: two
   * URLs answered it, the app listens for `popstate`, and probes have not kept finding other
   * documents (see {@link MISS_ALLOWANCE}).
   */
  routable(origin: string, digest: string): boolean {
    const o = this.origins.get(origin);
    return o !== undefined && !o.noRouter && !o.differs && o.shells.has(digest) && o.misses < o.hits + MISS_ALLOWANCE;
  }

  /** `true` while route visits of `origin` are still to be checked against a load (see {@link ROUTE_CHECKS}). */
  unverified(origin: string): boolean {
    return (this.origins.get(origin)?.verified ?? 0) < ROUTE_CHECKS;
  }

  /** Note a check of a route visit of `url` against a load: `same` when both read the same (status, title, links). */
  noteCheck(origin: string, same: boolean, url = origin): void {
    const o = this.of(origin);
    if (same) o.verified++;
    else if (!o.differs) {
      o.differs = true;
      this.onNote(`${origin}: ${url} routed in place read differently from a load of it (status, title or links); its paths are loaded from now on`);
    }
  }

  /** Note a route probe's outcome: `true` when the URL answered the shell. */
  noteProbe(origin: string, shell: boolean): void {
    const o = this.of(origin);
    if (shell) o.hits++;
    else o.misses++;
  }

  /** Note that the app of `origin` has no `popstate` listener: no more route visits there. */
  noteNoRouter(origin: string): void {
    const o = this.of(origin);
    if (!o.noRouter) this.onNote(`${origin}: its app shell has no popstate listener; its paths are loaded`);
    o.noRouter = true;
  }
}
