import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type PolicyCheck, ToolError } from "../../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { createToolRegistry, executeToolCall } from "../../../src/agent/tools/registry.js";
import { createWorkspace, type TestWorkspace } from "./tool-context.js";

const echo = defineTool({
  name: "echo",
  description: "Echoes text",
  input: z.object({ text: z.string().describe("what to echo") }),
  readOnly: true,
  concurrencySafe: true,
  summarize: (args) => `echo ${args.text}`,
  async run(args) {
    return args.text;
  },
});

const failing = defineTool({
  name: "failing",
  description: "Fails",
  input: z.object({ mode: z.enum(["tool", "crash", "string"]) }),
  summarize: () => "failing",
  async run(args) {
    if (args.mode === "tool") throw new ToolError("do it differently");
    if (args.mode === "crash") throw new TypeError("cannot read properties of undefined");
    throw "a bare string";
  },
});

const allowAll: PolicyCheck = () => ({ allow: true });

describe("tool registry", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  afterEach(() => ws.cleanup());

  const registry = createToolRegistry([echo, failing]);

  it("gives specs as the model sees them and looks tools up by name", () => {
    const specs = registry.specs();
    expect(specs.map((s) => s.name)).toEqual(["echo", "failing"]);
    expect(specs[0]?.input_schema).toMatchObject({
      type: "object",
      properties: { text: { type: "string", description: "what to echo" } },
      required: ["text"],
    });
    expect(registry.specs()).toBe(specs);
    expect(registry.get("echo")).toBe(echo);
    expect(registry.get("nope")).toBeUndefined();
  });

  it("builds a tool's spec once: another registry of the same tools shares it", () => {
    const again = createToolRegistry([failing, echo]).specs();
    expect(again[1]).toBe(registry.specs()[0]);
    expect(again[0]?.input_schema).toMatchObject({
      properties: { mode: { enum: ["tool", "crash", "string"] } },
    });
  });

  it("refuses duplicate names", () => {
    expect(() => createToolRegistry([echo, echo])).toThrow(/registered twice/);
  });

  it("runs a valid, allowed call", async () => {
    const result = await executeToolCall(
      registry,
      { id: "1", name: "echo", input: { text: "hi" } },
      ws.ctx,
      allowAll,
    );
    expect(result).toEqual({ content: "hi", isError: false });
  });

  it("returns an error result for an unknown tool, naming the real ones", async () => {
    const result = await executeToolCall(
      registry,
      { id: "1", name: "delete_everything", input: {} },
      ws.ctx,
      allowAll,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toBe(
      'Unknown tool "delete_everything". Available tools: echo, failing.',
    );
  });

  it("returns a readable error for invalid input, without running the tool", async () => {
    let checked = false;
    const check: PolicyCheck = () => {
      checked = true;
      return { allow: true };
    };
    const result = await executeToolCall(
      registry,
      { id: "1", name: "echo", input: { txt: 1 } },
      ws.ctx,
      check,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Invalid input for echo:/);
    expect(result.content).toContain("text");
    expect(checked).toBe(false);
  });

  it("passes the validated input to the policy and reports a denial", async () => {
    const seen: unknown[] = [];
    const deny: PolicyCheck = (call) => {
      seen.push(call);
      return { allow: false, reason: "echo is not allowed here" };
    };
    const result = await executeToolCall(
      registry,
      { id: "1", name: "echo", input: { text: "hi" } },
      ws.ctx,
      deny,
    );
    expect(result).toEqual({
      content: "Denied by policy: echo is not allowed here",
      isError: true,
    });
    expect(seen).toEqual([{ tool: "echo", input: { text: "hi" } }]);
  });

  it("turns ToolErrors, crashes and thrown non-errors into error results", async () => {
    const run = (mode: string) =>
      executeToolCall(registry, { id: "1", name: "failing", input: { mode } }, ws.ctx, allowAll);
    expect(await run("tool")).toEqual({ content: "do it differently", isError: true });
    expect(await run("crash")).toEqual({
      content: "failing failed: cannot read properties of undefined",
      isError: true,
    });
    expect(await run("string")).toEqual({
      content: "failing failed: a bare string",
      isError: true,
    });
  });

  it("shows a file-system failure without the workspace's host path, with what to do", async () => {
    const reader = defineTool({
      name: "reader",
      description: "Reads a file the plain way",
      input: z.object({}),
      summarize: () => "reader",
      run: async (_args, ctx) => readFile(join(ctx.root, "src/missing.ts"), "utf8"),
    });
    const result = await executeToolCall(
      createToolRegistry([reader]),
      { id: "1", name: "reader", input: {} },
      ws.ctx,
      allowAll,
    );
    expect(result).toEqual({
      content: "reader failed: ENOENT: no such file or directory, open 'src/missing.ts'",
      isError: true,
    });
  });

  it("lists the tool's fields when the input is invalid", async () => {
    const result = await executeToolCall(
      createToolRegistry(defaultTools()),
      { id: "1", name: "edit_file", input: { path: "a.ts", old_str: "a", new_str: "b" } },
      ws.ctx,
      allowAll,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toContain(
      "edit_file takes: file_path (string), old_string (string), new_string (string), replace_all (boolean, optional).",
    );
  });

  it("turns a throwing policy into an error result", async () => {
    const broken: PolicyCheck = () => {
      throw new Error("rules file unreadable");
    };
    const result = await executeToolCall(
      registry,
      { id: "1", name: "echo", input: { text: "x" } },
      ws.ctx,
      broken,
    );
    expect(result).toEqual({ content: "echo failed: rules file unreadable", isError: true });
  });

  it("truncates long output, keeping head and tail", async () => {
    const text = `BEGIN${"x".repeat(100_000)}END`;
    const result = await executeToolCall(
      registry,
      { id: "1", name: "echo", input: { text } },
      ws.ctx,
      allowAll,
    );
    expect(result.content.length).toBeLessThan(51_000);
    expect(result.content.startsWith("BEGIN")).toBe(true);
    expect(result.content.endsWith("END")).toBe(true);
    expect(result.content).toContain("characters cut");
  });

  it("never throws for the real tools either", async () => {
    const real = createToolRegistry(defaultTools());
    const outside = await executeToolCall(
      real,
      { id: "1", name: "read_file", input: { file_path: "../../etc/passwd" } },
      ws.ctx,
      allowAll,
    );
    expect(outside.isError).toBe(true);
    expect(outside.content).toMatch(/outside the workspace/);
    const tooLong = await executeToolCall(
      real,
      { id: "2", name: "run_shell", input: { command: "true", timeout: 6000 } },
      ws.ctx,
      allowAll,
    );
    expect(tooLong.isError).toBe(true);
    expect(tooLong.content).toMatch(/timeout/);
  });
});

describe("defaultTools", () => {
  it("has the six tools in order, with the right flags", () => {
    const tools = defaultTools();
    expect(tools.map((t) => [t.name, t.readOnly, t.concurrencySafe])).toEqual([
      ["read_file", true, true],
      ["write_file", false, false],
      ["edit_file", false, false],
      ["list_files", true, true],
      ["grep_search", true, true],
      ["run_shell", false, false],
    ]);
  });

  it("exposes the contract's input fields, each described", () => {
    const specs = createToolRegistry(defaultTools()).specs();
    const fields = Object.fromEntries(
      specs.map((s) => [s.name, Object.keys(s.input_schema.properties as Record<string, unknown>)]),
    );
    expect(fields).toEqual({
      read_file: ["file_path", "offset", "limit"],
      write_file: ["file_path", "content"],
      edit_file: ["file_path", "old_string", "new_string", "replace_all"],
      list_files: ["pattern", "path"],
      // case_insensitive: optional, added beside the contract's fields.
      grep_search: ["pattern", "path", "include", "case_insensitive"],
      run_shell: ["command", "timeout"],
    });
    for (const spec of specs) {
      const properties = spec.input_schema.properties as Record<string, { description?: string }>;
      for (const [name, property] of Object.entries(properties)) {
        expect(property.description, `${spec.name}.${name}`).toBeTruthy();
      }
      expect(spec.description.length).toBeGreaterThan(40);
    }
  });

  it("summarizes calls in one line", () => {
    const [read, write, edit, list, grep, shell] = defaultTools();
    expect(read?.summarize({ file_path: "src/a.ts" })).toBe("read_file src/a.ts");
    expect(write?.summarize({ file_path: "b.ts", content: "x" })).toBe("write_file b.ts");
    expect(edit?.summarize({ file_path: "src/a.ts", old_string: "a", new_string: "b" })).toBe(
      "edit_file src/a.ts",
    );
    expect(list?.summarize({ pattern: "**/*.ts" })).toBe("list_files **/*.ts");
    expect(grep?.summarize({ pattern: "TODO", path: "src" })).toBe("grep_search TODO in src");
    expect(shell?.summarize({ command: "npm test" })).toBe("run_shell npm test");
  });
});
