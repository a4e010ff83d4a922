/**
 * The reusable tab a visit runs in: opened once per slot by the pool, visited many times.
 * @module
 */
import type { BrowserContext, CDPSession, Page } from 'playwright';
import type { ShownDocument } from './shown-document.js';
import { answerAsset, ASSET_PATTERNS, isAssetResponse, isUnreadRequest, UNREAD_PATTERNS, type AssetLoading } from './asset-placeholders.js';
import type { ScriptStops } from './hang-watch.js';
import { RendererHeaps } from './renderer-heap.js';
import { withTimeout } from './timeout.js';
import { PageEvents } from './page-events.js';

/** A reusable browser tab: a page, its CDP session, and response interception for the main frame. */
export interface VisitTab {
  /** The Playwright page, reused by every visit of its context. */
  page: Page;
  /** The page's events, listened to once for the tab's life (see `page-events.ts`). */
  events: PageEvents;
  /** The page's CDP session (response interception, pausing and resuming scripts). */
  cdp: CDPSession;
  /** CDP id of the page's main frame (stable for the page's life). */
  mainFrameId: string;
  /** `true` while a visit answers the paused document responses itself. */
  intercepting: boolean;
  /** `true` while the page a visit left behind has its scripts disabled (resumed by the next visit). */
  paused: boolean;
  /**
   * The document the tab shows (paused) after a clean visit, whose other hash routes the next
   * visit may reach by changing the hash (see `visit/hash-route.ts`); `null` when it must load.
   */
  shown: ShownDocument | null;
  /** The tab has a {@link RequestGuard}: requests it picks are paused before they are sent (and decided by the guard, not by a visit). */
  guarded?: boolean;
  /**
   * Set by a visit that decides documents before they are requested (see `visit/intercept.ts`):
   * given every document request of the tab paused before it is sent (and not refused by the
   * guard), which it must answer; `null` while no visit decides (the requests go on at once).
   */
  onDocumentRequest?: ((ev: PausedDocumentRequest) => void) | null;
  /** The heap watches of the browser's renderers, shared by the pool's tabs (see `renderer-heap.ts`). */
  heaps: RendererHeaps;
  /** A garbage collection the last visit started on leaving, which the next visit waits for; `null` when none runs. */
  tidying: Promise<void> | null;
  /** Scripts stopped in the browser so far, shared by the pool's tabs (see `hang-watch.ts`). */
  stops: ScriptStops;
  /** `stops.count` right after this tab's last stop of its renderer's script (see `hang-watch.ts`), or `undefined`. */
  stoppedAt?: number;
}

/**
 * Requests a tab refuses, whatever asks for them (a link, a redirect, a form, a script): the
 * sign-out URLs of a logged-in crawl. `patterns` (CDP `Fetch` URL patterns, `*` wildcards) pick
 * the candidates the browser pauses; `blocks` decides each of them.
 */
export interface RequestGuard {
  /** CDP `Fetch` URL patterns of the candidates (every other request goes on unpaused). */
  patterns: readonly string[];
  /** `true` to refuse the request for `url`. */
  blocks(url: string): boolean;
  /** Told about each refused request. */
  onBlocked?(url: string): void;
}

/** A document request paused before it is sent (the part of CDP's `Fetch.requestPaused` event read). */
export interface PausedDocumentRequest {
  /** CDP's id of the paused request (to continue or fail it). */
  requestId: string;
  /** CDP id of the frame the document is for. */
  frameId: string;
  /** The request, with its absolute URL. */
  request: { url: string };
}

/** `true` for a `Fetch.requestPaused` event of the request stage (no response yet, none failed). */
export function isRequestStage(ev: { responseStatusCode?: number; responseErrorReason?: string }): boolean {
  return ev.responseStatusCode === undefined && ev.responseErrorReason === undefined;
}

/**
 * Open a tab in `context` for `visitPage`: a page with a CDP session that pauses every
 * document request (so a visit can refuse a navigation before anything is sent, see
 * `onDocumentRequest`) and every document response (so non-HTML targets can be decided from
 * their headers). While no visit intercepts (`intercepting` is `false`, no
 * `onDocumentRequest`), paused documents are let through at once. With a
 * `guard`, the requests it picks are paused before they are sent and refused when it says so.
 * With `assets: 'placeholder'`, image, media and font responses are paused too and answered
 * with stand-ins (see `answerAsset`), whether or not a visit is under way. `heaps` are the
 * renderer heap watches the tab's visits report to, and `stops` the count of stopped scripts (both the pool's, shared by its tabs).
 * @throws CallTimeoutError or a Playwright error when the browser does not answer
 */
export async function openTab(context: BrowserContext, guard: RequestGuard | null = null, assets: AssetLoading = 'load', heaps: RendererHeaps = new RendererHeaps(), stops: ScriptStops = { count: 0 }): Promise<VisitTab> {
  const page = await withTimeout(context.newPage(), 15_000, 'opening a page');
  const cdp = await withTimeout(context.newCDPSession(page), 10_000, 'opening a CDP session');
  const tree = (await withTimeout(cdp.send('Page.getFrameTree'), 10_000, 'reading the frame tree')) as { frameTree: { frame: { id: string } } };
  await withTimeout(
    cdp.send('Fetch.enable', {
      patterns: [
        // Documents twice: before they are requested (a page's own navigations, decided by the
        // visit before anything is sent: off-site, disallowed by robots.txt, recorded elsewhere)
        // and once answered (redirect hops, non-HTML documents, reload loops).
        { urlPattern: '*', resourceType: 'Document', requestStage: 'Request' },
        { urlPattern: '*', resourceType: 'Document', requestStage: 'Response' },
        ...(assets === 'placeholder' ? [...ASSET_PATTERNS, ...UNREAD_PATTERNS] : []),
        ...(guard?.patterns ?? []).map((urlPattern) => ({ urlPattern, requestStage: 'Request' as const })),
      ],
    }),
    10_000,
    'enabling response interception',
  );
  // Fetch pauses every document request and response; with no visit deciding, they go on at once.
  const tab: VisitTab = { page, events: new PageEvents(page), cdp, mainFrameId: tree.frameTree.frame.id, intercepting: false, paused: false, shown: null, guarded: guard !== null, onDocumentRequest: null, heaps, tidying: null, stops };
  cdp.on('Fetch.requestPaused', (ev) => {
    if (isUnreadRequest(ev)) {
      cdp.send('Fetch.failRequest', { requestId: ev.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      return;
    }
    if (isRequestStage(ev)) {
      if (guard?.blocks(ev.request.url)) {
        guard.onBlocked?.(ev.request.url);
        cdp.send('Fetch.failRequest', { requestId: ev.requestId, errorReason: 'BlockedByClient' }).catch(() => {});
      } else if (ev.resourceType === 'Document' && tab.onDocumentRequest) tab.onDocumentRequest(ev);
      else cdp.send('Fetch.continueRequest', { requestId: ev.requestId }).catch(() => {});
      return;
    }
    if (isAssetResponse(ev)) return answerAsset(cdp, ev);
    if (!tab.intercepting) cdp.send('Fetch.continueRequest', { requestId: ev.requestId }).catch(() => {});
  });
  return tab;
}
