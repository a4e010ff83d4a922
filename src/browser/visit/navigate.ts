/**
 * Stage: navigate. Waits for the politeness gate, resumes the page the tab's previous visit
 * paused, and loads the requested URL up to DOMContentLoaded (or until a client-side
 * navigation is stopped); then reads what answered (see `readAnswer`).
 * @module
 */
import { errors } from '../playwright.js';
import type { RecordError } from '../../model/record.js';
import { CallTimeoutError, withTimeout } from '../timeout.js';
import { readAnswer } from './answer.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';
import { VisitAbort } from './types.js';
import { sameDocument } from './urls.js';

/** Classify a Playwright navigation error into a record error. */
export function navigationError(err: unknown, timeoutMs: number): RecordError {
  const msg = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  if (/Timeout .*exceeded|timed? ?out/i.test(msg)) return { code: 'timeout', message: `navigation timed out after ${timeoutMs} ms` };
  const net = /net::(ERR_[A-Z_]+)/.exec(msg);
  if (net) return { code: 'network', message: net[1]! };
  if (/crash/i.test(msg)) return { code: 'page-crashed', message: 'the page crashed' };
  if (/closed|disconnected/i.test(msg)) return { code: 'browser-crashed', message: msg };
  return { code: 'navigation-failed', message: msg };
}

/**
 * Classify the failure of a visit stage into a record error. A timeout of one of the visit's own
 * calls into the browser (leaving the previous page, reading the DOM, a screenshot, a script in
 * the page: a `CallTimeoutError`; after the navigate stage, Playwright's `TimeoutError` too) is
 * `unresponsive`: the page's main thread hung, or the browser was starved; a retry tells the two
 * apart (see `isRetryable`). Never a "navigation timed out": the navigation's own timeout is
 * decided by the navigate stage. Anything else is a navigation error (see {@link navigationError}).
 */
export function stageError(stage: string, err: unknown, timeoutMs: number): RecordError {
  if (err instanceof CallTimeoutError || (stage !== 'navigate' && err instanceof errors.TimeoutError)) {
    const msg = err.message.split('\n')[0]!;
    return { code: 'unresponsive', message: `the browser did not answer (${stage}): ${msg}` };
  }
  return navigationError(err, timeoutMs);
}

/** The navigate stage (one per visit). Ends the visit (`'done'`) when there is nothing to settle or read. */
export function navigate(): Stage<VisitContext> {
  return {
    name: 'navigate',
    async action(ctx) {
      const { tab, page: p, opts, requestedUrl } = ctx;
      if (opts.beforeNavigate) await ctx.step(opts.beforeNavigate());
      if (tab.paused) {
        // A URL that differs from the page left behind only in its fragment would be a
        // same-document navigation (no request, no new document): leave that page first.
        if (sameDocument(p.url(), requestedUrl)) await ctx.call(() => p.goto('about:blank', { waitUntil: 'commit', timeout: 0 }), 'leaving the page');
        await ctx.call(() => tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: false }), 'resuming scripts');
        tab.paused = false;
      }
      let navError: RecordError | null = null;
      try {
        // A script that forwards during parsing (location.replace in the head) leaves the first
        // document before DOMContentLoaded: once that navigation is stopped, nothing more will come.
        // Timed by spacrawl's own stall-tolerant timer (see withTimeout), not Playwright's: a stall
        // of the crawler is not the server's slowness. The navigation goes on in the browser
        // either way; the next navigation of the tab replaces it.
        const navigation = withTimeout(p.goto(requestedUrl, { waitUntil: 'domcontentloaded', timeout: 0 }), opts.navigationTimeoutMs, 'the navigation');
        navigation.catch(() => {});
        // A document whose body failed after its answer (an undecodable encoding, a connection
        // lost mid-body) never reaches DOMContentLoaded: its failure is the navigation's.
        const bodyFailed = ctx.activity.mainFailed.then((failure): never => {
          throw new Error(`net::${failure}`);
        });
        bodyFailed.catch(() => {});
        await ctx.step(Promise.race([navigation, ctx.document.clientStopped, bodyFailed]));
      } catch (err) {
        if (err instanceof VisitAbort) throw err;
        // The navigation's own timer (withTimeout above): the server or the page never got to DOMContentLoaded.
        navError = err instanceof CallTimeoutError ? { code: 'timeout', message: `navigation timed out after ${opts.navigationTimeoutMs} ms` } : navigationError(err, opts.navigationTimeoutMs);
      }
      return readAnswer(ctx, navError);
    },
  };
}
