import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../src/agent/prompt.js";
import { readGitInfo, readInstructionFiles } from "../../src/agent/prompt-context.js";
import { buildShellEnv } from "../../src/agent/tools/shell-env.js";
import { git, makeRepo, makeTempDir } from "../helpers/temp-dir.js";

// The environment the agent session really gives these helpers (it sets GIT_PAGER and GIT_EDITOR).
const env = buildShellEnv({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/tmp",
});

describe("system prompt", () => {
  it("orders parts from stable to variable: rules, instructions, then the environment", () => {
    const parts = buildSystemPrompt({
      cwd: "/work/repo",
      date: new Date("2026-11-29T10:00:00Z"),
      platform: "linux",
      git: { branch: "main", status: " M src/a.ts", recentCommits: "abc123 first" },
      instructions: [{ path: "AGENTS.md", content: "Use tabs." }],
    });
    expect(parts).toHaveLength(3);
    expect(parts[0]).toMatch(/Read a file with read_file before you edit it/);
    expect(parts[1]).toContain('<instructions path="AGENTS.md">\nUse tabs.\n</instructions>');
    expect(parts[2]).toContain("Working directory: /work/repo");
    expect(parts[2]).toContain("Date: 2026-11-29");
    expect(parts[2]).toContain("Git branch: main");
    expect(parts[2]).toContain("M src/a.ts");
    expect(parts[2]).toContain("abc123 first");
  });

  it("keeps the first part identical across runs so the cache prefix holds", () => {
    const a = buildSystemPrompt({
      cwd: "/a",
      date: new Date(0),
      platform: "linux",
      instructions: [],
    });
    const b = buildSystemPrompt({
      cwd: "/b",
      date: new Date(1e12),
      platform: "darwin",
      instructions: [],
    });
    expect(a[0]).toBe(b[0]);
    expect(a.at(-1)).toContain("Not a git repository.");
  });

  it("reads AGENTS.md and CLAUDE.md from the root down to cwd, ancestors first", async () => {
    const root = await makeTempDir();
    await mkdir(join(root, "pkg", "web"), { recursive: true });
    await writeFile(join(root, "AGENTS.md"), "root agents");
    await writeFile(join(root, "pkg", "CLAUDE.md"), "pkg claude");
    await writeFile(join(root, "pkg", "web", "AGENTS.md"), "web agents");
    await writeFile(join(root, "pkg", "web", "CLAUDE.md"), "   ");
    const files = await readInstructionFiles(root, join(root, "pkg", "web"));
    expect(files).toEqual([
      { path: "AGENTS.md", content: "root agents" },
      { path: "pkg/CLAUDE.md", content: "pkg claude" },
      { path: "pkg/web/AGENTS.md", content: "web agents" },
    ]);
  });

  it("reads branch, status and recent commits, or nothing outside git", async () => {
    const repo = await makeRepo({ "a.txt": "a" });
    await writeFile(join(repo, "b.txt"), "b");
    const info = await readGitInfo(repo, env);
    expect(info?.branch).toBe("main");
    expect(info?.status).toContain("?? b.txt");
    expect(info?.recentCommits).toMatch(/initial/);
    expect(await readGitInfo(await makeTempDir(), env)).toBeUndefined();
  });

  it("names a detached HEAD and a repository without commits", async () => {
    const repo = await makeRepo({ "a.txt": "a" });
    git(repo, "checkout", "--quiet", "--detach");
    expect((await readGitInfo(repo, env))?.branch).toBe("HEAD (detached)");
    const empty = await makeTempDir();
    git(empty, "init", "--quiet", "--initial-branch=main");
    await writeFile(join(empty, "x.txt"), "x");
    expect(await readGitInfo(empty, env)).toEqual({
      branch: "(no commits yet)",
      status: "?? x.txt",
      recentCommits: "",
    });
  });
});
