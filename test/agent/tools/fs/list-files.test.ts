import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listFilesTool } from "../../../../src/agent/tools/fs/list-files.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

async function seed(ws: TestWorkspace): Promise<void> {
  await ws.write(".gitignore", "dist/\n*.log\n");
  await ws.write("src/a.ts", "export const a = 1;\n");
  await ws.write("src/b/c.ts", "export const c = 1;\n");
  await ws.write("src/b/c.test.ts", "test\n");
  await ws.write("README.md", "# readme\n");
  await ws.write("gone.ts", "deleted later\n");
  await ws.write("dist/out.ts", "built\n");
  await ws.write("debug.log", "log\n");
  // Not ignored on purpose: node_modules must never show even so.
  await ws.write("node_modules/pkg/index.ts", "dep\n");
  await ws.write(".github/workflows/ci.yml", "on: push\n");
}

describe("list_files in a git repository", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace({ git: true });
    await seed(ws);
    ws.git("add", "--", ".gitignore", "src", "README.md", "gone.ts");
    ws.git("commit", "-q", "-m", "init");
    await rm(join(ws.root, "gone.ts"));
    await ws.write("untracked.ts", "new\n");
  });
  afterEach(() => ws.cleanup());

  it("lists tracked and untracked files, sorted, honouring .gitignore", async () => {
    const out = await listFilesTool.run({ pattern: "**/*.ts" }, ws.ctx);
    expect(out.split("\n")).toEqual(["src/a.ts", "src/b/c.test.ts", "src/b/c.ts", "untracked.ts"]);
  });

  it("never lists node_modules, .git, ignored or deleted files", async () => {
    const out = await listFilesTool.run({ pattern: "**" }, ws.ctx);
    expect(out).not.toMatch(/node_modules|\.git\/|dist\/|debug\.log|gone\.ts/);
    expect(out).toContain(".gitignore");
    expect(out).toContain(".github/workflows/ci.yml");
  });

  it("matches a pattern without a slash against file names at any depth", async () => {
    const out = await listFilesTool.run({ pattern: "*.test.ts" }, ws.ctx);
    expect(out).toBe("src/b/c.test.ts");
    expect(await listFilesTool.run({ pattern: "*.{md,yml}" }, ws.ctx)).toBe(
      ".github/workflows/ci.yml\nREADME.md",
    );
  });

  it("matches relative to path, and returns paths relative to the root", async () => {
    expect(await listFilesTool.run({ pattern: "b/*.ts", path: "src" }, ws.ctx)).toBe(
      "src/b/c.test.ts\nsrc/b/c.ts",
    );
    expect(await listFilesTool.run({ pattern: "*.ts", path: "src/b" }, ws.ctx)).toBe(
      "src/b/c.test.ts\nsrc/b/c.ts",
    );
  });

  it("takes folder names with glob characters literally", async () => {
    await ws.write("app/[id]/page.tsx", "x");
    await ws.write("app/i/other.tsx", "x");
    expect(await listFilesTool.run({ pattern: "*.tsx", path: "app/[id]" }, ws.ctx)).toBe(
      "app/[id]/page.tsx",
    );
  });

  it("says so when nothing matches, and explains bad paths", async () => {
    expect(await listFilesTool.run({ pattern: "**/*.py" }, ws.ctx)).toMatch(
      /^No files match "\*\*\/\*\.py" in the workspace\. A pattern without "\/" matches file names at any depth/,
    );
    await expect(listFilesTool.run({ pattern: "*", path: "nope" }, ws.ctx)).rejects.toThrow(
      /does not exist/,
    );
    await expect(listFilesTool.run({ pattern: "*", path: "README.md" }, ws.ctx)).rejects.toThrow(
      /is a file/,
    );
    await expect(listFilesTool.run({ pattern: "*", path: "../" }, ws.ctx)).rejects.toThrow(
      /outside/,
    );
  });

  it("caps the list at 200 with a count of the rest", async () => {
    await Promise.all(
      Array.from({ length: 250 }, (_, i) =>
        ws.write(`gen/f${String(i).padStart(3, "0")}.txt`, "x"),
      ),
    );
    const out = await listFilesTool.run({ pattern: "gen/*.txt" }, ws.ctx);
    const lines = out.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines[0]).toBe("gen/f000.txt");
    expect(lines[199]).toBe("gen/f199.txt");
    expect(lines[200]).toBe("[50 more files not shown; narrow the pattern or the path]");
  });
});

describe("list_files outside a git repository", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
    await seed(ws);
  });
  afterEach(() => ws.cleanup());

  it("walks the folder, skipping node_modules and .git", async () => {
    await ws.write(".git/config", "x");
    const out = await listFilesTool.run({ pattern: "**/*.ts" }, ws.ctx);
    expect(out.split("\n")).toEqual([
      "dist/out.ts",
      "gone.ts",
      "src/a.ts",
      "src/b/c.test.ts",
      "src/b/c.ts",
    ]);
    expect(await listFilesTool.run({ pattern: "**/config" }, ws.ctx)).toMatch(/No files match/);
  });
});
