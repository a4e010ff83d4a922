/**
 * What the page does during a visit, as the observe stage records it and the settle and
 * discover stages read it: its requests in flight, bodies not yet read, its last network event
 * and its main-document responses.
 * @module
 */
import type { Request, Response } from 'playwright';
import { RepollWatch } from '../repoll.js';
import { ServerWait } from '../server-wait.js';

/** The page's network and document activity during one visit (filled by the observe stage). */
export class PageActivity {
  /**
   * `true` once this visit's document has answered. Until then the tab still shows the previous
   * visit's page (paused), and what that page does is not this page's.
   */
  current = false;
  /** Downloads the page started (all cancelled). */
  downloadsSeen = 0;
  /**
   * Requests of this page still waiting for a response, for the settle rule. EventSource streams
   * never end by design and are not counted (their first message is: see `installStreamWatch`);
   * nor is a long-poll re-poll that hangs (see {@link RepollWatch}).
   */
  readonly inflight = new Set<Request>();
  /** Tells hanging long-poll re-polls from requests the page waits on. */
  readonly repoll = new RepollWatch();
  /** Requests of this visit's page (the previous page's late ones are left out). */
  readonly mine = new WeakSet<Request>();
  /**
   * Requests whose body has not been read to the end yet, with when their response arrived (ms
   * since epoch; `null` before it): a page still reading (and then processing) a large response
   * is not settled early, nor within `UNREAD_WAIT_MS` of the response (a body the page never
   * reads stops counting then). A fetch() body counts only while the page has a body read in
   * progress: Chromium finishes a fetch() request only once its body is read, and a page that
   * ignores the body never does.
   */
  readonly unread = new Map<Request, number | null>();
  /** Last request, response, finish or failure of the page (ms since epoch). */
  lastNet: number = Date.now();
  /** The visit's own main-document request (the last hop of its redirects), once sent. */
  mainRequest: Request | null = null;
  /** `true` once the first navigation request went out. */
  navigationSent = false;
  /**
   * The first navigation's document response (after its HTTP redirects): the requested URL's
   * answer. `null` until it arrives.
   */
  mainResponse: Response | null = null;
  /**
   * The last main-frame document response: a client-side navigation (meta refresh, location
   * change) may load another document after the first; that one is what gets read.
   */
  lastDocument: Response | null = null;
  /** How long the page waited for servers (see {@link ServerWait}). */
  readonly serverWait = new ServerWait();

  /** Requests in flight the settle waits for at `now` (ms since epoch): all but hanging re-polls. */
  waitedOn(now: number): number {
    let n = 0;
    for (const r of this.inflight) if (!this.repoll.isBackground(r, now)) n++;
    return n;
  }

  /**
   * Responses whose bodies still hold the settle at `now`: bodies not read to the end, except a
   * fetch() body while the page reads no body (`bodyReads` is 0: nothing will ever read it) and a
   * hanging re-poll. Each with when its response arrived (ms since epoch, `null` before it).
   */
  heldBodies(now: number, bodyReads: number): [Request, number | null][] {
    return [...this.unread].filter(([r]) => !this.repoll.isBackground(r, now) && (r.resourceType() !== 'fetch' || bodyReads > 0));
  }
}
