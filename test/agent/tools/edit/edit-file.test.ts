import { readFile, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editFileTool } from "../../../../src/agent/tools/edit/edit-file.js";
import { readFileTool } from "../../../../src/agent/tools/fs/read-file.js";
import { stampOf } from "../../../../src/agent/tools/fs/read-guard.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

describe("edit_file", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  afterEach(() => ws.cleanup());

  async function readAndEdit(
    path: string,
    content: string | Buffer,
    edit: { old_string: string; new_string: string; replace_all?: boolean },
  ): Promise<string> {
    await ws.write(path, content);
    await readFileTool.run({ file_path: path }, ws.ctx);
    return editFileTool.run({ file_path: path, ...edit }, ws.ctx);
  }

  const contents = (path: string): Promise<string> => readFile(join(ws.root, path), "utf8");

  it("replaces a unique match, returns a diff and records the change", async () => {
    const out = await readAndEdit("a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n", {
      old_string: "const b = 2;",
      new_string: "const b = 20;",
    });
    expect(await contents("a.ts")).toBe("const a = 1;\nconst b = 20;\nconst c = 3;\n");
    expect(out).toContain("Edited a.ts: replaced 1 occurrence.");
    expect(out).toContain("--- a/a.ts");
    expect(out).toContain("+++ b/a.ts");
    expect(out).toContain("-const b = 2;");
    expect(out).toContain("+const b = 20;");
    expect(ws.changes).toEqual([
      {
        path: "a.ts",
        before: Buffer.from("const a = 1;\nconst b = 2;\nconst c = 3;\n"),
        after: Buffer.from("const a = 1;\nconst b = 20;\nconst c = 3;\n"),
      },
    ]);
  });

  it("updates the read stamp so a second edit needs no new read", async () => {
    await readAndEdit("a.txt", "one two\n", { old_string: "one", new_string: "1" });
    await editFileTool.run({ file_path: "a.txt", old_string: "two", new_string: "2" }, ws.ctx);
    expect(await contents("a.txt")).toBe("1 2\n");
    const info = await stat(join(ws.root, "a.txt"));
    expect(ws.ctx.reads.get(join(ws.root, "a.txt"))).toEqual(stampOf(Buffer.from("1 2\n"), info));
  });

  it("treats old_string literally, and $ patterns in new_string literally", async () => {
    await readAndEdit("r.txt", "price: a.*b (x)\n", {
      old_string: "a.*b (x)",
      new_string: "$& $1 $$",
    });
    expect(await contents("r.txt")).toBe("price: $& $1 $$\n");
  });

  it("refuses an ambiguous match and says how to fix the call", async () => {
    const promise = readAndEdit("d.txt", "x = 1\ny = 2\nx = 1\nx = 1\n", {
      old_string: "x = 1",
      new_string: "x = 9",
    });
    await expect(promise).rejects.toThrow(
      /found 3 matches.*lines 1, 3, 4.*add surrounding lines to old_string.*unique.*replace_all/,
    );
    expect(await contents("d.txt")).toBe("x = 1\ny = 2\nx = 1\nx = 1\n");
    expect(ws.changes).toEqual([]);
  });

  it("replaces every match with replace_all", async () => {
    const out = await readAndEdit("d.txt", "x = 1\ny = 2\nx = 1\n", {
      old_string: "x = 1",
      new_string: "x = 9",
      replace_all: true,
    });
    expect(await contents("d.txt")).toBe("x = 9\ny = 2\nx = 9\n");
    expect(out).toContain("replaced 2 occurrences");
  });

  it("reports zero matches with a hint", async () => {
    await expect(
      readAndEdit("a.txt", "hello\n", { old_string: "bye", new_string: "x" }),
    ).rejects.toThrow(/not found in a\.txt.*read_file again/);
    await expect(
      editFileTool.run({ file_path: "a.txt", old_string: "hello  ", new_string: "x" }, ws.ctx),
    ).rejects.toThrow(/whitespace/);
  });

  it("refuses identical strings and an empty old_string", async () => {
    await expect(
      readAndEdit("a.txt", "hello\n", { old_string: "hello", new_string: "hello" }),
    ).rejects.toThrow(/identical/);
    await expect(
      editFileTool.run({ file_path: "a.txt", old_string: "", new_string: "x" }, ws.ctx),
    ).rejects.toThrow(/write_file/);
  });

  it("refuses a file that was not read", async () => {
    await ws.write("a.txt", "hello\n");
    await expect(
      editFileTool.run({ file_path: "a.txt", old_string: "hello", new_string: "bye" }, ws.ctx),
    ).rejects.toThrow(/has not been read yet; call read_file/);
    expect(await contents("a.txt")).toBe("hello\n");
  });

  it("refuses a file changed on disk since the read, even at the same size", async () => {
    await ws.write("a.txt", "hello\n");
    await readFileTool.run({ file_path: "a.txt" }, ws.ctx);
    await ws.write("a.txt", "jello\n");
    const later = new Date(Date.now() + 60_000);
    await utimes(join(ws.root, "a.txt"), later, later);
    await expect(
      editFileTool.run({ file_path: "a.txt", old_string: "ello", new_string: "i" }, ws.ctx),
    ).rejects.toThrow(/changed on disk since you last read it/);
    expect(await contents("a.txt")).toBe("jello\n");
  });

  it("refuses a same-size change whose mtime a command set back to what the read saw", async () => {
    await ws.write("a.txt", "hello\n");
    await readFileTool.run({ file_path: "a.txt" }, ws.ctx);
    const seen = await stat(join(ws.root, "a.txt"));
    await ws.write("a.txt", "jello\n");
    await utimes(join(ws.root, "a.txt"), seen.atime, seen.mtime);
    await expect(
      editFileTool.run({ file_path: "a.txt", old_string: "ello", new_string: "i" }, ws.ctx),
    ).rejects.toThrow(/changed on disk since you last read it/);
  });

  it("keeps CRLF line endings when the model writes \\n", async () => {
    await readAndEdit("win.txt", "one\r\ntwo\r\nthree\r\n", {
      old_string: "one\ntwo",
      new_string: "one\ntwo and a half\nmore",
    });
    expect(await contents("win.txt")).toBe("one\r\ntwo and a half\r\nmore\r\nthree\r\n");
  });

  it("leaves LF files with LF endings", async () => {
    await readAndEdit("unix.txt", "a\nb\n", { old_string: "a\nb", new_string: "a\nx\nb" });
    expect(await contents("unix.txt")).toBe("a\nx\nb\n");
  });

  it("keeps a UTF-8 byte order mark", async () => {
    await readAndEdit("bom.txt", "\uFEFFhello\n", { old_string: "hello", new_string: "bye" });
    const bytes = await readFile(join(ws.root, "bom.txt"));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.subarray(3).toString()).toBe("bye\n");
  });

  it("caps long diffs", async () => {
    const before = Array.from({ length: 200 }, (_, i) => `old ${i}`).join("\n");
    await ws.write("many.txt", before);
    await readFileTool.run({ file_path: "many.txt" }, ws.ctx);
    const out = await editFileTool.run(
      { file_path: "many.txt", old_string: "old", new_string: "new", replace_all: true },
      ws.ctx,
    );
    expect(out).toMatch(/\[\.\.\. \d+ more diff lines not shown\]/);
    expect(out.split("\n").length).toBeLessThan(70);
  });

  it("never edits .git or binary files", async () => {
    ws.git("init", "-q");
    await expect(
      editFileTool.run({ file_path: ".git/config", old_string: "[core]", new_string: "x" }, ws.ctx),
    ).rejects.toThrow(/\.git/);
    await ws.write("bin.dat", Buffer.from([0x61, 0x00, 0x62]));
    ws.ctx.reads.set(
      join(ws.root, "bin.dat"),
      stampOf(Buffer.from([0x61, 0x00, 0x62]), await stat(join(ws.root, "bin.dat"))),
    );
    await expect(
      editFileTool.run({ file_path: "bin.dat", old_string: "a", new_string: "c" }, ws.ctx),
    ).rejects.toThrow(/binary/);
  });
});
