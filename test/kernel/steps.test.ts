import { describe, expect, it } from "vitest";
import { AGENT_STEPS } from "../../src/change/run-change.js";
import { agent } from "../../src/change/steps/agent.js";
import { commit } from "../../src/change/steps/commit.js";
import { prepare } from "../../src/change/steps/prepare.js";
import { push } from "../../src/change/steps/push.js";
import { resume } from "../../src/change/steps/resume.js";
import { setup } from "../../src/change/steps/setup.js";
import { verify } from "../../src/change/steps/verify.js";
import { runSteps, type Step, stepLoadedOnRun } from "../../src/kernel/steps.js";

/**
 * Steps whose code loads when they first run (kernel/steps.ts
 * `stepLoadedOnRun`): the change's commit, verify and push steps, listed in
 * AGENT_STEPS with their stage declared beside the import.
 */

type Counter = { n: number; seen: string[] };

const adding = (stage: string, by: number): Step<Counter, string> => ({
  stage,
  async run(state, context) {
    return { n: state.n + by, seen: [...state.seen, `${stage}:${context}`] };
  },
});

describe("a step loaded when it runs", () => {
  it("imports its code at its first run, once, and runs it with the runner's state and context", async () => {
    let loads = 0;
    const later = stepLoadedOnRun("later", async () => {
      loads += 1;
      return adding("later", 10);
    });
    expect(loads).toBe(0);
    const steps = [adding("first", 1), later, later];
    const { state, error } = await runSteps(steps, { n: 0, seen: [] }, "ctx");
    expect(error).toBeUndefined();
    expect(state).toEqual({ n: 21, seen: ["first:ctx", "later:ctx", "later:ctx"] });
    expect(loads).toBe(1);
  });

  it("fails as its declared stage when its code cannot be loaded, and loads again next time", async () => {
    let loads = 0;
    const later = stepLoadedOnRun("push", async (): Promise<Step<Counter, string>> => {
      loads += 1;
      if (loads === 1) throw new Error("Cannot find module './steps/push.js'");
      return adding("push", 1);
    });
    const failed = await runSteps([adding("agent", 1), later], { n: 0, seen: [] }, "ctx");
    expect(failed.error).toEqual({
      stage: "push",
      message: expect.stringContaining("Cannot find module"),
    });
    // The work before the failure is kept.
    expect(failed.state.n).toBe(1);
    const again = await runSteps([later], { n: 0, seen: [] }, "ctx");
    expect(again.error).toBeUndefined();
    expect(again.state.n).toBe(1);
  });

  it("is listed in AGENT_STEPS under the stage its own module gives it", () => {
    expect(AGENT_STEPS.map((step) => step.stage)).toEqual(
      [prepare, resume, setup, agent, commit, verify, push].map((step) => step.stage),
    );
  });
});
