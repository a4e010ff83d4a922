/**
 * The visit's stage runner and its limits, without a browser (see visit-stages.test.ts for the
 * stages on a real page).
 */
import { describe, expect, it } from 'vitest';
import { CLICK_EVERYWHERE } from '../../src/browser/click-memory.js';
import { hardDeadlineMs } from '../../src/browser/visit/limits.js';
import { runStages, type Stage, type StageFailure } from '../../src/browser/visit/pipeline.js';
import type { VisitOptions } from '../../src/browser/visit/types.js';

const OPTS: VisitOptions = { navigationTimeoutMs: 10_000, settleTimeoutMs: 5_000, quietMs: 500, screenshotPath: null, maxDialogs: 10 };

describe('pipeline', () => {
  it('runs actions in order until "done", then the cleanups of the stages that started, last first', async () => {
    const log: string[] = [];
    const stage = (name: string, end?: 'done' | 'throw'): Stage<null> => ({
      name,
      action: () => {
        log.push(`action ${name}`);
        if (end === 'throw') throw new Error(`${name} failed`);
        return end;
      },
      cleanup: () => void log.push(`cleanup ${name}`),
    });
    const failures: StageFailure[] = [];
    await runStages(null, [stage('a'), stage('b', 'done'), stage('c')], (f) => failures.push(f));
    expect(log).toEqual(['action a', 'action b', 'cleanup b', 'cleanup a']);
    expect(failures).toEqual([]);

    log.length = 0;
    const failing: Stage<null> = { name: 'bad-cleanup', action: () => {}, cleanup: () => Promise.reject(new Error('cannot undo')) };
    await runStages(null, [stage('a'), failing, stage('b', 'throw'), stage('c')], (f) => {
      failures.push(f);
      log.push(`failure ${f.stage} ${f.phase}`);
    });
    // The failing action is reported before any cleanup; a failing cleanup does not stop the others.
    expect(log).toEqual(['action a', 'action b', 'failure b action', 'cleanup b', 'failure bad-cleanup cleanup', 'cleanup a']);
    expect(failures.map((f) => [f.stage, f.phase, (f.error as Error).message])).toEqual([
      ['b', 'action', 'b failed'],
      ['bad-cleanup', 'cleanup', 'cannot undo'],
    ]);
  });
});

describe('limits', () => {
  it('the hard deadline is both caps, 15 s, and each discovery budget plus 5 s (for clicks, also a chain of repeats past the budget)', () => {
    expect(hardDeadlineMs(OPTS)).toBe(10_000 + 5_000 + 15_000);
    const click = { limit: 10, exclude: [], policy: CLICK_EVERYWHERE, repeat: 1, clickWaitMs: 500, budgetMs: 3_000, maxRevealDepth: 1 };
    const scroll = { maxSteps: 5, stepMs: 250, batchWaitMs: 1_000, budgetMs: 7_000 };
    // A chain that keeps revealing links goes on past the click budget: `repeat` steps of at most 3 click waits and 2 s.
    expect(hardDeadlineMs({ ...OPTS, click, scroll })).toBe(10_000 + 5_000 + 15_000 + 3_000 + 5_000 + 1 * (3 * 500 + 2_000) + 7_000 + 5_000);
    expect(hardDeadlineMs({ ...OPTS, click: { ...click, repeat: 4 } })).toBe(10_000 + 5_000 + 15_000 + 3_000 + 5_000 + 4 * (3 * 500 + 2_000));
    // An accessibility check past its 30 s cap is waited for as long again (axe-core keeps the page busy).
    expect(hardDeadlineMs({ ...OPTS, a11y: { tags: ['wcag2a'] } })).toBe(10_000 + 5_000 + 15_000 + 2 * 30_000 + 5_000);
  });
});
