import type { Request } from 'playwright';

/**
 * How long (ms) a repeated request to an endpoint that already answered during the visit holds
 * the settle before it counts as a hanging re-poll (background work, not content still to come).
 */
export const REPOLL_GRACE_MS = 1_000;

/**
 * Tells long-poll re-polls from requests a page waits on. A page that long-polls asks an endpoint
 * (same method, origin and path; the query, often a cursor, may differ) and renders its answer,
 * then asks again at once; the server holds that second request until there is news, possibly
 * forever. The first request to an endpoint is pending work like any other (it carries the
 * content; the settle cap bounds it). A later request to an endpoint that has already answered,
 * still unanswered after {@link REPOLL_GRACE_MS}, is a re-poll that hangs: background, like an
 * EventSource stream, so the page can settle. Only `fetch()` and XHR requests are considered.
 */
export class RepollWatch {
  private readonly answered = new Set<string>();
  /** Re-polls in flight, with when they went out (ms since epoch). */
  private readonly repolls = new Map<Request, number>();

  constructor(private readonly graceMs = REPOLL_GRACE_MS) {}

  /** Note a request of the page as it goes out, at `at` (ms since epoch). */
  sent(r: Request, at: number): void {
    const key = endpointOf(r);
    if (key !== null && this.answered.has(key)) this.repolls.set(r, at);
  }

  /** Note that `r` got its response headers (its endpoint has answered). */
  answeredBy(r: Request): void {
    const key = endpointOf(r);
    if (key !== null) this.answered.add(key);
    this.repolls.delete(r);
  }

  /**
   * A person's action (a click) happened: what it makes the page ask for is content the action
   * asked for, not a re-poll, even at an endpoint that answered before ("Next" asks
   * `/api/items?page=4` after `page=3` answered, and a busy server may take longer than the
   * grace). Endpoints answered before it no longer count; re-polls already in flight still do.
   */
  newAction(): void {
    this.answered.clear();
  }

  /** Forget `r` (it finished or failed). */
  ended(r: Request): void {
    this.repolls.delete(r);
  }

  /** `true` when `r` is a re-poll that has been waiting for its answer `graceMs` or longer at `now`. */
  isBackground(r: Request, now: number): boolean {
    const at = this.repolls.get(r);
    return at !== undefined && now - at >= this.graceMs;
  }
}

/** `GET https://host/path` for a fetch()/XHR request; `null` for any other kind. */
function endpointOf(r: Request): string | null {
  const type = r.resourceType();
  if (type !== 'fetch' && type !== 'xhr') return null;
  try {
    const u = new URL(r.url());
    return `${r.method()} ${u.origin}${u.pathname}`;
  } catch {
    return null;
  }
}
