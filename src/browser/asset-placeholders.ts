/**
 * Asset placeholders (`--assets placeholder`): images, media and web fonts are answered by the
 * crawler with a tiny stand-in once their response headers are in, instead of being downloaded,
 * decoded and kept in memory. No link depends on the pixels of an image, the frames of a video
 * or the glyphs of a font, but some depend on their events: an `<img onload>` that inserts a
 * link, a lazy image whose load triggers the next one. A placeholder is a valid resource of its
 * kind, so those events fire as they would (`load`, not `error`), and nothing is reported as
 * failed. An asset whose server answers with an error (404, 500, a network error, a redirect)
 * goes through untouched: the page sees it fail as it would, and the record's `failedRequests`
 * (and the audit's `failed-request` findings) list it as before.
 *
 * The stand-ins are answered through the tab's existing CDP `Fetch` interception (the one that
 * pauses main documents, see `openTab`), at the response stage: the server is asked, its body is
 * never read.
 * @module
 */
import type { CDPSession } from 'playwright';
import { placeholderFont } from './placeholder-font.js';

/**
 * How a crawl loads images, media and web fonts: `placeholder` answers them with a stand-in
 * (see the module comment), `load` downloads them as a browser does.
 */
export type AssetLoading = 'placeholder' | 'load';

/** CDP `Network.ResourceType`s answered with a placeholder. */
const KINDS = ['Image', 'Media', 'Font'] as const;
const ASSET_TYPES: ReadonlySet<string> = new Set(KINDS);

/**
 * The CDP `Fetch.enable` patterns that pause asset responses (response stage: the server has
 * answered, its body is not yet read).
 */
export const ASSET_PATTERNS: readonly { urlPattern: string; resourceType: (typeof KINDS)[number]; requestStage: 'Response' }[] = KINDS.map(
  (resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Response' as const }),
);

/**
 * CDP `Network.ResourceType`s of requests whose answers no page reads: beacons and pings
 * (`navigator.sendBeacon`, `<a ping>`) and CSP violation reports. With `--assets placeholder`
 * they are not made: paused before they go out and failed as blocked by the client
 * (`net::ERR_BLOCKED_BY_CLIENT`, which records leave out of `failedRequests`); `--assets load`
 * makes them. Prefetches are not among them. Chromium's `Fetch` filter has no `Prefetch` type
 * (Chromium 156: "Unknown resource type in fetch filter"); a `<link rel="prefetch">` is paused as
 * type `Fetch` (with `Sec-Purpose: prefetch`), so finding them would pause every `fetch()` of the
 * page, a round trip each. Speculation rules' prefetches and prerenders are requested by the
 * browser's prefetch service, which a tab's `Fetch` never sees.
 */
const UNREAD_KINDS = ['Ping', 'CSPViolationReport'] as const;
const UNREAD_TYPES: ReadonlySet<string> = new Set(UNREAD_KINDS);

/**
 * The browser's own request for a page's icon (`/favicon.ico`, CDP type `Other`), which no page
 * reads either. On a server that answers every path with its app's HTML (a single-page app's
 * catch-all route), the answer is no icon and may not be cached, so a browser asks again on every
 * page: one more document-sized request per page. It is not made with `--assets placeholder`,
 * like the kinds above.
 */
const FAVICON_PATTERN = { urlPattern: '*/favicon.ico', resourceType: 'Other', requestStage: 'Request' } as const;

/** The CDP `Fetch.enable` patterns that pause unread requests before they are sent (see `UNREAD_KINDS` and `FAVICON_PATTERN`). */
export const UNREAD_PATTERNS: readonly { urlPattern: string; resourceType: (typeof UNREAD_KINDS)[number] | 'Other'; requestStage: 'Request' }[] = [
  ...UNREAD_KINDS.map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' as const })),
  FAVICON_PATTERN,
];

/** `true` for a paused request, not yet sent, whose answer no page reads (see `UNREAD_KINDS` and `FAVICON_PATTERN`). */
export function isUnreadRequest(ev: PausedAsset): boolean {
  if (ev.resourceType === undefined || ev.responseStatusCode !== undefined || ev.responseErrorReason !== undefined) return false;
  if (UNREAD_TYPES.has(ev.resourceType)) return true;
  return ev.resourceType === 'Other' && ev.request !== undefined && URL.canParse(ev.request.url) && new URL(ev.request.url).pathname.endsWith('/favicon.ico');
}

/**
 * An image stand-in: a transparent 16×16 SVG. Its size is not 1×1 so that an image-only control
 * (an icon button without a set size) keeps a clickable box for click discovery.
 */
const IMAGE = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"/>').toString('base64');

/** The part of CDP's `Fetch.requestPaused` event read here. */
export interface PausedAsset {
  requestId: string;
  /** CDP `Network.ResourceType` of the request. */
  resourceType?: string;
  /** The request (its URL as sent). */
  request?: { url: string };
  responseStatusCode?: number;
  responseErrorReason?: string;
  responseHeaders?: { name: string; value: string }[];
}

/** `true` for a paused response of an asset (an image, media or font at the response stage). */
export function isAssetResponse(ev: PausedAsset): boolean {
  return ev.resourceType !== undefined && ASSET_TYPES.has(ev.resourceType) && (ev.responseStatusCode !== undefined || ev.responseErrorReason !== undefined);
}

/**
 * Answer one paused asset response: a successful one (2xx with a body: not 204 or 205) with its
 * placeholder, anything else (an error status, a redirect, a network error) let through as it is.
 * Never throws (CDP errors are ignored: the request ended with its page).
 */
export function answerAsset(cdp: CDPSession, ev: PausedAsset): void {
  const status = ev.responseStatusCode;
  if (status === undefined || status < 200 || status >= 300 || status === 204 || status === 205) {
    cdp.send('Fetch.continueRequest', { requestId: ev.requestId }).catch(() => {});
    return;
  }
  const [contentType, body] = standIn(ev);
  cdp
    .send('Fetch.fulfillRequest', {
      requestId: ev.requestId,
      responseCode: 200,
      responseHeaders: [{ name: 'content-type', value: contentType }, ...keptHeaders(ev)],
      body,
    })
    .catch(() => {});
}

/**
 * The response's header lines a placeholder keeps: CORS (`Access-Control-*`, `Timing-Allow-Origin`),
 * so that a font or image read by a script from another origin loads, or not, as it would; and
 * caching (`Cache-Control`, `Expires`, `ETag`, `Last-Modified`, `Vary`), so that an asset the
 * server lets the browser keep (a site's web fonts) is asked once per browser context, as it would be.
 */
function keptHeaders(ev: PausedAsset): { name: string; value: string }[] {
  return (ev.responseHeaders ?? []).filter((h) => /^(access-control-.*|timing-allow-origin|cache-control|expires|etag|last-modified|vary)$/i.test(h.name));
}

/** The content type and base64 body that stand in for `ev`'s asset. */
function standIn(ev: PausedAsset): [string, string] {
  if (ev.resourceType === 'Image') return ['image/svg+xml', IMAGE];
  if (ev.resourceType === 'Font') return ['font/ttf', placeholderFont()];
  // Media: an empty body of the type the server declared (the element reports it cannot play it, as for any unplayable source).
  const declared = ev.responseHeaders?.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? 'application/octet-stream';
  return [declared, ''];
}
