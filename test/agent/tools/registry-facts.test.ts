import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createScriptedModel } from "../../../src/agent/model/scripted.js";
import type { PolicyConfig } from "../../../src/agent/policy/policy.js";
import { runAgentSession } from "../../../src/agent/session.js";
import { defineTool } from "../../../src/agent/tools/define-tool.js";
import { toolFactsLookup } from "../../../src/agent/tools/facts.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { Checklist } from "../../../src/github/checklist.js";
import { callTool, reply } from "../../helpers/model-script.js";
import { sandboxFor } from "../../helpers/sandbox.js";
import { makeRepo } from "../../helpers/temp-dir.js";

/**
 * Adding a tool is its definition plus a place in the list: what it is
 * (kind, path fields) is declared once, and the policy, the presets, the
 * summaries, the tracking comment and the prompt all follow from it.
 */

const countLines = defineTool({
  name: "count_lines",
  description: "Counts the lines of a file",
  kind: "read",
  pathFields: ["file_path"],
  concurrencySafe: true,
  input: z.object({ file_path: z.string() }),
  summarize: (input) => `count_lines ${input.file_path}`,
  run: async (input, ctx) =>
    String((await readFile(join(ctx.root, input.file_path), "utf8")).split("\n").length - 1),
});

const appendLine = defineTool({
  name: "append_line",
  description: "Appends a line to a file",
  kind: "write",
  pathFields: ["file_path"],
  input: z.object({ file_path: z.string(), line: z.string() }),
  summarize: (input) => `append_line ${input.file_path}`,
  run: async (input, ctx) => {
    const file = join(ctx.root, input.file_path);
    const before = await readFile(file);
    await appendFile(file, `${input.line}\n`);
    // A write tool records what it changed, so the commits and the comment see it.
    ctx.recordChange({ path: input.file_path, before, after: await readFile(file) });
    return "appended";
  },
});

const tools = [...defaultTools(), countLines, appendLine];

async function run(policy: Partial<PolicyConfig>) {
  const root = await makeRepo({ "a.txt": "a\nb\n", "secrets/key.txt": "k\n" });
  const model = createScriptedModel([
    callTool("count_lines", { file_path: "a.txt" }, { id: "count" }),
    callTool("count_lines", { file_path: "../../etc/passwd" }, { id: "outside" }),
    callTool("append_line", { file_path: "a.txt", line: "c" }, { id: "append" }),
    callTool("append_line", { file_path: "secrets/key.txt", line: "x" }, { id: "secret" }),
    callTool("append_line", { file_path: ".git/config", line: "x" }, { id: "git" }),
    reply("done"),
  ]);
  const events: AgentEvent[] = [];
  await runAgentSession({
    root,
    task: "count and append",
    model,
    tools,
    policy: { preset: "default", allow: [], deny: [], ...policy },
    limits: { maxTurns: 10, maxCostUsd: 1, maxDurationMs: 60_000 },
    envSource: { PATH: process.env.PATH, HOME: process.env.HOME },
    sandbox: await sandboxFor(root),
    clock: Date,
    onEvent: (event) => events.push(event),
  });
  const results = new Map<string, { content: string; is_error?: boolean }>();
  for (const request of model.requests) {
    for (const message of request.messages) {
      if (message.role !== "user") continue;
      for (const block of message.content)
        if (block.type === "tool_result") results.set(block.tool_use_id, block);
    }
  }
  return { root, model, events, results };
}

describe("a tool added to the registry", () => {
  it("is gated by the policy from its own facts", async () => {
    const { root, results } = await run({ deny: ["append_line: secrets/**"] });
    expect(results.get("count")).toMatchObject({ content: "2" });
    expect(results.get("outside")?.content).toMatch(
      /^Denied by policy: `count_lines \.\.\/\.\.\/etc\/passwd`: the path is outside the workspace/,
    );
    expect(results.get("append")).toMatchObject({ content: "appended" });
    expect(results.get("secret")?.content).toMatch(
      /matches the deny rule `append_line: secrets\/\*\*`/,
    );
    expect(results.get("git")?.content).toMatch(/\.git\/ is managed by git/);
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("a\nb\nc\n");
    expect(await readFile(join(root, "secrets/key.txt"), "utf8")).toBe("k\n");
  }, 30_000);

  it("is held to the presets by its kind: reading under read-only, writing not", async () => {
    const { root, results } = await run({ preset: "read-only" });
    expect(results.get("count")).toMatchObject({ content: "2" });
    expect(results.get("append")?.content).toMatch(
      /`append_line a.txt`: the read-only preset does not allow changing files/,
    );
    expect(await readFile(join(root, "a.txt"), "utf8")).toBe("a\nb\n");
  }, 30_000);

  it("is summarised, listed in the tracking comment and introduced in the prompt", async () => {
    const { model, events } = await run({});
    const calls = events.filter(
      (e): e is Extract<AgentEvent, { type: "tool_call" }> => e.type === "tool_call",
    );
    expect(calls.map((c) => c.summary)).toContain("count_lines a.txt");
    expect(calls.map((c) => c.summary)).toContain("append_line secrets/key.txt");
    const checklist = new Checklist(toolFactsLookup(tools));
    for (const event of events) checklist.apply(event);
    const comment = checklist.render();
    // count_lines counts as reading a file; append_line's change as an edit.
    // Two reads asked for (one denied, as for read_file), one edit.
    expect(comment).toContain("Reading files (2)");
    expect(comment).toContain("Editing `a.txt`");
    expect(comment).not.toContain("Using `count_lines`");
    expect(model.requests[0]?.system[0]).toContain("- Read files: read_file, count_lines");
    expect(model.requests[0]?.system[0]).toContain(
      "- Change files: write_file, edit_file, append_line",
    );
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual([
      "read_file",
      "write_file",
      "edit_file",
      "list_files",
      "grep_search",
      "run_shell",
      "count_lines",
      "append_line",
    ]);
  }, 30_000);
});
