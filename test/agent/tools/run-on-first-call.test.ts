import { describe, expect, it } from "vitest";
import {
  runOnFirstCall,
  type ToolContext,
  type ToolRun,
} from "../../../src/agent/tools/define-tool.js";
import { defaultTools } from "../../../src/agent/tools/index.js";
import { createWorkspace } from "./tool-context.js";

/** A run that says what it was given, and which load made it. */
function echoRun(loads: { count: number }): ToolRun<{ text: string }> {
  const load = loads.count;
  return async (input) => `${input.text} (load ${load})`;
}

const ctx = {} as ToolContext;

describe("a tool's run loaded at its first call", () => {
  it("loads once, however many calls come, and each call gets its own input", async () => {
    const loads = { count: 0 };
    const run = runOnFirstCall(async () => {
      loads.count++;
      return echoRun(loads);
    });
    expect(loads.count).toBe(0);
    const answers = await Promise.all([
      run({ text: "a" }, ctx),
      run({ text: "b" }, ctx),
      run({ text: "c" }, ctx),
    ]);
    expect(answers).toEqual(["a (load 1)", "b (load 1)", "c (load 1)"]);
    expect(await run({ text: "d" }, ctx)).toBe("d (load 1)");
    expect(loads.count).toBe(1);
  });

  it("fails the call whose load failed, and loads again at the next call", async () => {
    const loads = { count: 0 };
    const run = runOnFirstCall(async () => {
      loads.count++;
      if (loads.count === 1) throw new Error("the chunk could not be read");
      return echoRun(loads);
    });
    await expect(run({ text: "a" }, ctx)).rejects.toThrow("the chunk could not be read");
    expect(await run({ text: "b" }, ctx)).toBe("b (load 2)");
    expect(await run({ text: "c" }, ctx)).toBe("c (load 2)");
  });

  it("gives the built-in tools their work from their own modules", async () => {
    const ws = await createWorkspace();
    try {
      await ws.write("notes.txt", "one\ntwo\n");
      const tools = new Map(defaultTools().map((tool) => [tool.name, tool]));
      const read = await tools.get("read_file")?.run({ file_path: "notes.txt" }, ws.ctx);
      expect(read).toBe("     1 | one\n     2 | two");
      const listed = await tools.get("list_files")?.run({ pattern: "*.txt" }, ws.ctx);
      expect(listed).toContain("notes.txt");
      const edited = await tools
        .get("edit_file")
        ?.run({ file_path: "notes.txt", old_string: "two", new_string: "three" }, ws.ctx);
      expect(edited).toContain("+three");
    } finally {
      await ws.cleanup();
    }
  });
});
