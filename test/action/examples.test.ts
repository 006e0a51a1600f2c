import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { COMMENT_EVENTS } from "../../src/action/events.js";
import { INPUT_NAMES } from "../../src/action/inputs.js";
import { OUTPUT_NAMES } from "../../src/action/step-summary.js";
import { ROOT } from "./harness.js";

/** The manifest, the examples and the README describe the same inputs and outputs as the code. */

interface Step {
  uses?: string;
  with?: Record<string, unknown>;
}

const manifest = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
};
const EVENTS = [...COMMENT_EVENTS, "pull_request", "workflow_run", "workflow_dispatch", "schedule"];

describe("action.yml", () => {
  it("declares exactly the inputs the code reads and the outputs it sets", () => {
    expect(Object.keys(manifest.inputs).sort()).toEqual([...INPUT_NAMES].sort());
    expect(Object.keys(manifest.outputs).sort()).toEqual([...OUTPUT_NAMES].sort());
  });
});

describe("examples/", () => {
  const files = readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".yml"));

  it("has the comment, pull request, review, CI fix and weekly dependency workflows", () => {
    expect(files.sort()).toEqual([
      "ci-fix.yml",
      "comment-fixes.yml",
      "pr-review.yml",
      "review.yml",
      "weekly-deps.yml",
    ]);
  });

  it.each(files)("%s runs the Action on events it serves, with inputs it declares", (file) => {
    const workflow = parse(readFileSync(join(ROOT, "examples", file), "utf8")) as {
      on: Record<string, unknown>;
      jobs: Record<string, { steps: Step[] }>;
    };
    for (const event of Object.keys(workflow.on)) expect(EVENTS).toContain(event);
    const uses = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .filter((step) => step.uses?.includes("/patchwright@"));
    expect(uses).toHaveLength(1);
    for (const input of Object.keys(uses[0]?.with ?? {})) {
      expect(Object.keys(manifest.inputs)).toContain(input);
    }
  });
});

describe("README", () => {
  it("documents every input and output", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## The GitHub Action"));
    for (const name of [...INPUT_NAMES, ...OUTPUT_NAMES]) expect(section).toContain(`\`${name}\``);
  });
});
