/**
 * Which main-document answers the crawl renders as pages. One rule for the visit's interception
 * of the main document (`visit/intercept.ts`) and for answers read outside the browser (the
 * soft-404 probe's plain request, see `PageJob.probe`), so that both call the same answers pages.
 * @module
 */

/** Main-document types that are rendered; any other `Content-Type` (or an attachment) is not HTML. */
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/**
 * `true` when a main-document answer with these headers is rendered as a page: HTML or XHTML, or
 * no `Content-Type` at all (the browser sniffs it), and not sent as an attachment
 * (`Content-Disposition: attachment`, RFC 6266 §4.2: a download, not a page).
 * @param contentType - the `Content-Type` header, or `null` when absent
 * @param contentDisposition - the `Content-Disposition` header, or `null` when absent
 */
export function rendersAsPage(contentType: string | null, contentDisposition: string | null): boolean {
  if (/^\s*attachment/i.test(contentDisposition ?? '')) return false;
  return contentType === null || HTML_TYPES.test(contentType);
}
