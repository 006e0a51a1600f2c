import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grepSearchTool } from "../../../../src/agent/tools/grep/grep-search.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

async function seed(ws: TestWorkspace): Promise<void> {
  await ws.write(".gitignore", "dist/\n");
  await ws.write("src/a.ts", "export const answer = 42;\nconst other = 1;\n");
  await ws.write("src/b/c.tsx", "// TODO: answer later\n");
  await ws.write("docs/notes.md", "the answer is 42\n");
  await ws.write("dist/out.js", "const answer = 42;\n");
  await ws.write("node_modules/pkg/index.js", "const answer = 42;\n");
  await ws.write("logo.bin", Buffer.from([0x61, 0x6e, 0x73, 0x77, 0x65, 0x72, 0x00, 0x01]));
  await ws.write("win.txt", "answer\r\n");
}

describe("grep_search in a git repository", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace({ git: true });
    await seed(ws);
    ws.git("add", "--", ".gitignore", "src");
    ws.git("commit", "-q", "-m", "init");
  });
  afterEach(() => ws.cleanup());

  it("finds matches in tracked and untracked files as path:line:text", async () => {
    const out = await grepSearchTool.run({ pattern: "answer" }, ws.ctx);
    expect(out.split("\n").sort()).toEqual([
      "docs/notes.md:1:the answer is 42",
      "src/a.ts:1:export const answer = 42;",
      "src/b/c.tsx:1:// TODO: answer later",
      "win.txt:1:answer",
    ]);
  });

  it("skips ignored files, node_modules and binary files", async () => {
    const out = await grepSearchTool.run({ pattern: "answer" }, ws.ctx);
    expect(out).not.toMatch(/dist\/|node_modules|logo\.bin/);
  });

  it("takes extended regular expressions, including \\d", async () => {
    expect(await grepSearchTool.run({ pattern: "answer = \\d+;$" }, ws.ctx)).toBe(
      "src/a.ts:1:export const answer = 42;",
    );
    expect(
      (await grepSearchTool.run({ pattern: "(TODO|other)" }, ws.ctx)).split("\n"),
    ).toHaveLength(2);
  });

  it("filters by include glob, with braces, and by path", async () => {
    expect(await grepSearchTool.run({ pattern: "answer", include: "*.ts" }, ws.ctx)).toBe(
      "src/a.ts:1:export const answer = 42;",
    );
    const both = await grepSearchTool.run({ pattern: "answer", include: "*.{ts,tsx}" }, ws.ctx);
    expect(both.split("\n").sort()).toEqual([
      "src/a.ts:1:export const answer = 42;",
      "src/b/c.tsx:1:// TODO: answer later",
    ]);
    expect(await grepSearchTool.run({ pattern: "answer", path: "src/b" }, ws.ctx)).toBe(
      "src/b/c.tsx:1:// TODO: answer later",
    );
    expect(
      await grepSearchTool.run({ pattern: "answer", path: "docs", include: "*.ts" }, ws.ctx),
    ).toMatch(/^No matches/);
    expect(await grepSearchTool.run({ pattern: "42", path: "docs/notes.md" }, ws.ctx)).toBe(
      "docs/notes.md:1:the answer is 42",
    );
  });

  it("takes folder names with glob characters literally, with or without include", async () => {
    await ws.write("app/[id]/page.tsx", "answer\n");
    await ws.write("app/i/other.tsx", "answer\n");
    expect(await grepSearchTool.run({ pattern: "answer", path: "app/[id]" }, ws.ctx)).toBe(
      "app/[id]/page.tsx:1:answer",
    );
    expect(
      await grepSearchTool.run({ pattern: "answer", path: "app/[id]", include: "*.tsx" }, ws.ctx),
    ).toBe("app/[id]/page.tsx:1:answer");
  });

  it("reports no match as a normal result", async () => {
    expect(await grepSearchTool.run({ pattern: "zebra" }, ws.ctx)).toBe(
      "No matches for /zebra/ in the workspace.",
    );
  });

  it("explains an invalid regular expression, saying where", async () => {
    await expect(grepSearchTool.run({ pattern: "foo(" }, ws.ctx)).rejects.toThrow(
      /the pattern \/foo\(\/ is not a valid regular expression: the "\(" at column 4 is never closed.*escape it as \\\(/,
    );
  });

  it("searches without case when asked, and refuses a flag it cannot place", async () => {
    await ws.write("notes.txt", "Answer\nANSWER\n");
    expect(await grepSearchTool.run({ pattern: "^answer$", case_insensitive: true }, ws.ctx)).toBe(
      "notes.txt:1:Answer\nnotes.txt:2:ANSWER\nwin.txt:1:answer",
    );
    await expect(grepSearchTool.run({ pattern: "x(?i)answer" }, ws.ctx)).rejects.toThrow(
      /set case_insensitive: true/,
    );
  });

  it("never reads through a link, even for a pattern without literal text", async () => {
    const outside = await mkdtemp(join(tmpdir(), "grep-outside-"));
    await writeFile(join(outside, "secret.txt"), "token 12345\n");
    await symlink(join(outside, "secret.txt"), join(ws.root, "linked.txt"));
    ws.git("add", "linked.txt");
    expect(await grepSearchTool.run({ pattern: "\\d{5}" }, ws.ctx)).toMatch(/^No matches/);
    expect(await grepSearchTool.run({ pattern: "token" }, ws.ctx)).toMatch(/^No matches/);
    await rm(outside, { recursive: true, force: true });
  });

  it("finds lines in a file too large to hold whole", async () => {
    const big = `${"filler line\n".repeat(1_900_000)}needle here\n`;
    await ws.write("huge.log", big);
    expect(await grepSearchTool.run({ pattern: "needl[e]", path: "huge.log" }, ws.ctx)).toBe(
      "huge.log:1900001:needle here",
    );
  });

  it("treats a pattern starting with a dash as a pattern", async () => {
    await ws.write("flags.txt", "run --verbose\n");
    expect(await grepSearchTool.run({ pattern: "--verbose" }, ws.ctx)).toBe(
      "flags.txt:1:run --verbose",
    );
  });

  it("caps at 100 matches with a count of the rest, and cuts long lines", async () => {
    await ws.write("many.txt", Array.from({ length: 150 }, (_, i) => `hit ${i}`).join("\n"));
    await ws.write("wide.txt", `hit ${"w".repeat(1000)}\n`);
    const out = await grepSearchTool.run({ pattern: "hit", path: "many.txt" }, ws.ctx);
    const lines = out.split("\n");
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe("many.txt:1:hit 0");
    expect(lines[100]).toBe("[50 more matches not shown; narrow the pattern, path or include]");
    const wide = await grepSearchTool.run({ pattern: "hit", path: "wide.txt" }, ws.ctx);
    expect(wide).toMatch(/\.\.\. \[line cut\]$/);
    expect(wide.length).toBeLessThan(350);
  });

  it("refuses paths outside the workspace", async () => {
    await expect(grepSearchTool.run({ pattern: "root", path: "/etc" }, ws.ctx)).rejects.toThrow(
      /outside/,
    );
  });
});

describe("grep_search outside a git repository", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
    await seed(ws);
  });
  afterEach(() => ws.cleanup());

  it("searches with a bounded walk, skipping node_modules and binary files", async () => {
    const out = await grepSearchTool.run({ pattern: "answer = \\d+" }, ws.ctx);
    expect(out.split("\n").sort()).toEqual([
      "dist/out.js:1:const answer = 42;",
      "src/a.ts:1:export const answer = 42;",
    ]);
    expect(await grepSearchTool.run({ pattern: "answer", include: "*.md" }, ws.ctx)).toBe(
      "docs/notes.md:1:the answer is 42",
    );
  });

  it("explains an invalid regular expression", async () => {
    await expect(grepSearchTool.run({ pattern: "foo(" }, ws.ctx)).rejects.toThrow(
      /not a valid regular expression: the "\(" at column 4 is never closed/,
    );
  });
});
