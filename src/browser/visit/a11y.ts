/**
 * Stage: a11y (`--a11y`). Runs axe-core on the page as read (see `A11yChecker`), and hands the
 * discover stage a hook that checks each state a click revealed, once per distinct clickable,
 * within the click budget. Pages with nothing rendered are not checked.
 * @module
 */
import { A11yChecker, A11Y_PAGE_TIMEOUT_MS, stateName } from '../a11y.js';
import type { RevealedHook } from '../explore.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';

/** The a11y stage of one visit, and the revealed-state hook it gives the discover stage. */
export function a11yStages(): { check: Stage<VisitContext>; revealed: (ctx: VisitContext) => RevealedHook | null } {
  let checker: A11yChecker | null = null;
  return {
    check: {
      name: 'a11y',
      async action(ctx) {
        const { opts, result, page } = ctx;
        if (!opts.a11y || result.noContent || result.title === null) return;
        // The check works on the page: click discovery scans again.
        ctx.clickables = undefined;
        checker = new A11yChecker(page, opts.a11y);
        result.a11y = checker.audit;
        await ctx.step(checker.checkPage(A11Y_PAGE_TIMEOUT_MS));
      },
    },
    revealed(ctx) {
      if (!checker) return null;
      const c = checker;
      return async (steps, budgetLeftMs) => {
        await ctx.step(c.checkState(stateName(steps, ctx.result.finalUrl ?? ctx.requestedUrl), budgetLeftMs));
      };
    },
  };
}
