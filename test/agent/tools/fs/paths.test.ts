import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../../../src/agent/tools/define-tool.js";
import { resolveInWorkspace } from "../../../../src/agent/tools/fs/paths.js";
import { createWorkspace, type TestWorkspace } from "../tool-context.js";

describe("resolveInWorkspace", () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace();
  });
  afterEach(() => ws.cleanup());

  it("resolves relative and absolute paths inside the workspace", async () => {
    await ws.write("src/a.ts", "x");
    expect(await resolveInWorkspace(ws.root, "src/a.ts")).toEqual({
      absolute: join(ws.root, "src/a.ts"),
      relative: "src/a.ts",
    });
    expect((await resolveInWorkspace(ws.root, join(ws.root, "src/a.ts"))).relative).toBe(
      "src/a.ts",
    );
    expect((await resolveInWorkspace(ws.root, "./src/../src/a.ts")).relative).toBe("src/a.ts");
    expect((await resolveInWorkspace(ws.root, ".")).relative).toBe(".");
  });

  it("accepts paths that do not exist yet", async () => {
    const resolved = await resolveInWorkspace(ws.root, "new/deep/file.ts", { forWrite: true });
    expect(resolved).toEqual({
      absolute: join(ws.root, "new/deep/file.ts"),
      relative: "new/deep/file.ts",
    });
  });

  it("refuses .. escapes and absolute paths outside", async () => {
    await expect(resolveInWorkspace(ws.root, "../x")).rejects.toThrow(/outside the workspace/);
    await expect(resolveInWorkspace(ws.root, "src/../../x")).rejects.toThrow(ToolError);
    await expect(resolveInWorkspace(ws.root, "/etc/passwd")).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it("allows names that merely start with two dots", async () => {
    expect((await resolveInWorkspace(ws.root, "..config")).relative).toBe("..config");
  });

  it("refuses symlinks that point outside, for files and folders", async () => {
    await symlink("/etc", join(ws.root, "etc-link"));
    await symlink("/etc/passwd", join(ws.root, "passwd"));
    await expect(resolveInWorkspace(ws.root, "etc-link/passwd")).rejects.toThrow(/symlink/);
    await expect(resolveInWorkspace(ws.root, "passwd")).rejects.toThrow(/symlink/);
    await expect(
      resolveInWorkspace(ws.root, "etc-link/new-file", { forWrite: true }),
    ).rejects.toThrow(/outside the workspace/);
  });

  it("follows a dangling symlink to its target before deciding", async () => {
    await symlink("/nonexistent-patchwright-target/file", join(ws.root, "dangling"));
    await expect(resolveInWorkspace(ws.root, "dangling", { forWrite: true })).rejects.toThrow(
      /outside the workspace/,
    );
  });

  it("accepts symlinks that stay inside", async () => {
    await ws.write("real/a.txt", "x");
    await symlink(join(ws.root, "real"), join(ws.root, "alias"));
    expect((await resolveInWorkspace(ws.root, "alias/a.txt")).relative).toBe("real/a.txt");
  });

  it("refuses writes under .git, including a worktree's .git file, but allows reads", async () => {
    await mkdir(join(ws.root, ".git"));
    await writeFile(join(ws.root, ".git/config"), "[core]\n");
    await expect(resolveInWorkspace(ws.root, ".git/config", { forWrite: true })).rejects.toThrow(
      /\.git/,
    );
    await expect(resolveInWorkspace(ws.root, ".git", { forWrite: true })).rejects.toThrow(/\.git/);
    await expect(
      resolveInWorkspace(ws.root, "sub/.GIT/hooks/pre-commit", { forWrite: true }),
    ).rejects.toThrow(/\.git/);
    expect((await resolveInWorkspace(ws.root, ".git/config")).relative).toBe(".git/config");
    expect(
      (await resolveInWorkspace(ws.root, ".github/workflows/ci.yml", { forWrite: true })).relative,
    ).toBe(".github/workflows/ci.yml");
  });

  it("refuses a symlink that leads into .git for writing", async () => {
    await mkdir(join(ws.root, ".git"));
    await symlink(join(ws.root, ".git"), join(ws.root, "meta"));
    await expect(resolveInWorkspace(ws.root, "meta/config", { forWrite: true })).rejects.toThrow(
      /\.git/,
    );
  });

  it("refuses empty paths", async () => {
    await expect(resolveInWorkspace(ws.root, "  ")).rejects.toThrow(/empty/);
  });
});
