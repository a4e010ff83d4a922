/**
 * Stages: inspect. What the visit sees anyway, read for the SPA rules and for what a client
 * without JavaScript gets (both on by default, no extra request):
 * - `read` (after extract): the SPA signals of the settled page (`readSpaSignals`: unrendered
 *   template text, busy indicators, an empty app root, the page's text length), and the main
 *   document's HTML as the server sent it, which the browser keeps (`Response.body()`: the
 *   response already intercepted and read by the browser, not requested again; asked for by the
 *   extract stage beside the DOM), read up to `MAX_SERVER_HTML_BYTES` (see `readServerHtml`);
 * - `compare` (after discover): the rendered page's link targets a person can follow (anchors,
 *   shadow roots, click and scroll discovery) next to the server's.
 *
 * The body is read after the page settled, not while the response is paused in the intercept
 * stage: `Fetch.getResponseBody` there would hold the whole document back from the browser until
 * its last byte arrived (no streaming parse, and a document that never ends would hang the visit).
 * @module
 */
import type { Response } from 'playwright';
import type { LinkSource } from '../../model/record.js';
import { linkIdentity, MAX_SERVER_HTML_BYTES, readServerHtml } from '../server-html.js';
import { SPA_SIGNALS_EXPRESSION, type SpaReading } from '../spa-scripts.js';
import { bodyDigest } from './history-route.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { listedUrl } from './observe.js';

/** Link sources a person can follow on the rendered page (frames have documents of their own; popups and frame `src`s are not followed). */
const FOLLOWABLE: ReadonlySet<LinkSource> = new Set<LinkSource>(['anchor', 'shadow', 'click', 'scroll']);
/** Most example URLs kept of the links only the rendered page has. */
const MAX_SAMPLES = 10;

/** The two inspect stages of one visit, sharing what `read` found of the server's HTML. */
export function inspectStages(): { read: Stage<VisitContext>; compare: Stage<VisitContext> } {
  let serverLinks: Set<string> | null = null;
  return {
    read: {
      name: 'inspect',
      async action(ctx) {
        const { result, page } = ctx;
        if (result.noContent || result.title === null) return;
        // Read with the DOM by the extract stage, unless a route check read it another way.
        const spa = ctx.spa !== undefined ? ctx.spa : await ctx.callOr(() => page.evaluate<SpaReading>(SPA_SIGNALS_EXPRESSION), 'reading SPA signals', null);
        if (spa) {
          result.spa.unrendered = spa.unrendered;
          result.spa.busy = spa.busy;
          result.spa.emptyRoot = spa.emptyRoot;
        }
        const doc = ctx.activity.lastDocument ?? ctx.activity.mainResponse;
        // Asked for by the settle and extract stages (see `server-body.ts`).
        const body = doc && ctx.serverBody?.of === doc ? await ctx.step(ctx.serverBody.body) : null;
        if (!doc || !body) return;
        result.bodyDigest = bodyDigest(body);
        const truncated = body.length > MAX_SERVER_HTML_BYTES;
        const bytes = truncated ? body.subarray(0, MAX_SERVER_HTML_BYTES) : body;
        // A history route shows the shell at the route's URL: its relative links resolve there.
        const server = readServerHtml(decodeHtml(bytes, await contentType(doc), truncated), ctx.document.routeUrl ?? doc.url());
        serverLinks = server.links;
        result.serverHtml = {
          title: server.title,
          links: server.links.size,
          textLength: server.textLength,
          renderedLinks: 0,
          renderedTextLength: spa?.textLength ?? 0,
          jsOnlyLinks: 0,
          jsOnlyLinkSamples: [],
          bytes: bytes.length,
          truncated,
        };
        compareLinks(ctx, serverLinks);
      },
    },
    compare: {
      name: 'inspect-links',
      action(ctx) {
        if (serverLinks) compareLinks(ctx, serverLinks);
      },
    },
  };
}

/** Fill `serverHtml`'s rendered link counts from the links found so far. */
function compareLinks(ctx: VisitContext, server: ReadonlySet<string>): void {
  const view = ctx.result.serverHtml;
  if (!view) return;
  const base = ctx.result.finalUrl ?? ctx.requestedUrl;
  const rendered = new Set<string>();
  for (const l of ctx.result.links) {
    if (!FOLLOWABLE.has(l.source)) continue;
    const id = linkIdentity(l.href, base);
    if (id) rendered.add(id);
  }
  const only = [...rendered].filter((u) => !server.has(u));
  view.renderedLinks = rendered.size;
  view.jsOnlyLinks = only.length;
  // Examples for a reader: a 1 MB URL is shown by its start (see `listedUrl`).
  view.jsOnlyLinkSamples = only.slice(0, MAX_SAMPLES).map(listedUrl);
}

/** The response's `Content-Type`, or `null`. */
async function contentType(doc: Response): Promise<string | null> {
  const headers = await doc.allHeaders().catch(() => ({}) as Record<string, string>);
  return headers['content-type'] ?? null;
}

/**
 * Decode a document's bytes. Chromium hands a text document's body over already decoded (CDP
 * `Network.getResponseBody`: its text, which Playwright's `Response.body()` gives as UTF-8
 * bytes, whatever the server's encoding), so bytes that are valid UTF-8 are read as UTF-8 (a
 * UTF-16 byte order mark first). Other bytes (a body handed over as it was sent) are decoded as
 * a browser would, in short: the `charset` of the `Content-Type`, else a `<meta charset>` (or
 * `http-equiv` content type) in the first 1024 bytes, else windows-1252 (HTML's fallback for
 * undeclared single-byte text). An encoding `TextDecoder` does not know is skipped.
 * @param truncated - the bytes are the start of a longer body (they may end inside a character)
 */
export function decodeHtml(bytes: Uint8Array, contentTypeHeader: string | null, truncated = false): string {
  const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? 'utf-16le' : bytes[0] === 0xfe && bytes[1] === 0xff ? 'utf-16be' : null;
  if (utf16) return new TextDecoder(utf16).decode(bytes);
  try {
    // `stream`: a body cut at MAX_SERVER_HTML_BYTES may end inside a character.
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: truncated });
  } catch {
    // not UTF-8: the bytes as the server sent them
  }
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentTypeHeader ?? '')?.[1] ?? null;
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1] ?? null;
  for (const label of [fromHeader, fromMeta, 'windows-1252']) {
    if (!label) continue;
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(label);
    } catch {
      continue; // unknown label: try the next source
    }
    const text = decoder.decode(bytes);
    // Node 20's windows-1252 (also what `latin1` and `iso-8859-1` name) leaves 0x80–0x9F as C1
    // controls, where the Encoding standard has the typographic characters (– — “ ” € …).
    return decoder.encoding === 'windows-1252' ? text.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80] ?? c) : text;
  }
  return new TextDecoder('utf-8').decode(bytes);
}

/** windows-1252's characters for the bytes 0x80–0x9F (the Encoding standard's index; five bytes map to themselves). */
const WINDOWS_1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
