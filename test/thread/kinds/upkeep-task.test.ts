import { describe, expect, it } from "vitest";
import type { JobRequest } from "../../../src/requests/request.js";
import { taskOf } from "../../../src/thread/kinds/upkeep-task.js";

const request = (instruction: string, kind: "issue" | "pull_request" = "pull_request") =>
  ({
    instruction,
    target: { kind, number: 1, title: "t", body: "", state: "open", locked: false },
  }) as unknown as JobRequest;

describe("taskOf", () => {
  it.each([
    ["@agent review", "review"],
    ["@agent please review this PR.", "review"],
    ["@agent fix CI", "fix_ci"],
    ["@agent fix the build!", "fix_ci"],
    ["@agent resolve conflicts", "update_branch"],
    ["@agent resolve the merge conflicts", "update_branch"],
    ["@agent update branch", "update_branch"],
    ["@agent review the README and fix typos", "agent"],
    ["@agent fix CI and also rename foo", "agent"],
    ["please @agent look at this", "agent"],
  ])("%s -> %s", (text, task) => {
    expect(taskOf(request(text), "@agent")).toBe(task);
  });

  it("is always the agent on an issue, and an event's own task otherwise", () => {
    expect(taskOf(request("@agent review", "issue"), "@agent")).toBe("agent");
    expect(taskOf({ ...request(""), task: "fix_ci" }, "@agent")).toBe("fix_ci");
    expect(taskOf(request("/bot review"), "/bot")).toBe("review");
  });
});
