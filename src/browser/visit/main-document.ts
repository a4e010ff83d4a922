/**
 * What the intercept stage learns of the visit's main document as its responses pass (before
 * the browser acts on them), for the navigate and settle stages to read.
 * @module
 */
import type { RedirectHop } from '../../model/record.js';

/** A main document that is not HTML, answered from its headers (never rendered). */
export interface NonHtmlAnswer {
  /** Its HTTP status. */
  status: number;
  /** Its `Content-Type` as sent, or `null`. */
  contentType: string | null;
  /** The URL that answered. */
  url: string;
  /** Its `Retry-After` header, or `null`. */
  retryAfter: string | null;
}

/** The first navigation's final answer as intercepted (headers lowercased; `at` in ms since epoch). */
export interface InterceptedAnswer {
  /** Its HTTP status. */
  status: number;
  /** The URL that answered. */
  url: string;
  /** Its headers, names lowercased (the last line wins for a repeated name). */
  headers: Record<string, string>;
  /** When it was intercepted (ms since epoch). */
  at: number;
}

/** The main document's story in one visit, as the intercept stage decided its responses. */
export class MainDocument {
  /** `true` once the first navigation's document (not a redirect) has answered. */
  decided = false;
  /** Documents are decided until extraction starts; later ones (clicks) are explore's to guard. */
  deciding = true;
  /** The first navigation's HTTP hops, as they pass (for a navigation stopped at a hop). */
  readonly hops: RedirectHop[] = [];
  /** What the requested URL itself answered (its first response's status). */
  ownStatus: number | null = null;
  /** Client-side navigations of the page to its own URL so far. */
  selfReloads = 0;
  /**
   * Client-side navigations of the page to other documents so far, in order: the URL the page
   * was at and the URL it went to (fragments dropped). See `MAX_CLIENT_FORWARDS`.
   */
  readonly forwards: { from: string; to: string }[] = [];
  /**
   * Set when the page's client-side navigations went round in a loop (one repeated a navigation
   * this visit already made) or went on past `MAX_CLIENT_FORWARDS`: the last one was refused, and
   * the visit ends as a redirect loop (see `loopedAnswer`).
   */
  looped = false;
  /** For a history route visit: the URL the shell document is shown at (the route's); else `null` (the response's own URL). */
  routeUrl: string | null = null;
  /** Set when the first navigation's document is not HTML. */
  nonHtml: NonHtmlAnswer | null = null;
  /**
   * The first navigation's final answer, kept for answers Chromium then drops without a
   * response event (a 304 nobody asked for, see `UNRENDERED_ANSWER`).
   */
  answered: InterceptedAnswer | null = null;
  /** Resolves when a client-side navigation is stopped: the visit need not wait for anything else. */
  readonly clientStopped: Promise<void>;
  private resolveClientStop!: () => void;

  constructor() {
    this.clientStopped = new Promise<void>((resolve) => (this.resolveClientStop = resolve));
  }

  /** Note that a client-side navigation was stopped (resolves {@link clientStopped}). */
  clientStop(): void {
    this.resolveClientStop();
  }
}
