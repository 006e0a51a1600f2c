import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFileTool } from "../../../../src/agent/tools/fs/read-file.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

describe("read_file", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("numbers lines with a right-aligned six-column prefix", async () => {
    await ws.write("a.txt", "first\nsecond\n");
    const out = await readFileTool.run({ file_path: "a.txt" }, ws.ctx);
    expect(out).toBe("     1 | first\n     2 | second");
  });

  it("records the read as the content's hash and the mode", async () => {
    await ws.write("a.txt", "hello\n");
    await readFileTool.run({ file_path: "a.txt" }, ws.ctx);
    const info = await stat(join(ws.root, "a.txt"));
    expect(ws.ctx.reads.get(join(ws.root, "a.txt"))).toEqual({
      hash: createHash("sha256").update("hello\n").digest("hex"),
      mode: info.mode,
    });
  });

  it("pages with offset and limit and says how to continue", async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`);
    await ws.write("long.txt", `${lines.join("\n")}\n`);
    const out = await readFileTool.run({ file_path: "long.txt", offset: 10, limit: 3 }, ws.ctx);
    expect(out.split("\n")).toEqual([
      "    10 | line 10",
      "    11 | line 11",
      "    12 | line 12",
      "[lines 10-12 of 50 shown; call read_file with offset 13 to read more]",
    ]);
  });

  it("returns 2000 lines by default", async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `l${i + 1}`);
    await ws.write("big.txt", lines.join("\n"));
    const out = await readFileTool.run({ file_path: "big.txt" }, ws.ctx);
    expect(out).toContain("  2000 | l2000");
    expect(out).not.toContain("l2001\n");
    expect(out).toContain("offset 2001");
  });

  it("cuts very long lines", async () => {
    await ws.write("min.js", `${"x".repeat(5000)}\n`);
    const out = await readFileTool.run({ file_path: "min.js" }, ws.ctx);
    expect(out).toContain("[3000 more characters on this line]");
    expect(out).toContain("line 1 is longer than 2000 characters");
    expect(out).toContain("cut -c2001-8000");
    expect(out.length).toBeLessThan(2600);
  });

  it("shows CRLF files without carriage returns", async () => {
    await ws.write("win.txt", "a\r\nb\r\n");
    expect(await readFileTool.run({ file_path: "win.txt" }, ws.ctx)).toBe("     1 | a\n     2 | b");
  });

  it("refuses binary files: NUL bytes and invalid UTF-8", async () => {
    await ws.write("img.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await ws.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    await expect(readFileTool.run({ file_path: "img.png" }, ws.ctx)).rejects.toThrow(/binary/);
    await expect(readFileTool.run({ file_path: "latin1.txt" }, ws.ctx)).rejects.toThrow(
      /not valid UTF-8 \(byte 0xE9 on line 1\).*Latin-1.*iconv -f LATIN1/,
    );
    expect(ws.ctx.reads.size).toBe(0);
  });

  it("explains missing files, folders, empty files and offsets past the end", async () => {
    await ws.write("dir/x.txt", "x\n");
    await ws.write("empty.txt", "");
    await expect(readFileTool.run({ file_path: "nope.txt" }, ws.ctx)).rejects.toThrow(
      /does not exist/,
    );
    await expect(readFileTool.run({ file_path: "dir" }, ws.ctx)).rejects.toThrow(/is a directory/);
    expect(await readFileTool.run({ file_path: "empty.txt" }, ws.ctx)).toMatch(/empty/);
    await expect(readFileTool.run({ file_path: "dir/x.txt", offset: 5 }, ws.ctx)).rejects.toThrow(
      /past the end.*has 1 line; call read_file with an offset from 1 to 1/,
    );
  });

  it("refuses paths outside the workspace", async () => {
    await expect(readFileTool.run({ file_path: "/etc/hostname" }, ws.ctx)).rejects.toThrow(
      /outside/,
    );
    await expect(readFileTool.run({ file_path: "../secret" }, ws.ctx)).rejects.toThrow(/outside/);
  });
});
