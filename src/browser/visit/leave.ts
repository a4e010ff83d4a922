/**
 * Stage: leave. Its cleanup, the last of every visit, pauses the page where it is: its scripts
 * stop running (no timers, polling or animation while the tab waits for its next visit) and its
 * loads stop. The next visit resumes scripts right before it navigates away (see the navigate
 * stage). Leaving for about:blank instead cost a navigation per page: a third of the CPU per page
 * on the benchmark. A tab that cannot be paused, or whose visit failed, is reported broken
 * (`contextBroken`) for the pool to discard. A paused tab whose renderer's heaps have grown gets
 * a garbage collection, started here and waited for by the tab's next visit (see `renderer-heap.ts`).
 * @module
 */
import { answerOrStopHang, STOP_AFTER_MS } from '../hang-watch.js';
import { collectIfGrown } from '../renderer-heap.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';

/** The leave stage (one per visit; put it first, so that its cleanup runs last). */
export function leave(): Stage<VisitContext> {
  return {
    name: 'leave',
    action() {},
    async cleanup(ctx) {
      const { tab, result } = ctx;
      if (result.contextBroken) return;
      try {
        // Not a step (the visit may have been aborted): a stalled renderer is waited for as a step's call is.
        const pausing = answerOrStopHang(tab, () => Promise.all([tab.cdp.send('Emulation.setScriptExecutionDisabled', { value: true }), tab.cdp.send('Page.stopLoading')]), STOP_AFTER_MS, 'pausing the page');
        // The heap check goes right behind the pause, not after its answer: the renderer takes a
        // session's calls in order, so it reads the paused page, and the tab's next visit waits
        // for one round trip instead of two. A failed collection changes nothing: the next visit
        // finds out whether the tab still answers.
        const tidying = collectIfGrown(tab.cdp, tab.heaps).then(
          () => {},
          () => {},
        );
        await pausing;
        tab.paused = true;
        tab.tidying = tidying;
      } catch {
        result.contextBroken = true;
      }
    },
  };
}
