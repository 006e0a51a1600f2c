import { errorMessage } from "../error-message.js";
import { loadOnFirstCall } from "../load-on-first-call.js";

/**
 * The one pipeline runner. A job's work is a list of steps; a step takes
 * the job's state (and the job's context: services, input, events) and
 * returns the next state, or a stop: an error with the stage that failed,
 * or an early, good end (nothing new to commit, already up to date). Work
 * before a stop is kept in its state. Steps hand the runner what must be
 * closed at the end (a worksite), which it closes last-in first-out
 * whatever happened.
 */

/** G: the stages a pipeline names (a change's JobStage, a dependency group's own). */
export interface StepError<G extends string = string> {
  stage: G;
  message: string;
}

export interface Stop<S, G extends string = string> {
  readonly stopped: true;
  state: S;
  /** Absent: a good, early end. */
  error?: StepError<G> | undefined;
}

export interface Step<S, C, G extends string = string> {
  /** The stage an error thrown by the step is reported as. */
  stage: G;
  run(
    state: S,
    context: C,
    defer: (cleanup: () => Promise<unknown>) => void,
  ): Promise<S | Stop<S, G>>;
}

/**
 * A step whose code is imported when it first runs (loadOnFirstCall): for
 * steps after the agent's first model request, which the Action's start
 * need not load. Its stage is declared here, where the step is listed: a
 * failed import is that step's failure.
 */
export function stepLoadedOnRun<S, C, G extends string>(
  stage: G,
  load: () => Promise<Step<S, C, G>>,
): Step<S, C, G> {
  const run = loadOnFirstCall(async () => {
    const step = await load();
    return step.run.bind(step);
  });
  return { stage, run };
}

export interface StepsResult<S, G extends string = string> {
  state: S;
  error?: StepError<G> | undefined;
}

export function stop<S, G extends string = string>(state: S, error?: StepError<G>): Stop<S, G> {
  return { stopped: true, state, ...(error ? { error } : {}) };
}

export function isStop<S, G extends string>(value: S | Stop<S, G>): value is Stop<S, G> {
  return (value as Stop<S, G>).stopped === true;
}

export async function runSteps<S, C, G extends string>(
  steps: readonly Step<S, C, G>[],
  initial: S,
  context: C,
): Promise<StepsResult<S, G>> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const defer = (cleanup: () => Promise<unknown>) => {
    cleanups.push(cleanup);
  };
  let state = initial;
  try {
    for (const step of steps) {
      let next: S | Stop<S, G>;
      try {
        next = await step.run(state, context, defer);
      } catch (error) {
        return { state, error: { stage: step.stage, message: errorMessage(error) } };
      }
      if (isStop(next)) return { state: next.state, error: next.error };
      state = next;
    }
    return { state };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
