/**
 * The main document's body as the server sent it, which the browser keeps (`Response.body()`:
 * not requested again), asked for once per document response and as early as the settle stage:
 * the read waits its turn on the renderer's main thread (a TypeDoc crawl at concurrency 4 on 2
 * cores: 29 ms median, 75 at p90, when the extract stage asked and waited for it), time the
 * settle wait hides. The extract stage (closed shadow roots) and the inspect stage (the server's
 * HTML against the rendered page) read the answer.
 * @module
 */
import type { Response } from 'playwright';
import { withTimeout } from '../timeout.js';
import type { VisitContext } from './context.js';

/** Longest wait (ms) for the body before it counts as unreadable. */
export const SERVER_BODY_WAIT_MS = 5_000;

/**
 * Ask for the body of the document the page shows now (its last document response, else the
 * first navigation's) into `ctx.serverBody`, unless it was asked for that response already;
 * nothing when there is no document response (a route of a document shown before). The body
 * resolves `null` when it could not be read within {@link SERVER_BODY_WAIT_MS}; it never rejects.
 */
export function askServerBody(ctx: VisitContext): void {
  const doc = ctx.activity.lastDocument ?? ctx.activity.mainResponse;
  if (doc && ctx.serverBody?.of !== doc) ctx.serverBody = { of: doc, body: readBody(doc) };
}

/** `doc`'s body, or `null` when it could not be read in time. Never rejects. */
function readBody(doc: Response): Promise<Buffer | null> {
  return withTimeout(doc.body(), SERVER_BODY_WAIT_MS, 'reading the server HTML').catch(() => null);
}
