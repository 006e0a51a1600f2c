import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileTool } from "../../../../src/agent/tools/edit/write-file.js";
import { readFileTool } from "../../../../src/agent/tools/fs/read-file.js";
import { stampOf } from "../../../../src/agent/tools/fs/read-guard.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

describe("write_file", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("creates a new file and its folders, and records the change", async () => {
    const out = await writeFileTool.run(
      { file_path: "src/deep/new.ts", content: "export {};\n" },
      ws.ctx,
    );
    expect(out).toMatch(/Created src\/deep\/new\.ts \(1 lines/);
    expect(await readFile(join(ws.root, "src/deep/new.ts"), "utf8")).toBe("export {};\n");
    expect(ws.changes).toEqual([
      { path: "src/deep/new.ts", before: null, after: Buffer.from("export {};\n") },
    ]);
    const info = await stat(join(ws.root, "src/deep/new.ts"));
    expect(ws.ctx.reads.get(join(ws.root, "src/deep/new.ts"))).toEqual(
      stampOf(Buffer.from("export {};\n"), info),
    );
  });

  it("refuses to overwrite a file that was not read", async () => {
    await ws.write("a.txt", "old\n");
    await expect(
      writeFileTool.run({ file_path: "a.txt", content: "new\n" }, ws.ctx),
    ).rejects.toThrow(/read_file/);
    expect(await readFile(join(ws.root, "a.txt"), "utf8")).toBe("old\n");
    expect(ws.changes).toEqual([]);
  });

  it("refuses to overwrite a file seen only in part, until every part was read", async () => {
    await ws.write("a.txt", "1\n2\n3\n4\n");
    await readFileTool.run({ file_path: "a.txt", offset: 3 }, ws.ctx);
    await expect(
      writeFileTool.run({ file_path: "a.txt", content: "new\n" }, ws.ctx),
    ).rejects.toThrow(
      "write_file replaces all of a.txt, but you have seen only lines 3-4 of its 4 lines, so the rest would be lost. Read the rest first (read_file with offset 1)",
    );
    await readFileTool.run({ file_path: "a.txt", limit: 2 }, ws.ctx);
    expect(await writeFileTool.run({ file_path: "a.txt", content: "new\n" }, ws.ctx)).toMatch(
      /^Overwrote a\.txt/,
    );
  });

  it("overwrites a file that was read and not changed since", async () => {
    await ws.write("a.txt", "old\n");
    await readFileTool.run({ file_path: "a.txt" }, ws.ctx);
    const out = await writeFileTool.run({ file_path: "a.txt", content: "new\n" }, ws.ctx);
    expect(out).toMatch(/Overwrote a\.txt/);
    expect(ws.changes).toEqual([
      { path: "a.txt", before: Buffer.from("old\n"), after: Buffer.from("new\n") },
    ]);
  });

  it("refuses to overwrite a file changed on disk after the read", async () => {
    await ws.write("a.txt", "old\n");
    await readFileTool.run({ file_path: "a.txt" }, ws.ctx);
    await ws.write("a.txt", "other\n");
    await expect(
      writeFileTool.run({ file_path: "a.txt", content: "new\n" }, ws.ctx),
    ).rejects.toThrow(/changed on disk/);
  });

  it("can rewrite its own file without a read in between", async () => {
    await writeFileTool.run({ file_path: "a.txt", content: "1\n" }, ws.ctx);
    await writeFileTool.run({ file_path: "a.txt", content: "2\n" }, ws.ctx);
    expect(await readFile(join(ws.root, "a.txt"), "utf8")).toBe("2\n");
    expect(ws.changes.map((c) => c.after?.toString())).toEqual(["1\n", "2\n"]);
  });

  it("never writes under .git or outside the workspace", async () => {
    ws.git("init", "-q");
    await expect(
      writeFileTool.run({ file_path: ".git/config", content: "x" }, ws.ctx),
    ).rejects.toThrow(/\.git/);
    await expect(
      writeFileTool.run({ file_path: ".git/hooks/pre-commit", content: "x" }, ws.ctx),
    ).rejects.toThrow(/\.git/);
    await expect(
      writeFileTool.run({ file_path: "../escape.txt", content: "x" }, ws.ctx),
    ).rejects.toThrow(/outside/);
    expect(ws.changes).toEqual([]);
  });
});
