import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../src/agent/events.js";
import { FileHistory } from "../../src/agent/file-history.js";
import { type AgentDeps, type AgentTask, runAgent } from "../../src/agent/loop.js";
import type { ToolResultBlock } from "../../src/agent/model/model.js";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import { createRedactor } from "../../src/agent/redact.js";
import { defineTool, type PolicyCheck } from "../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../src/agent/tools/index.js";
import { createToolRegistry } from "../../src/agent/tools/registry.js";
import { createSnapshotter } from "../../src/agent/workspace-snapshot.js";
import { callTool, reply, text, thinking, toolUse, turn } from "../helpers/model-script.js";
import { noSandbox } from "../helpers/sandbox.js";
import { makeRepo, makeTempDir } from "../helpers/temp-dir.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const allowAll: PolicyCheck = () => ({ allow: true });
const limits = { maxTurns: 20, maxCostUsd: 10, maxDurationMs: 600_000 };
const task = (prompt = "Fix the bug"): AgentTask => ({ prompt, system: ["rules"], limits });

async function setup(
  steps: ScriptStep[],
  overrides: Partial<AgentDeps> = {},
  files: Record<string, string> = { "a.txt": "hello\n" },
) {
  const root = await makeRepo(files);
  const model = createScriptedModel(steps, { id: "claude-sonnet-4-5" });
  const events: AgentEvent[] = [];
  const history = new FileHistory();
  const deps: AgentDeps = {
    model,
    registry: createToolRegistry(defaultTools()),
    check: allowAll,
    history,
    root,
    env,
    sandbox: noSandbox(root),
    redact: createRedactor(),
    clock: { now: () => 0 },
    onEvent: (e) => events.push(e),
    ...overrides,
  };
  return { root, model, events, history, deps };
}

const resultsOf = (request: { messages: { role: string; content: unknown[] }[] } | undefined) =>
  (request?.messages.at(-1)?.content ?? []) as ToolResultBlock[];

describe("runAgent", () => {
  it("stops when the model answers without tools and reports text, turns, usage and cost", async () => {
    const { deps, events } = await setup([
      turn([text("Looking."), toolUse("read_file", { file_path: "a.txt" })], undefined, {
        inputTokens: 1000,
        outputTokens: 100,
      }),
      reply("All done.", { inputTokens: 2000, outputTokens: 50, cacheReadTokens: 1000 }),
    ]);
    const result = await runAgent(deps, task());
    expect(result.stopReason).toBe("end_turn");
    expect(result.finalText).toBe("All done.");
    expect(result.turns).toBe(2);
    expect([...result.turnTexts]).toEqual([
      [1, "Looking."],
      [2, "All done."],
    ]);
    expect(result.usage).toEqual({
      inputTokens: 3000,
      outputTokens: 150,
      cacheReadTokens: 1000,
      cacheWriteTokens: 0,
    });
    expect(result.costUsd).toBeGreaterThan(0);
    const usageEvents = events.filter((e) => e.type === "usage");
    expect(usageEvents.at(-1)).toMatchObject({ totalCostUsd: result.costUsd });
    expect(events.at(-1)).toEqual({ type: "stop", reason: "end_turn", turns: 2 });
  });

  it("sends tool results back in call order and records edits by turn", async () => {
    const { deps, model, history, root } = await setup([
      turn([
        toolUse("read_file", { file_path: "a.txt" }, "r1"),
        toolUse("list_files", { pattern: "*.txt" }, "l1"),
      ]),
      callTool(
        "edit_file",
        { file_path: "a.txt", old_string: "hello", new_string: "goodbye" },
        { id: "e1" },
      ),
      reply("Changed a.txt."),
    ]);
    const result = await runAgent(deps, task());
    expect(result.stopReason).toBe("end_turn");
    const second = resultsOf(model.requests[1]);
    expect(second.map((r) => r.tool_use_id)).toEqual(["r1", "l1"]);
    expect(second[0]?.content).toContain("hello");
    expect(second[1]?.content).toContain("a.txt");
    expect(resultsOf(model.requests[2])[0]).toMatchObject({ tool_use_id: "e1" });
    expect(resultsOf(model.requests[2])[0]?.is_error).toBeUndefined();
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("goodbye\n");
    expect(history.turns().map((t) => [t.turn, t.files.map((f) => f.path)])).toEqual([
      [2, ["a.txt"]],
    ]);
  });

  it("records files changed by shell commands through the workspace snapshot", async () => {
    const root = await makeRepo({ "a.txt": "x\n", ".gitignore": "out/\n" });
    const snapshotter = await createSnapshotter({ root, env });
    const { deps, history } = await setup(
      [
        callTool("run_shell", {
          command: "echo made > new.txt && mkdir -p out && echo junk > out/x",
        }),
        reply("ok"),
      ],
      { root, snapshotter },
    );
    await runAgent(deps, task());
    await snapshotter.close();
    const turns = history.turns();
    expect(turns).toHaveLength(1);
    expect(turns[0]?.files).toEqual([
      { path: "new.txt", before: null, after: Buffer.from("made\n") },
    ]);
    expect(history.all()[0]).toMatchObject({ turn: 1, tool: "run_shell" });
  });

  it("makes a file a shell command changed stale for the next edit, until it is read again", async () => {
    const root = await makeRepo({ "a.txt": "one\n" });
    const snapshotter = await createSnapshotter({ root, env });
    const { deps, model } = await setup(
      [
        callTool("read_file", { file_path: "a.txt" }),
        callTool("run_shell", { command: "echo two >> a.txt" }),
        callTool("edit_file", { file_path: "a.txt", old_string: "one", new_string: "1" }),
        reply("ok"),
      ],
      { root, snapshotter },
    );
    await runAgent(deps, task());
    await snapshotter.close();
    expect(resultsOf(model.requests[2])[0]?.content).toContain(
      "note: this command changed files you had read: a.txt (content changed)",
    );
    const refused = resultsOf(model.requests[3])[0];
    expect(refused?.is_error).toBe(true);
    expect(refused?.content).toMatch(
      /^a\.txt is stale: the run_shell command `echo two >> a\.txt` changed it/,
    );
  });

  it("runs read-only calls together and writing calls alone, keeping result order", async () => {
    let active = 0;
    const log: string[] = [];
    const tick = () => new Promise((r) => setImmediate(r));
    const probe = (name: string, safe: boolean) =>
      defineTool({
        name,
        description: name,
        input: z.object({ tag: z.string() }),
        readOnly: safe,
        concurrencySafe: safe,
        summarize: (i) => `${name} ${i.tag}`,
        async run(i) {
          active += 1;
          log.push(`start ${i.tag} active=${active}`);
          await tick();
          await tick();
          active -= 1;
          return `result ${i.tag}`;
        },
      });
    const registry = createToolRegistry([probe("look", true), probe("write", false)]);
    const { deps, model } = await setup(
      [
        turn([
          toolUse("look", { tag: "r1" }, "1"),
          toolUse("look", { tag: "r2" }, "2"),
          toolUse("write", { tag: "w1" }, "3"),
          toolUse("write", { tag: "w2" }, "4"),
          toolUse("look", { tag: "r3" }, "5"),
        ]),
        reply("done"),
      ],
      { registry },
    );
    await runAgent(deps, task());
    expect(log).toEqual([
      "start r1 active=1",
      "start r2 active=2",
      "start w1 active=1",
      "start w2 active=1",
      "start r3 active=1",
    ]);
    expect(resultsOf(model.requests[1]).map((r) => r.content)).toEqual([
      "result r1",
      "result r2",
      "result w1",
      "result w2",
      "result r3",
    ]);
  });

  it("explains a policy denial to the model and carries on", async () => {
    const check: PolicyCheck = (call) =>
      call.tool === "run_shell"
        ? { allow: false, reason: "curl is a network tool" }
        : { allow: true };
    const { deps, model } = await setup(
      [callTool("run_shell", { command: "curl x" }), reply("I will not use the network.")],
      {
        check,
      },
    );
    const result = await runAgent(deps, task());
    expect(result.stopReason).toBe("end_turn");
    const denied = resultsOf(model.requests[1])[0];
    expect(denied?.is_error).toBe(true);
    expect(denied?.content).toContain("curl is a network tool");
  });

  it.each([
    ["max_turns", { ...limits, maxTurns: 2 }],
    ["max_cost", { ...limits, maxCostUsd: 0.001 }],
  ] as const)("ends cleanly at the %s limit and keeps the work", async (reason, taskLimits) => {
    const edits = Array.from({ length: 5 }, (_, i) =>
      turn([toolUse("write_file", { file_path: `f${i}.txt`, content: `${i}` })], undefined, {
        inputTokens: 10_000,
      }),
    );
    const { deps, history, events } = await setup(edits);
    const result = await runAgent(deps, { ...task(), limits: taskLimits });
    expect(result.stopReason).toBe(reason);
    expect(history.netChanges().length).toBe(result.turns);
    expect(result.turns).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: "stop", reason });
  });

  it("stops at the wall-clock limit using the injected clock", async () => {
    let now = 0;
    const { deps } = await setup(
      Array.from({ length: 5 }, () => callTool("read_file", { file_path: "a.txt" })),
      { clock: { now: () => (now += 40_000) } },
    );
    const result = await runAgent(deps, {
      ...task(),
      limits: { ...limits, maxDurationMs: 100_000 },
    });
    expect(result.stopReason).toBe("timeout");
    expect(result.turns).toBeLessThan(5);
  });

  it("stops when aborted and when the model fails, keeping what was done", async () => {
    const controller = new AbortController();
    const aborting = defineTool({
      name: "abort_now",
      description: "aborts",
      input: z.object({}),
      summarize: () => "abort_now",
      async run() {
        controller.abort();
        return "aborted";
      },
    });
    const registry = createToolRegistry([aborting]);
    const aborted = await setup([callTool("abort_now", {}), reply("never")], {
      registry,
      signal: controller.signal,
    });
    expect((await runAgent(aborted.deps, task())).stopReason).toBe("aborted");

    const failing = await setup([
      callTool("write_file", { file_path: "kept.txt", content: "kept" }),
      { error: { status: 400, message: "bad request" } },
    ]);
    const result = await runAgent(failing.deps, task());
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatch(/bad request/);
    expect(failing.history.netChanges().map((c) => c.path)).toEqual(["kept.txt"]);
  });

  it("summarises the conversation past 85% of the window and keeps counting the budget", async () => {
    const big = { inputTokens: 900, outputTokens: 10 };
    const { deps, model, events } = await setup([
      turn([toolUse("read_file", { file_path: "a.txt" })], undefined, { inputTokens: 100 }),
      turn([toolUse("read_file", { file_path: "a.txt" })], undefined, big),
      reply("Summary: read a.txt twice.", { inputTokens: 500, outputTokens: 40 }),
      reply("Finished."),
    ]);
    (model as { contextWindow: number }).contextWindow = 1000;
    const result = await runAgent(deps, task("Original task text"));
    expect(result.stopReason).toBe("end_turn");
    const summaryRequest = model.requests[2];
    expect(summaryRequest?.tools).toEqual([]);
    const after = model.requests[3];
    expect(after?.messages).toHaveLength(3);
    expect(JSON.stringify(after?.messages[0])).toContain("Original task text");
    expect(JSON.stringify(after?.messages[0])).toContain("Summary: read a.txt twice.");
    expect(events.some((e) => e.type === "compaction" && e.promptTokens === 900)).toBe(true);
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(100 + 900 + 500);
  });

  it("sends thinking blocks back unmodified with their signatures and never shows them as the answer", async () => {
    const { deps, model } = await setup([
      turn([thinking("secret plan", "sig-abc"), toolUse("read_file", { file_path: "a.txt" })]),
      turn([thinking("more", "sig-def"), text("Answer.")]),
    ]);
    const result = await runAgent(deps, { ...task(), thinkingBudget: 2048 });
    expect(model.requests[0]?.thinkingBudget).toBe(2048);
    expect(model.requests[1]?.messages[1]?.content[0]).toEqual({
      type: "thinking",
      thinking: "secret plan",
      signature: "sig-abc",
    });
    expect(result.finalText).toBe("Answer.");
  });

  it("does not run a tool call cut off by max_tokens", async () => {
    const root = await makeTempDir();
    await writeFile(join(root, "a.txt"), "x");
    const { deps, model, history } = await setup(
      [
        turn(
          [toolUse("write_file", { file_path: "half.txt", content: "par" }, "cut1")],
          "max_tokens",
        ),
        reply("retrying smaller"),
      ],
      { root },
    );
    await runAgent(deps, task());
    const result = resultsOf(model.requests[1])[0];
    expect(result).toMatchObject({ tool_use_id: "cut1", is_error: true });
    expect(result?.content).toMatch(/cut off by the output token limit/);
    expect(history.all()).toHaveLength(0);
  });
});
