import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mirrorDirFor } from "../../src/git/mirror.js";
import { prepareWorkspace, type Workspace, WorkspaceError } from "../../src/git/workspace.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let cacheDir: string;
const open: Workspace[] = [];

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env, commits: 3, gitignore: "dist/\n" });
  cacheDir = join(tmp.path, "cache");
});

afterEach(async () => {
  for (const ws of open.splice(0)) await ws.cleanup();
  tmp.remove();
});

async function prepare(extra: Partial<Parameters<typeof prepareWorkspace>[0]> = {}) {
  const ws = await prepareWorkspace({
    cloneUrl: repo.url,
    baseBranch: "main",
    branch: "agent/issue-1-demo",
    createBranch: true,
    cacheDir,
    env,
    ...extra,
  });
  open.push(ws);
  return ws;
}

describe("prepareWorkspace", () => {
  it("creates a new branch from the tip of the base branch in its own worktree", async () => {
    const ws = await prepare();
    expect(ws.fromCache).toBe(false);
    expect(ws.baseSha).toBe(repo.sha("main"));
    expect(ws.startSha).toBe(ws.baseSha);
    expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
    expect(git(ws.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/issue-1-demo");
    expect(readFileSync(join(ws.dir, "history.txt"), "utf8")).toBe("line 3\n");
    expect(git(ws.dir, ["status", "--porcelain"], env)).toBe("");
    expect(git(ws.dir, ["remote", "get-url", "origin"], env)).toBe(repo.url);
    // A new branch must not track the base branch, or a plain `git push` would target it.
    expect(() => git(ws.dir, ["rev-parse", "--abbrev-ref", "@{upstream}"], env)).toThrow();
  });

  it("fetches into the cached mirror on the second job instead of cloning again", async () => {
    const first = await prepare();
    const mirror = mirrorDirFor(cacheDir, repo.url);
    expect(first.mirrorDir).toBe(mirror);
    const inode = statSync(mirror).ino;
    writeFileSync(join(mirror, "survives-fetch"), "x");
    const newTip = repo.push({ branch: "main", files: { "NEW.md": "fresh\n" } });

    const second = await prepare({ branch: "agent/issue-2-other" });
    expect(second.fromCache).toBe(true);
    expect(statSync(mirror).ino).toBe(inode);
    expect(readFileSync(join(mirror, "survives-fetch"), "utf8")).toBe("x");
    expect(second.baseSha).toBe(newTip);
    expect(readFileSync(join(second.dir, "NEW.md"), "utf8")).toBe("fresh\n");
    expect(second.dir).not.toBe(first.dir);
  });

  it("keeps a partial (blob:none) mirror when the server allows filters", async () => {
    const ws = await prepare();
    expect(git(ws.mirrorDir, ["config", "remote.origin.promisor"], env)).toBe("true");
    // Old versions of history.txt were never downloaded; the checkout's blobs were.
    const missing = git(ws.mirrorDir, ["rev-list", "--objects", "--missing=print", "--all"], env)
      .split("\n")
      .filter((line) => line.startsWith("?"));
    expect(missing.length).toBe(2);
    expect(git(ws.dir, ["status", "--porcelain"], env)).toBe("");
  });

  it("checks out an existing branch (a PR head) exactly at its remote sha", async () => {
    const head = repo.push({ branch: "feature/login", files: { "login.ts": "export {};\n" } });
    repo.push({ branch: "main", files: { "main-only.txt": "m\n" } });
    const ws = await prepare({ branch: "feature/login", createBranch: false });
    expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(head);
    expect(ws.startSha).toBe(head);
    expect(ws.baseSha).toBe(repo.sha("main"));
    expect(git(ws.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("feature/login");
    expect(git(ws.dir, ["rev-parse", "--abbrev-ref", "@{upstream}"], env)).toBe(
      "origin/feature/login",
    );
    expect(readFileSync(join(ws.dir, "login.ts"), "utf8")).toBe("export {};\n");
  });

  it("refuses a new branch whose name is taken and an existing branch that is missing", async () => {
    repo.push({ branch: "agent/taken", files: { "x.txt": "x\n" } });
    await expect(prepare({ branch: "agent/taken" })).rejects.toThrow(/already exists/);
    await expect(prepare({ branch: "nope", createBranch: false })).rejects.toThrow(WorkspaceError);
    await expect(prepare({ baseBranch: "develop" })).rejects.toThrow(/base branch "develop"/);
    await expect(prepare({ branch: "-x" })).rejects.toThrow(/not a valid branch name/);
  });

  it("serializes concurrent jobs on one repository and gives each its own tree", async () => {
    const [a, b] = await Promise.all([
      prepare({ branch: "agent/a" }),
      prepare({ branch: "agent/b" }),
    ]);
    expect(a?.dir).not.toBe(b?.dir);
    expect(git(a?.dir ?? "", ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/a");
    expect(git(b?.dir ?? "", ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/b");
    expect([a?.fromCache, b?.fromCache].sort()).toEqual([false, true]);
  });

  it("cleanup removes the worktree and its local branch, and can run twice", async () => {
    const ws = await prepare();
    writeFileSync(join(ws.dir, "stray.txt"), "untracked\n");
    await ws.cleanup();
    await ws.cleanup();
    expect(() => statSync(ws.dir)).toThrow();
    expect(git(ws.mirrorDir, ["worktree", "list", "--porcelain"], env)).not.toContain(ws.dir);
    expect(git(ws.mirrorDir, ["branch", "--list", "agent/issue-1-demo"], env)).toBe("");
    // The same branch name is usable again by a later job.
    const again = await prepare();
    expect(git(again.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
  });

  it("rejects with a WorkspaceError type a caller can branch on", async () => {
    const error = await prepare({ branch: "missing", createBranch: false }).catch((e) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(String(error.message)).toContain('branch "missing" does not exist');
  });
});
