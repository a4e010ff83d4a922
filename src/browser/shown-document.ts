/**
 * The document a reusable tab shows between visits, when a later visit may go to another hash
 * route of it, or another path of its app shell, without loading it again (see
 * `visit/hash-route.ts` and `visit/history-route.ts`).
 * @module
 */
import type { Response } from 'playwright';

/** A document left in a tab by a clean visit: what its HTTP answer said, for the records of its other routes. */
export interface ShownDocument {
  /** The document's URL without its fragment. */
  url: string;
  /** Its main-document response (the browser keeps its body for the server-HTML reading). */
  response: Response;
  /** Its HTTP status (2xx). */
  status: number;
  /** Its `Content-Type`, or `null`. */
  contentType: string | null;
  /** Its `X-Robots-Tag` header lines. */
  robotsHeaders: string[];
  /** Its `Retry-After` header, or `null`. */
  retryAfter: string | null;
  /** A bot wall's mark (`cf-mitigated: …`), or `null`. */
  blockedBy: string | null;
  /** SHA-1 of its body as the server sent it (see `history-route.ts`), or `null` when it was not read. */
  digest: string | null;
}
