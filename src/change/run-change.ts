import { type JobEvents, jobEvents, keepingWarnings } from "../kernel/events.js";
import type { JobServices } from "../kernel/services.js";
import { runSteps, stepLoadedOnRun } from "../kernel/steps.js";
import type { ChangeInput, ChangeResult } from "./change.js";
import { type ChangeState, type ChangeStep, changeContext, emptyResult } from "./context.js";
import { agent } from "./steps/agent.js";
import { prepare } from "./steps/prepare.js";
import { resume } from "./steps/resume.js";
import { setup } from "./steps/setup.js";

/**
 * The steps after the agent's work (its commits, the check, the push, with
 * git's commit and push code and the secret scan) load when they run: the
 * Action's way to the first model request needs none of it (9 kB of its
 * start). Each stage is the step's own (test/kernel/steps.test.ts).
 */
const commit = stepLoadedOnRun("agent", async () => (await import("./steps/commit.js")).commit);
const verify = stepLoadedOnRun("verify", async () => (await import("./steps/verify.js")).verify);
const push = stepLoadedOnRun("push", async () => (await import("./steps/push.js")).push);

/**
 * A change without the GitHub API, as a list of steps on one runner
 * (kernel/steps.ts). The agent's change (issues, PR requests, CI fixes,
 * reviews) is AGENT_STEPS; bringing a branch up to date is UPDATE_STEPS
 * (update-branch.ts). The CLI's `run --repo` calls it directly; the App and
 * the Action wrap it with the GitHub parts (thread/execute-plan.ts).
 */
export const AGENT_STEPS: readonly ChangeStep[] = [
  prepare,
  resume,
  setup,
  agent,
  commit,
  verify,
  push,
];

export async function runChange(
  services: JobServices,
  input: ChangeInput,
  events: JobEvents = jobEvents(),
  steps: readonly ChangeStep[] = AGENT_STEPS,
): Promise<ChangeResult> {
  const started = services.clock.now();
  const initial: ChangeState = {
    result: emptyResult(input.existingBranch ?? "", input.baseBranch ?? ""),
  };
  // Said to the job's listeners as it happens, and kept for the result's readers.
  const kept = keepingWarnings(events);
  const { warnings } = kept;
  const ctx = changeContext(services, input, kept.events);
  const { state, error } = await runSteps(steps, initial, {
    ...ctx,
    // Not for a job that keeps checkpoints (the App's): it may resume one, and
    // then its first request holds the resume note; an early one would be paid
    // for and thrown away. The Action and the CLI start fresh every time.
    earlyFirstTurn: steps === AGENT_STEPS && input.checkpointRef === undefined,
  });
  return {
    ...state.result,
    ...(state.result.error || !error ? {} : { error }),
    ...(warnings.length > 0 ? { warnings } : {}),
    durationMs: services.clock.now() - started,
  };
}
