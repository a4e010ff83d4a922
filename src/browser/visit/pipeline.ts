/**
 * A small stage runner: stages act in order on one shared context, and what each set up is
 * undone in reverse order once the run ends, however it ends (the shape of Crawlee's
 * `ContextPipeline.compose({action, cleanup})`, written for one visit).
 * @module
 */

/** A stage's answer: `'done'` when the result is complete and no later stage should act. */
export type StageEnd = 'done' | void;

/** One step of a run over a context `C`. */
export interface Stage<C> {
  /** Short name (`observe`, `settle` …), given with a failure. */
  readonly name: string;
  /** Do the stage's work on `ctx`. Resolve `'done'` to end the run after it (the cleanups still run). */
  action(ctx: C): StageEnd | Promise<StageEnd>;
  /**
   * Undo what `action` set up (listeners, timers, page state). Runs once per run, after the last
   * action, in reverse order of the stages, for every stage whose action started, also when an
   * action failed (so it must not assume its action finished).
   */
  cleanup?(ctx: C): void | Promise<void>;
}

/** A failure of a run: which stage, in its action or its cleanup, and what it threw. */
export interface StageFailure {
  /** The failing stage's {@link Stage.name}. */
  stage: string;
  /** Whether its action or its cleanup threw. */
  phase: 'action' | 'cleanup';
  /** What it threw. */
  error: unknown;
}

/**
 * Run `stages` over `ctx`: each action in turn until one resolves `'done'` or throws, then
 * the cleanups of every stage that started, last first. A failing action ends the actions and
 * is handed to `onFailure` before any cleanup runs (so the cleanups see what it decided); a
 * failing cleanup is handed to `onFailure` and the other cleanups still run.
 *
 * Never throws, unless `onFailure` does.
 */
export async function runStages<C>(ctx: C, stages: readonly Stage<C>[], onFailure: (failure: StageFailure) => void): Promise<void> {
  const started: Stage<C>[] = [];
  try {
    for (const stage of stages) {
      started.push(stage);
      try {
        if ((await stage.action(ctx)) === 'done') break;
      } catch (error) {
        onFailure({ stage: stage.name, phase: 'action', error });
        break;
      }
    }
  } finally {
    for (const stage of started.reverse()) {
      try {
        await stage.cleanup?.(ctx);
      } catch (error) {
        onFailure({ stage: stage.name, phase: 'cleanup', error });
      }
    }
  }
}
