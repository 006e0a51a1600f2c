import { chmod, mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildShellEnv } from "../../src/agent/tools/shell-env.js";
import { createSnapshotter } from "../../src/agent/workspace-snapshot.js";
import { parseDiffTree } from "../../src/git/tree/diff-tree.js";
import { git, makeRepo, makeTempDir } from "../helpers/temp-dir.js";

// The environment the agent session really gives these helpers (it sets GIT_PAGER and GIT_EDITOR).
const env = buildShellEnv({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: process.env.HOME ?? "/tmp",
});

describe("workspace snapshots", () => {
  it("finds files a command created, changed and deleted in a git repo, honouring .gitignore", async () => {
    const root = await makeRepo({ "a.txt": "a\n", "b.txt": "b\n", ".gitignore": "build/\n" });
    await writeFile(join(root, "dirty.txt"), "uncommitted before\n");
    const snapshotter = await createSnapshotter({ root, env });
    const before = await snapshotter.snapshot();

    await writeFile(join(root, "a.txt"), "a2\n");
    await rm(join(root, "b.txt"));
    await writeFile(join(root, "dirty.txt"), "uncommitted after\n");
    await mkdir(join(root, "build"));
    await writeFile(join(root, "build", "out.js"), "ignored");
    await writeFile(join(root, "new.txt"), "new\n");

    const changes = await snapshotter.diff(before, await snapshotter.snapshot());
    const byPath = Object.fromEntries(
      changes.map((c) => [c.path, [c.before?.toString() ?? null, c.after?.toString() ?? null]]),
    );
    expect(byPath).toEqual({
      "a.txt": ["a\n", "a2\n"],
      "b.txt": ["b\n", null],
      "dirty.txt": ["uncommitted before\n", "uncommitted after\n"],
      "new.txt": [null, "new\n"],
    });
    // The real index is untouched: git still sees everything as unstaged.
    expect(git(root, "diff", "--cached", "--name-only").trim()).toBe("");
    await snapshotter.close();
  });

  it("reports a mode change with git's modes, and nothing for a touch", async () => {
    const root = await makeRepo({ "run.sh": "echo hi\n", "a.txt": "a\n" });
    const snapshotter = await createSnapshotter({ root, env });
    const before = await snapshotter.snapshot();
    await chmod(join(root, "run.sh"), 0o755);
    const later = new Date(Date.now() + 5_000);
    await utimes(join(root, "a.txt"), later, later);
    const changes = await snapshotter.diff(before, await snapshotter.snapshot());
    expect(changes).toEqual([
      {
        path: "run.sh",
        before: Buffer.from("echo hi\n"),
        after: Buffer.from("echo hi\n"),
        modes: { before: "100644", after: "100755" },
      },
    ]);
    await snapshotter.close();
  });

  it("reports paths relative to a workspace that is a subdirectory of the repository", async () => {
    const repo = await makeRepo({ "pkg/a.txt": "a\n", "top.txt": "t\n" });
    const snapshotter = await createSnapshotter({ root: join(repo, "pkg"), env });
    const before = await snapshotter.snapshot();
    await writeFile(join(repo, "pkg", "a.txt"), "changed\n");
    await writeFile(join(repo, "top.txt"), "outside the workspace\n");
    const changes = await snapshotter.diff(before, await snapshotter.snapshot());
    expect(changes.map((c) => c.path)).toEqual(["a.txt"]);
    await snapshotter.close();
  });

  it("sees a same-size edit in a file the index marks assume-unchanged, or under a config that trusts stat less", async () => {
    const root = await makeRepo({ "a.txt": "one\n", "b.txt": "two\n" });
    git(root, "update-index", "--assume-unchanged", "a.txt");
    git(root, "config", "core.trustctime", "false");
    git(root, "config", "core.checkStat", "minimal");
    git(root, "config", "core.ignoreStat", "true");
    const snapshotter = await createSnapshotter({ root, env });
    const before = await snapshotter.snapshot();
    await writeFile(join(root, "a.txt"), "ONE\n");
    await writeFile(join(root, "b.txt"), "TWO\n");
    const changes = await snapshotter.diff(before, await snapshotter.snapshot());
    expect(changes.map((c) => [c.path, c.after?.toString()])).toEqual([
      ["a.txt", "ONE\n"],
      ["b.txt", "TWO\n"],
    ]);
    await snapshotter.close();
  });

  it("falls back to reading files outside git, skipping node_modules", async () => {
    const root = await makeTempDir();
    await writeFile(join(root, "a.txt"), "a");
    const snapshotter = await createSnapshotter({ root, env });
    const before = await snapshotter.snapshot();
    await writeFile(join(root, "a.txt"), "b");
    await mkdir(join(root, "node_modules"));
    await writeFile(join(root, "node_modules", "x.js"), "x");
    const changes = await snapshotter.diff(before, await snapshotter.snapshot());
    expect(changes).toEqual([{ path: "a.txt", before: Buffer.from("a"), after: Buffer.from("b") }]);
  });

  it("parses diff-tree output and skips submodule entries", () => {
    const sha1 = "1".repeat(40);
    const zero = "0".repeat(40);
    const raw = `:100644 100644 ${sha1} ${sha1} M\0a b.txt\0:000000 100644 ${zero} ${sha1} A\0new\0:160000 160000 ${sha1} ${sha1} M\0sub\0`;
    expect(parseDiffTree(raw)).toEqual([
      { path: "a b.txt", old: { mode: "100644", sha: sha1 }, new: { mode: "100644", sha: sha1 } },
      { path: "new", old: null, new: { mode: "100644", sha: sha1 } },
    ]);
  });
});
