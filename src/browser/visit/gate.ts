/**
 * Visit stages under the measure gate (`--vitals-concurrency`, see `MeasureGate`): a span of
 * stages that works on the page holds the gate for work from its first action to its last.
 * @module
 */
import type { GateClock, MeasureGate } from '../measure-gate.js';
import type { VisitContext } from './context.js';
import type { Stage } from './pipeline.js';

/**
 * `stages` as one span of work under `gate`: a stage before them waits for the gate, one after
 * them releases it (as does the first one's cleanup, when the visit ends inside the span).
 * Without a gate, `stages` as they are.
 * @param clock - the visit's time waited at the gate (its hard deadline leaves it out)
 */
export function workSpan(gate: MeasureGate | null | undefined, clock: GateClock, stages: readonly Stage<VisitContext>[]): Stage<VisitContext>[] {
  if (!gate || stages.length === 0) return [...stages];
  let held: Promise<() => void> | null = null;
  const begin: Stage<VisitContext> = {
    name: `gate(${stages[0]!.name})`,
    async action(ctx) {
      held = gate.enterWork(clock);
      await ctx.step(held);
    },
    cleanup() {
      // Also when the visit was aborted while waiting: the hold, once granted, goes back at once.
      void held?.then((release) => release());
    },
  };
  const end: Stage<VisitContext> = {
    name: `gate-end(${stages[stages.length - 1]!.name})`,
    async action() {
      (await held)?.();
    },
  };
  return [begin, ...stages, end];
}
