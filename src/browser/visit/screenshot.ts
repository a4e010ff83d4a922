/**
 * Stage: screenshot. Writes a full-page PNG of the settled page to `screenshotPath`, when one
 * is asked for.
 * @module
 */
import { withTimeout } from '../timeout.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';

/** The screenshot stage (one per visit). Sets `screenshot` once the file is written; a failure ends the visit with an error. */
export function screenshot(): Stage<VisitContext> {
  return {
    name: 'screenshot',
    async action(ctx) {
      const path = ctx.opts.screenshotPath;
      if (!path) return;
      await ctx.step(withTimeout(ctx.page.screenshot({ path, fullPage: true, timeout: 15_000 }), 20_000, 'taking a screenshot'));
      ctx.result.screenshot = true;
    },
  };
}
