import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cleanStaleWorkspaces, pruneCache } from "../../../src/git/mirror/cache.js";
import { prepareWorkspace } from "../../../src/git/workspace/workspace.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

const HOUR = 3_600_000;
let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let cacheDir: string;

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env });
  cacheDir = join(tmp.path, "cache");
});

afterEach(() => tmp.remove());

function prepareAt(time: number, branch: string, target: BareRepo = repo, keepIdle = 0) {
  return prepareWorkspace({
    keepIdle,
    cloneUrl: target.url,
    baseBranch: "main",
    branch,
    createBranch: true,
    cacheDir,
    env,
    now: () => time,
  });
}

describe("cleanStaleWorkspaces", () => {
  it("removes worktrees and branches of crashed jobs, keeps recent ones", async () => {
    const now = Date.now();
    const crashed = await prepareAt(now - 3 * HOUR, "agent/crashed");
    const parked = await prepareWorkspace({
      cloneUrl: repo.url,
      baseBranch: "main",
      branch: "agent/parked",
      createBranch: true,
      cacheDir,
      env,
      keepIdle: 1,
      now: () => now - 3 * HOUR,
    });
    await parked.cleanup();
    const running = await prepareAt(now, "agent/running");
    const orphan = join(cacheDir, "work", "half-made");
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, "junk"), "x");
    utimesSync(orphan, new Date(now - 5 * HOUR), new Date(now - 5 * HOUR));

    const { removed } = await cleanStaleWorkspaces(cacheDir, { olderThanMs: HOUR, now, env });

    expect(removed.sort()).toEqual([crashed.dir, orphan].sort());
    expect(existsSync(crashed.dir)).toBe(false);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(join(running.dir, "README.md"))).toBe(true);
    // A parked worktree is a cache entry, not a crashed job's leftover.
    expect(existsSync(join(parked.dir, "README.md"))).toBe(true);
    const worktrees = git(crashed.mirrorDir, ["worktree", "list", "--porcelain"], env);
    expect(worktrees).not.toContain(crashed.dir);
    expect(worktrees).toContain(running.dir);
    const branches = git(
      crashed.mirrorDir,
      ["for-each-ref", "--format=%(refname)", "refs/heads/"],
      env,
    );
    expect(branches).toBe("refs/heads/agent/running");
    await running.cleanup();
  });

  it("does nothing on an empty or missing cache", async () => {
    const result = await cleanStaleWorkspaces(join(tmp.path, "nothing"), {
      olderThanMs: HOUR,
      env,
    });
    expect(result.removed).toEqual([]);
  });
});

describe("pruneCache", () => {
  it("evicts least recently used mirrors first and spares mirrors in use", async () => {
    const other = createBareRepo({ root: tmp.path, env, name: "other" });
    const third = createBareRepo({ root: tmp.path, env, name: "third" });
    const old = await prepareAt(1_000, "agent/a", repo, 1);
    await old.cleanup();
    expect(existsSync(old.dir)).toBe(true);
    const recent = await prepareAt(5_000, "agent/b", other);
    await recent.cleanup();
    // Least recently used of all, but a job is running in it.
    const busy = await prepareAt(500, "agent/c", third);

    const all = await pruneCache(cacheDir, { maxBytes: Number.MAX_SAFE_INTEGER });
    expect(all.evicted).toEqual([]);

    const oneLess = await pruneCache(cacheDir, { maxBytes: all.bytes - 1 });
    expect(oneLess.evicted).toEqual([old.mirrorDir]);
    expect(existsSync(old.mirrorDir)).toBe(false);
    expect(existsSync(old.dir)).toBe(false);
    expect(existsSync(recent.mirrorDir)).toBe(true);

    const tiny = await pruneCache(cacheDir, { maxBytes: 1 });
    expect(tiny.evicted).toEqual([recent.mirrorDir]);
    expect(existsSync(busy.mirrorDir)).toBe(true);
    expect(git(busy.dir, ["status", "--porcelain"], env)).toBe("");
    await busy.cleanup();

    // An evicted repository is simply cloned again by the next job.
    const again = await prepareAt(9_000, "agent/d", repo);
    expect(again.fromCache).toBe(false);
    await again.cleanup();
  });
});
