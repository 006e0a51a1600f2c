import { execFileSync } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureWorkspaceTree } from "../../../src/git/tree/exact-tree.js";
import { commitDrift, findCommitDrift } from "../../../src/git/tree/tree-guard.js";
import { git, makeRepo, makeTempDir } from "../../helpers/temp-dir.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const identity = { name: "patchwright", email: "bot@example.com" };

/** Commits exact contents (null deletes) without touching the working tree, as the commit builder does. */
function commitContents(dir: string, files: Record<string, string | null>, message: string) {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) {
      git(dir, "update-index", "--force-remove", path);
      continue;
    }
    const sha = execGit(dir, ["hash-object", "-w", "--stdin"], content);
    git(dir, "update-index", "--add", "--cacheinfo", `100644,${sha},${path}`);
  }
  git(dir, "commit", "-q", "-m", message);
}

function execGit(dir: string, args: string[], input: string): string {
  return execFileSync("git", args, { cwd: dir, input, encoding: "utf8" }).trim();
}

async function workspace(files: Record<string, string>) {
  const dir = await makeRepo(files);
  const base = git(dir, "rev-parse", "HEAD").trim();
  return { dir, base, tree: () => captureWorkspaceTree(dir, env) };
}

describe("findCommitDrift", () => {
  it("finds a commit that reverted the agent's change, and a file the commits missed", async () => {
    const ws = await workspace({ "src/sum.js": "return a - b;\n", "README.md": "# calc\n" });
    const start = await ws.tree();
    await writeFile(join(ws.dir, "src/sum.js"), "return a + b;\n");
    await writeFile(join(ws.dir, "NOTES.md"), "new\n");
    const end = await ws.tree();
    // What the bad change tracking produced: the fix, then a commit undoing it; NOTES.md never.
    commitContents(ws.dir, { "src/sum.js": "return a + b;\n" }, "fix");
    commitContents(ws.dir, { "src/sum.js": "return a - b;\n" }, "chore: update src/sum.js");

    const drift = await findCommitDrift({ dir: ws.dir, env, start, end, base: ws.base });
    expect(drift.map((d) => [d.path, d.committed === null, d.expected === null])).toEqual([
      ["NOTES.md", true, false],
      ["src/sum.js", false, false],
    ]);

    const commit = await commitDrift({ dir: ws.dir, env, drift, identity });
    expect(commit.files).toEqual(["NOTES.md", "src/sum.js"]);
    expect(git(ws.dir, "show", "HEAD:src/sum.js")).toBe("return a + b;\n");
    expect(git(ws.dir, "show", "HEAD:NOTES.md")).toBe("new\n");
    expect(git(ws.dir, "log", "-1", "--format=%B")).toContain("- src/sum.js");
    expect(git(ws.dir, "status", "--porcelain")).toBe("");
    // Now the commits agree with the workspace.
    expect(await findCommitDrift({ dir: ws.dir, env, start, end, base: ws.base })).toEqual([]);
  });

  it("leaves alone what was there before the agent started (setup output) and what it excludes", async () => {
    const ws = await workspace({ "a.txt": "a\n", "package-lock.json": "{}\n" });
    await writeFile(join(ws.dir, "build.log"), "from setup\n");
    await writeFile(join(ws.dir, "package-lock.json"), '{"setup": true}\n');
    const start = await ws.tree();
    await writeFile(join(ws.dir, "a.txt"), "A\n");
    await writeFile(join(ws.dir, "package-lock.json"), '{"agent": true}\n');
    const end = await ws.tree();
    commitContents(ws.dir, { "a.txt": "A\n" }, "edit a");
    const drift = await findCommitDrift({
      dir: ws.dir,
      env,
      start,
      end,
      base: ws.base,
      exclude: (path) => path === "package-lock.json",
    });
    expect(drift).toEqual([]);
  });

  it("flags a committed change the agent never made", async () => {
    const ws = await workspace({ "a.txt": "a\n", "b.txt": "b\n" });
    const start = await ws.tree();
    await writeFile(join(ws.dir, "a.txt"), "A\n");
    const end = await ws.tree();
    commitContents(ws.dir, { "a.txt": "A\n", "b.txt": null }, "edit a, lose b");
    const drift = await findCommitDrift({ dir: ws.dir, env, start, end, base: ws.base });
    expect(drift).toEqual([
      { path: "b.txt", committed: null, expected: expect.objectContaining({ mode: "100644" }) },
    ]);
    await commitDrift({ dir: ws.dir, env, drift, identity });
    expect(git(ws.dir, "show", "HEAD:b.txt")).toBe("b\n");
  });

  it("counts a tracked file that an ignore rule matches, and a mode change, as the workspace's", async () => {
    const ws = await workspace({ ".gitignore": "*.gen\n", "run.sh": "echo hi\n" });
    await mkdir(join(ws.dir, "out"), { recursive: true });
    await writeFile(join(ws.dir, "kept.gen"), "v1\n");
    git(ws.dir, "add", "-f", "kept.gen");
    git(ws.dir, "commit", "-q", "-m", "force-added");
    const base = git(ws.dir, "rev-parse", "HEAD").trim();
    const start = await ws.tree();
    await writeFile(join(ws.dir, "kept.gen"), "v2\n");
    await writeFile(join(ws.dir, "other.gen"), "ignored\n");
    await chmod(join(ws.dir, "run.sh"), 0o755);
    const end = await ws.tree();
    commitContents(ws.dir, { "kept.gen": "v2\n" }, "regenerate");
    const drift = await findCommitDrift({ dir: ws.dir, env, start, end, base });
    // kept.gen matches; other.gen is ignored; the chmod was not committed.
    expect(drift.map((d) => [d.path, d.committed?.mode, d.expected?.mode])).toEqual([
      ["run.sh", "100644", "100755"],
    ]);
  });
});

describe("captureWorkspaceTree", () => {
  it("hashes every file, whatever the index's stat cache or the repository's config claims", async () => {
    const ws = await workspace({ "a.txt": "one\n" });
    git(ws.dir, "config", "core.trustctime", "false");
    git(ws.dir, "config", "core.checkStat", "minimal");
    git(ws.dir, "update-index", "--assume-unchanged", "a.txt");
    const before = await ws.tree();
    await writeFile(join(ws.dir, "a.txt"), "ONE\n");
    const after = await ws.tree();
    expect(after).not.toBe(before);
    expect(git(ws.dir, "show", `${after}:a.txt`)).toBe("ONE\n");
    // The real index is untouched.
    expect(git(ws.dir, "diff", "--cached", "--name-only")).toBe("");
  });

  it("keeps what HEAD tracks even where an ignore rule matches it, and leaves the rest ignored", async () => {
    const ws = await workspace({ "build/keep.txt": "tracked\n", "a.txt": "one\n" });
    await writeFile(join(ws.dir, ".gitignore"), "build/\n");
    await writeFile(join(ws.dir, "build/new.txt"), "ignored\n");
    const tree = await ws.tree();
    const paths = git(ws.dir, "ls-tree", "-r", "--name-only", tree).trim().split("\n");
    expect(paths).toEqual([".gitignore", "a.txt", "build/keep.txt"]);
  });

  it("is the files alone in a repository with no commit yet", async () => {
    const dir = await makeTempDir();
    git(dir, "init", "-q", "-b", "main");
    await writeFile(join(dir, ".gitignore"), "*.log\n");
    await writeFile(join(dir, "a.txt"), "one\n");
    await writeFile(join(dir, "debug.log"), "noise\n");
    const tree = await captureWorkspaceTree(dir, env);
    expect(git(dir, "ls-tree", "-r", "--name-only", tree).trim().split("\n")).toEqual([
      ".gitignore",
      "a.txt",
    ]);
  });
});
