import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { Checklist } from "../../src/github/checklist.js";

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };

function call(id: string, name: string, input: Record<string, unknown>): AgentEvent {
  return { type: "tool_call", turn: 1, id, name, input, summary: `${name} ...` };
}

function result(id: string, name: string, content: string, isError = false): AgentEvent {
  return { type: "tool_result", turn: 1, id, name, content, isError, durationMs: 5 };
}

function change(path: string): AgentEvent {
  return {
    type: "file_change",
    turn: 1,
    toolCallId: "x",
    path,
    before: null,
    after: Buffer.from("a"),
  };
}

describe("Checklist", () => {
  it("shows job steps and what the agent is doing, with turn and cost", () => {
    const list = new Checklist();
    list.step("Preparing the workspace");
    list.apply({ type: "turn_start", turn: 7 });
    list.apply({
      type: "usage",
      turn: 7,
      usage,
      costUsd: 0.01,
      totalUsage: usage,
      totalCostUsd: 0.1234,
    });
    list.apply(call("r1", "read_file", { file_path: "src/a.ts" }));
    list.apply(result("r1", "read_file", "   1 | a"));
    list.apply(call("r2", "read_file", { file_path: "src/b.ts" }));
    list.apply(call("r3", "read_file", { file_path: "src/a.ts" }));
    list.apply(call("g1", "grep_search", { pattern: "x" }));
    list.apply(result("g1", "grep_search", "src/a.ts:1:x"));
    list.apply(change("src/a.ts"));
    list.apply(change("src/b.ts"));
    list.apply(change("src/a.ts"));
    list.apply(call("s1", "run_shell", { command: "npm test" }));
    list.apply(result("s1", "run_shell", "exit code: 0\nstdout:\nok"));
    list.apply(call("s2", "run_shell", { command: "npm run lint" }));
    list.apply(result("s2", "run_shell", "exit code: 1\nstderr:\nbad"));
    list.apply(call("s3", "run_shell", { command: "npm run build" }));

    expect(list.render().split("\n")).toEqual([
      "- [x] Preparing the workspace",
      "- [ ] Agent at work · turn 7 · $0.1234",
      "  - [ ] Reading files (2)",
      "  - [x] Searching the code (1)",
      "  - [x] Editing `src/a.ts`, `src/b.ts`",
      "  - [x] Running `npm test` ✅",
      "  - [x] Running `npm run lint` ❌",
      "  - [ ] Running `npm run build`",
    ]);
  });

  it("shows the agent's spend against the job's budget once it has one", () => {
    const list = new Checklist();
    list.apply({ type: "turn_start", turn: 2 });
    list.apply({
      type: "usage",
      turn: 2,
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: 0.2,
      totalUsage: { inputTokens: 2, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      totalCostUsd: 1.25,
    });
    expect(list.render()).toBe("- [ ] Agent at work · turn 2 · $1.25");
    list.budget(2);
    expect(list.render()).toBe("- [ ] Agent at work · turn 2 · $1.25 of $2.00 budget");
    // A cap that is no number is not shown as one.
    list.budget(Number.POSITIVE_INFINITY);
    expect(list.render()).toBe("- [ ] Agent at work · turn 2 · $1.25");
  });

  it("settles the agent's step when the run stops or the job moves on", () => {
    const list = new Checklist();
    list.apply(call("s1", "run_shell", { command: "sleep 1000" }));
    list.apply({ type: "stop", reason: "max_cost", turns: 12 });
    list.step("Pushing");
    list.finish("success");
    expect(list.render().split("\n")).toEqual([
      "- [ ] Agent at work · turn 12 · $0.0000 (stopped at the cost limit) ❌",
      "  - [x] Running `sleep 1000` ❌",
      "- [x] Pushing",
    ]);
  });

  it("marks what is still running as failed when the job fails", () => {
    const list = new Checklist();
    list.step("Running setup");
    list.finish("failure");
    expect(list.render()).toBe("- [ ] Running setup ❌");
  });

  it("keeps a long run short: older commands and extra files become counts", () => {
    const list = new Checklist();
    for (let i = 0; i < 12; i++) {
      list.apply(call(`s${i}`, "run_shell", { command: `cmd ${i}` }));
      list.apply(result(`s${i}`, "run_shell", `exit code: ${i === 0 ? 2 : 0}`));
    }
    for (let i = 0; i < 15; i++) list.apply(change(`f${i}.ts`));
    const lines = list.render().split("\n");
    expect(lines).toContain("  - [x] 4 earlier commands (1 failed)");
    expect(lines.filter((l) => l.includes("Running `cmd"))).toHaveLength(8);
    expect(lines.find((l) => l.includes("Editing"))).toMatch(/`f9\.ts` and 5 more$/);
  });

  it("keeps commands and paths inside code spans, whatever they contain", () => {
    const list = new Checklist();
    list.apply(call("s1", "run_shell", { command: "echo `x`\n@everyone **bold**" }));
    list.apply(result("s1", "run_shell", "exit code: 0"));
    list.apply(change("`odd`.md"));
    expect(list.render()).toContain("Running ``echo `x` @everyone **bold**`` ✅");
    expect(list.render()).toContain("Editing `` `odd`.md ``");
  });

  it("shows a retry note until the next turn and ignores text", () => {
    const list = new Checklist();
    expect(list.apply({ type: "text_delta", turn: 1, text: "hi" })).toBe(false);
    expect(list.isEmpty()).toBe(true);
    list.apply({ type: "retry", turn: 1, attempt: 2, delayMs: 1000, reason: "overloaded" });
    expect(list.render()).toContain("retrying (attempt 2)");
    list.apply({ type: "turn_start", turn: 2 });
    expect(list.render()).not.toContain("retrying");
  });
});
