import { describe, expect, it } from "vitest";
import { jobEvents, keepingWarnings } from "../../src/kernel/events.js";

describe("keepingWarnings", () => {
  it("keeps every warning for the job's result and still tells the listeners each one", () => {
    const heard: string[] = [];
    const steps: string[] = [];
    const kept = keepingWarnings(
      jobEvents({ warning: (m) => heard.push(m), step: (s) => steps.push(s) }),
    );
    kept.events.step("Preparing the workspace");
    kept.events.warning("pnpm cannot run here");
    kept.events.warning("a checkpoint was not saved");
    expect(kept.warnings).toEqual(["pnpm cannot run here", "a checkpoint was not saved"]);
    expect(heard).toEqual(kept.warnings);
    expect(steps).toEqual(["Preparing the workspace"]);
  });
});
