import type { Frame, Page } from 'playwright';
import type { FoundLink } from './discovery.js';
import type { ExtractResult, RawLink } from './page-scripts.js';
import { DOM_READ, evaluateLibraryJson } from './page-library.js';
import { withTimeout } from './timeout.js';

/** Most frames entered per page (each costs one evaluation in the frame). */
export const MAX_FRAMES_READ = 100;
/** Most cross-origin frame URLs listed per page. */
const MAX_FRAMES_LISTED = 50;

/** What the frames of a page contribute to its visit. */
export interface FramesRead {
  /**
   * Links read inside same-origin frames (source `frame`, resolved by the browser against the
   * frame's own base URL), and the `src` of the frames found inside them (source `frame-src`).
   */
  links: FoundLink[];
  /** `http:`/`https:` URLs of the frames of another origin that the page embeds (listed, not entered). */
  frames: string[];
}

/**
 * Read the frames of a page whose main document has the origin `origin` (`self.origin`).
 *
 * A frame is entered when its document's own origin (`self.origin`, read inside the frame) is
 * the page's: that covers frames loaded from the page's origin and the frames that inherit it,
 * `srcdoc` and `about:blank` frames (also when the parent writes their content by script)
 * and the frames nested in them, whatever their URL says. A frame whose document no server sent
 * ({@link isInlineFrameUrl}: `about:srcdoc`, `about:blank`, a `data:` URL) holds what an entered
 * document wrote into it, so it is entered too when its origin is opaque: a sandboxed `srcdoc`
 * frame (HTML §4.8.5: `sandbox` without `allow-same-origin` gives it an opaque origin) or a
 * `data:` frame (HTML §7.5: its origin is opaque) shows links a person can click, and nothing
 * else would ever read them. A frame loaded from another origin's
 * `http(s)` URL is of that origin (or of an opaque one, when sandboxed) and is not entered; nor
 * is a sandboxed frame of the page's own URL (its origin is opaque; its URL is a `frame-src`
 * link, read on its own visit). Frames of another origin
 * are listed in `frames` when an entered document (the page or a same-origin frame) embeds them;
 * frames inside them are not looked at. Frames are walked from the top, at most
 * {@link MAX_FRAMES_READ}; a frame that does not answer within 5 s is skipped.
 *
 * Never throws.
 */
export async function readFrames(page: Page, origin: string): Promise<FramesRead> {
  const out: FramesRead = { links: [], frames: [] };
  let read = 0;
  const walk = async (parent: Frame): Promise<void> => {
    for (const frame of parent.childFrames()) {
      if (read >= MAX_FRAMES_READ) return;
      const url = frame.url();
      const web = /^https?:/i.test(url);
      let doc: ExtractResult | null = null;
      // Another origin's URL is another origin's document: no need to ask it.
      if (!web || originOf(url) === origin) {
        read++;
        doc = await readFrame(frame);
      }
      if (doc && (doc.origin === origin || (doc.origin === 'null' && isInlineFrameUrl(url)))) {
        for (const l of doc.links) out.links.push(found(l, 'frame'));
        for (const l of doc.frameSrcs) out.links.push(found(l, 'frame-src'));
        await walk(frame);
      } else if (web && out.frames.length < MAX_FRAMES_LISTED && !out.frames.includes(url)) {
        out.frames.push(url);
      }
    }
  };
  await walk(page.mainFrame());
  return out;
}

async function readFrame(frame: Frame): Promise<ExtractResult | null> {
  if (frame.isDetached()) return null;
  try {
    return await withTimeout(evaluateLibraryJson<ExtractResult>(frame, DOM_READ), 5_000, 'reading a frame');
  } catch {
    return null;
  }
}

function found(l: RawLink, source: FoundLink['source']): FoundLink {
  return { href: l.href, text: l.text, source, rel: l.rel };
}

/**
 * Whether a frame's URL names a document its embedder wrote rather than one a server sent:
 * `about:srcdoc`, `about:blank` (HTML §7.1, "about:blank" and "about:srcdoc"), or a `data:` URL
 * (RFC 2397). An error page (`chrome-error:`) or any other scheme is not one.
 */
function isInlineFrameUrl(u: string): boolean {
  return /^(?:about:(?:srcdoc|blank)(?:[?#]|$)|data:)/i.test(u);
}

function originOf(u: string): string | null {
  try {
    return new URL(u).origin;
  } catch {
    return null;
  }
}
