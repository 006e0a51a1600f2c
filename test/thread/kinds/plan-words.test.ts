import { describe, expect, it } from "vitest";
import type { JobRequest } from "../../../src/requests/request.js";
import { planCommandOf } from "../../../src/thread/kinds/plan-words.js";
import { taskOf } from "../../../src/thread/kinds/upkeep-task.js";

describe("planCommandOf", () => {
  it.each([
    ["@agent go", ""],
    ["@agent go.", ""],
    ["@agent Go!", ""],
    ["@agent go ahead", ""],
    ["@agent please go ahead", ""],
    ["@agent go ahead with the plan", ""],
    ["@agent go please", ""],
    ["@agent go, but keep the old API", "but keep the old API"],
    ["@agent go but keep the old API", "but keep the old API"],
    ["@agent go: skip the docs", "skip the docs"],
    ["@agent go - only the parser", "only the parser"],
    ["@agent go ahead, without the migration", "without the migration"],
    [
      "@agent go, but\nkeep the old API\nand the old names",
      "but\nkeep the old API\nand the old names",
    ],
  ])("%j is a go with changes %j", (text, changes) => {
    expect(planCommandOf(text, "@agent")).toEqual({ kind: "go", changes });
  });

  it.each([
    ["@agent plan add a multiply function", "add a multiply function"],
    ["@agent plan: add X", "add X"],
    ["@agent please make a plan for adding caching", "adding caching"],
    ["@agent plan how to split the parser", "split the parser"],
    ["@agent plan", ""],
  ])("%j is a plan of %j", (text, task) => {
    expect(planCommandOf(text, "@agent")).toEqual({ kind: "plan", task });
  });

  it.each([
    "@agent go through the README and fix typos",
    "@agent go and fix the tests",
    "@agent go-live checklist, please",
    "@agent planning is hard, fix the scheduler",
    "@agent explain the plan in docs/plan.md",
    "@agent fix it",
  ])("%j is an ordinary request", (text) => {
    expect(planCommandOf(text, "@agent")).toBeUndefined();
  });

  it("reads the repository's own phrase", () => {
    expect(planCommandOf("/bot go, but skip docs", "/bot")).toEqual({
      kind: "go",
      changes: "but skip docs",
    });
  });
});

const request = (instruction: string, kind: "issue" | "pull_request" = "issue") =>
  ({
    instruction,
    source: { kind: "issue_comment" },
    target: { kind, number: 1, title: "t", body: "", state: "open", locked: false },
  }) as unknown as JobRequest;

describe("taskOf for plans", () => {
  it("finds a plan and a go on issues and pull requests alike", () => {
    expect(taskOf(request("@agent plan add X"), "@agent")).toBe("plan");
    expect(taskOf(request("@agent plan add X", "pull_request"), "@agent")).toBe("plan");
    expect(taskOf(request("@agent go"), "@agent")).toBe("go");
    expect(taskOf(request("@agent go, but keep the old API", "pull_request"), "@agent")).toBe("go");
    expect(taskOf(request("@agent go through it"), "@agent")).toBe("agent");
  });

  it("takes a 👍's task as set, and never reads a label's issue text as a plan", () => {
    expect(taskOf({ ...request("@agent go"), task: "go" }, "@agent")).toBe("go");
    const labelled = { ...request("plan the migration"), source: { kind: "label" } };
    expect(taskOf(labelled as unknown as JobRequest, "@agent")).toBe("agent");
  });
});
