/**
 * What the page does during a visit, as the observe stage records it and the settle and
 * discover stages read it: its requests in flight, bodies not yet read, its last network event
 * and its main-document responses.
 * @module
 */
import type { Request, Response } from 'playwright';
import type { SettleState } from '../settle-scripts.js';
import { RepollWatch } from '../repoll.js';
import { ServerWait } from '../server-wait.js';

/**
 * Resource types whose requests, when sent before the document's load event, delay that event
 * until they have loaded and been processed (a script run, a stylesheet applied, an image's and a
 * frame's `load` handlers called): HTML Standard, "delay the load event" (script, link, img and
 * iframe elements). Fonts, media, fetch() and XMLHttpRequest do not delay it.
 */
export const LOAD_BLOCKING_TYPES: ReadonlySet<string> = new Set(['document', 'script', 'stylesheet', 'image']);

/**
 * Resource types whose arrival reaches the page's scripts only as an event or a promise (an
 * image's or a stylesheet's `load`, `document.fonts`, a media element's events, a prefetch's
 * `load`): the browser runs no code and renders no document from them. Their events hold the
 * early settle window for {@link HANDLER_NET_MS} only. Scripts, documents (frames), fetch(),
 * XMLHttpRequest, EventSource and WebSocket traffic hold it for the whole early window.
 */
export const HANDLER_ONLY_TYPES: ReadonlySet<string> = new Set(['image', 'stylesheet', 'font', 'media', 'texttrack', 'manifest', 'ping', 'other']);

/**
 * How long (ms) an event of a {@link HANDLER_ONLY_TYPES} request holds the early settle window:
 * time for the renderer to queue and run the handler it may call. The page's own content window
 * (`IDLE_QUIET_MS`, `EARLY_QUIET_MS`) starts over when that handler changes the page.
 */
export const HANDLER_NET_MS = 25;

/**
 * How long (ms) network events are kept for {@link PageActivity.earlyNetWaitMs}: longer than any
 * early window (`EARLY_QUIET_MS`), so an event that has dropped out cannot hold an early settle.
 */
export const NET_EVENTS_KEPT_MS = 1_000;

/**
 * Longest time (ms) after the page started a fetch() or XMLHttpRequest that the crawler has not
 * heard of yet during which the page may not settle. The page counts its calls itself
 * (`SettleState.callsStarted`); the crawler hears of each only once its network event has passed
 * through the browser process, and while a click's guard routes requests, through Playwright's
 * routing too: 1-15 ms later here, more on a busy machine, where a click's "Load more" then looked
 * settled before its request was known. A call the crawler never hears of (one the browser
 * refuses before it is sent) holds no longer than this.
 */
export const UNHEARD_CALL_WAIT_MS = 2_000;

/** What {@link PageActivity.earlyNetWaitMs} reads of a request: its type and its browser-side timing. */
export type NetRequest = Pick<Request, 'resourceType' | 'timing'>;

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
   * fetch() and XMLHttpRequest requests of the main frame's current document heard of so far
   * (redirect hops not counted): compared with the document's own count of such calls
   * (`SettleState.callsStarted`) to tell a call whose network event is still on its way.
   */
  callsSeen = 0;

  /**
   * `true` while the document has started a fetch() or XMLHttpRequest that has not been heard
   * of yet (its count `callsStarted` is above {@link PageActivity.callsSeen}), the last of them
   * less than {@link UNHEARD_CALL_WAIT_MS} ago: a request the page waits on, for the settle rule.
   */
  hasUnheardCall(page: Pick<SettleState, 'callsStarted' | 'sinceCallMs'>): boolean {
    return page.callsStarted > this.callsSeen && page.sinceCallMs < UNHEARD_CALL_WAIT_MS;
  }
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
  /**
   * The page's network events of the last {@link NET_EVENTS_KEPT_MS}: when (ms since epoch),
   * whose, and whether the request is one of the document's own calls (see {@link PageActivity.noteNet}).
   */
  private readonly recentNet: { at: number; request: NetRequest; call: boolean }[] = [];
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
  /**
   * The main-frame document responses after {@link mainResponse}, in order (client-side
   * navigations that loaded another document; at most `MAX_CLIENT_FORWARDS` + 1 are let through,
   * see `intercept.ts`): the record's chain names each one the page left, and their HTTP hops.
   */
  readonly laterDocuments: Response[] = [];
  /** How long the page waited for servers (see {@link ServerWait}). */
  readonly serverWait = new ServerWait();
  private failMain!: (failure: string) => void;
  /**
   * Resolves with Chromium's error code (`ERR_CONTENT_DECODING_FAILED`, `ERR_CONTENT_LENGTH_MISMATCH`,
   * `ERR_CONNECTION_RESET` …) when the first navigation's document failed after its response
   * arrived: its body could not be read to the end. The navigation then never reaches
   * DOMContentLoaded, and the navigate stage stops waiting for it.
   */
  readonly mainFailed = new Promise<string>((resolve) => (this.failMain = resolve));

  /** Note that the main document's body failed (see {@link mainFailed}). */
  mainBodyFailed(failure: string): void {
    this.failMain(failure);
  }

  /**
   * Note a network event (sent, answered, finished, failed) of the page's request `r`.
   * @param at - when (ms since epoch; now unless given)
   * @param call - `r` is a fetch() or XMLHttpRequest of the main frame's document (its redirect
   *   hops included): one the document's own counters follow until its script has it
   *   (`SettleState.requests`, `bodyReads`)
   */
  noteNet(r: NetRequest, at = Date.now(), call = false): void {
    this.lastNet = at;
    this.recentNet.push({ at: this.lastNet, request: r, call });
    while (this.recentNet.length && this.recentNet[0]!.at < this.lastNet - NET_EVENTS_KEPT_MS) this.recentNet.shift();
  }

  /**
   * How much longer (ms, 0 or less when met) the network must stay quiet at `now` for the early
   * settle window of `earlyMs`, counting each recent event by what the page may still do with it:
   * - an event of a load-blocking request ({@link LOAD_BLOCKING_TYPES}) that finished before the
   *   page's load event started at `loadAt` (ms since epoch, as the page reports it; `null`
   *   before it) holds nothing: the load event waited for the page to process it. The finish
   *   time is the browser's own (`Request.timing()`), not when the event reached this process
   *   (those events often arrive just after the load event);
   * - an event of a {@link HANDLER_ONLY_TYPES} request holds {@link HANDLER_NET_MS};
   * - with `callsHandled`, an event of one of the document's own calls (see
   *   {@link PageActivity.noteNet}) holds nothing: the page has said that none of its calls is
   *   under way and no response body is being read, so its script has had every answer, and what
   *   it does with one is its own work, which the content window and the page's schedule follow
   *   (see {@link callsHandled});
   * - any other event holds `earlyMs`.
   * Requests in flight are the caller's to check (`waitedOn`).
   */
  earlyNetWaitMs(now: number, loadAt: number | null, earlyMs: number, callsHandled = false): number {
    let wait = -Infinity;
    for (let i = this.recentNet.length - 1; i >= 0; i--) {
      const { at, request, call } = this.recentNet[i]!;
      if (now - at >= NET_EVENTS_KEPT_MS) break;
      if (call && callsHandled) continue;
      if (loadAt !== null && finishedBefore(request, loadAt)) continue;
      const window = HANDLER_ONLY_TYPES.has(request.resourceType()) ? Math.min(HANDLER_NET_MS, earlyMs) : earlyMs;
      wait = Math.max(wait, window - (now - at));
    }
    return wait === -Infinity ? earlyMs - NET_EVENTS_KEPT_MS : wait;
  }

  /**
   * `true` when the document's script has had the answer to every call it made, by what the page
   * said (`page`, read at one moment): none of its fetch() or XMLHttpRequest calls is under way (a
   * fetch() until its promise settles, an XMLHttpRequest until its `loadend`, both after the
   * page's own handlers of it), no response body is being read, and every call the crawler has
   * heard of is one the page had started by then (a call it started after answering is not in
   * its counts: its events keep their window).
   */
  callsHandled(page: Pick<SettleState, 'requests' | 'bodyReads' | 'callsStarted'>): boolean {
    return page.requests === 0 && page.bodyReads === 0 && page.callsStarted === this.callsSeen;
  }

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

/**
 * `true` when `r` is load-blocking ({@link LOAD_BLOCKING_TYPES}) and finished (its body read
 * to the end, by the browser's clock) before `at` (ms since epoch).
 */
function finishedBefore(r: NetRequest, at: number): boolean {
  if (!LOAD_BLOCKING_TYPES.has(r.resourceType())) return false;
  const t = r.timing();
  return t.startTime > 0 && t.responseEnd >= 0 && t.startTime + t.responseEnd < at;
}
