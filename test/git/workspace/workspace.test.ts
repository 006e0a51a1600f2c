import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mirrorDirFor } from "../../../src/git/mirror/mirror.js";
import { buildSpare } from "../../../src/git/workspace/spare.js";
import {
  fetchMirror,
  prepareWorkspace,
  type Workspace,
  WorkspaceError,
} from "../../../src/git/workspace/workspace.js";
import { listWorktrees } from "../../../src/git/workspace/worktrees.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

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
    // No upstream tracking: it would be written to the config all worktrees share.
    expect(() => git(ws.dir, ["rev-parse", "--abbrev-ref", "@{upstream}"], env)).toThrow();
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

  it("configures the mirror's origin once: remote branches under origin/, tags, no auto-followed tags", async () => {
    git(repo.dir, ["tag", "v1.0.0", repo.sha("main") as string], env);
    const ws = await prepare();
    expect(git(ws.mirrorDir, ["config", "--get-all", "remote.origin.fetch"], env)).toBe(
      "+refs/heads/*:refs/remotes/origin/*",
    );
    expect(git(ws.mirrorDir, ["config", "remote.origin.tagOpt"], env)).toBe("--no-tags");
    expect(git(ws.mirrorDir, ["config", "remote.origin.url"], env)).toBe(repo.url);
    expect(git(ws.mirrorDir, ["rev-parse", "v1.0.0"], env)).toBe(repo.sha("main"));
    // No local branches but the running job's: they would collide with job branches.
    expect(
      git(ws.mirrorDir, ["for-each-ref", "--format=%(refname:short)", "refs/heads/"], env),
    ).toBe("agent/issue-1-demo");
    // Tags made later arrive with the next job's fetch.
    git(repo.dir, ["tag", "v1.0.1", repo.sha("main") as string], env);
    await prepare({ branch: "agent/issue-2-next" });
    expect(git(ws.mirrorDir, ["rev-parse", "v1.0.1"], env)).toBe(repo.sha("main"));
  });

  it("names a new branch after the fetch, skipping names taken on the remote or by a running job", async () => {
    repo.push({ branch: "agent/fix", files: { "x.md": "x\n" } });
    const running = await prepare({ branch: "agent/fix-2" });
    const seen: string[] = [];
    const ws = await prepare({
      branch: async (isTaken) => {
        for (const name of ["agent/fix", "agent/fix-2", "agent/fix-3"]) {
          seen.push(name);
          if (!(await isTaken(name))) return name;
        }
        throw new Error("no free name");
      },
    });
    expect(ws.branch).toBe("agent/fix-3");
    expect(seen).toEqual(["agent/fix", "agent/fix-2", "agent/fix-3"]);
    expect(git(ws.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/fix-3");
    expect(git(running.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/fix-2");
    await expect(prepare({ branch: async () => "bad..name" })).rejects.toThrow(
      /not a valid branch name/,
    );
  });

  it("uses a prefetched mirror as it is, and fetches itself when the prefetch failed", async () => {
    const fetched = await fetchMirror({ cloneUrl: repo.url, cacheDir, env });
    expect(fetched).toEqual({ mirrorDir: mirrorDirFor(cacheDir, repo.url), created: true });
    const before = repo.sha("main");
    repo.push({ branch: "main", files: { "LATER.md": "after the prefetch\n" } });

    const first = await prepare({ fetched: Promise.resolve(fetched) });
    // No second fetch: the workspace starts where the prefetch saw main.
    expect(first.baseSha).toBe(before);
    expect(first.fromCache).toBe(false);

    const second = await prepare({ branch: "agent/issue-2-next", fetched: Promise.resolve(null) });
    expect(second.baseSha).toBe(repo.sha("main"));
    expect(second.fromCache).toBe(true);
  });

  it("leaves git's housekeeping out of the fetch and runs it when the job is done", async () => {
    const packs = (mirrorDir: string) =>
      readdirSync(join(mirrorDir, "objects", "pack")).filter((f) => f.endsWith(".pack")).length;
    const first = await prepare();
    await first.cleanup();
    // Keep every fetch as a pack, and repack as soon as there are two (in the
    // mirror's own config: our git reads no global one).
    const settings =
      "[transfer]\n\tunpackLimit = 1\n[gc]\n\tautoPackLimit = 1\n\tautoDetach = false\n";
    // The config and the copy it is restored from before each fetch.
    for (const file of ["config", "patchwright-config"]) {
      appendFileSync(join(first.mirrorDir, file), settings);
    }
    repo.push({ branch: "main", files: { "NEW.md": "new\n" } });
    const ws = await prepare({ branch: "agent/issue-2-next" });
    expect(packs(ws.mirrorDir)).toBeGreaterThan(1);
    await ws.cleanup();
    expect(packs(ws.mirrorDir)).toBe(1);
  });

  it("tells onPlanned where the tree goes, and checks it out once the promise it returned settles", async () => {
    let release: () => void = () => {};
    const seen: string[] = [];
    const preparing = prepare({
      onPlanned: (planned) => {
        seen.push(`${planned.branch} ${planned.startSha} ${existsSync(planned.dir)}`);
        return new Promise<void>((done) => {
          release = () => {
            seen.push(`released ${existsSync(planned.dir)}`);
            done();
          };
        });
      },
    });
    // Long enough for a checkout that did not wait to have started.
    while (seen.length === 0) await new Promise((done) => setTimeout(done, 5));
    await new Promise((done) => setTimeout(done, 50));
    release();
    const ws = await preparing;
    expect(seen).toEqual([`agent/issue-1-demo ${repo.sha("main")} false`, "released false"]);
    expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
    expect(existsSync(join(ws.dir, "history.txt"))).toBe(true);
  });

  it("checks out anyway when onPlanned's promise never settles", async () => {
    const ws = await prepare({ onPlanned: () => new Promise<void>(() => {}) });
    expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
  });

  it("rejects with a WorkspaceError type a caller can branch on", async () => {
    const error = await prepare({ branch: "missing", createBranch: false }).catch((e) => e);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(String(error.message)).toContain('branch "missing" does not exist');
  });

  it("with keepIdle, parks a scrubbed worktree and reuses it for the next job", async () => {
    const first = await prepare({ keepIdle: 1 });
    writeFileSync(join(first.dir, "README.md"), "edited by the agent\n");
    writeFileSync(join(first.dir, "junk.txt"), "untracked\n");
    mkdirSync(join(first.dir, "dist"));
    writeFileSync(join(first.dir, "dist", "out.js"), "ignored build output\n");
    await first.cleanup();
    // Parked: still on disk, pristine, detached, its branch gone.
    expect(git(first.dir, ["status", "--porcelain", "--ignored"], env)).toBe("");
    expect(git(first.dir, ["rev-parse", "--abbrev-ref", "HEAD"], env)).toBe("HEAD");
    expect(git(first.mirrorDir, ["branch", "--list"], env)).toBe("");

    const newTip = repo.push({ branch: "main", files: { "NEW.md": "fresh\n" } });
    const second = await prepare({ keepIdle: 1, branch: "agent/issue-2-next" });
    expect(second.dir).toBe(first.dir);
    expect(git(second.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/issue-2-next");
    expect(git(second.dir, ["rev-parse", "HEAD"], env)).toBe(newTip);
    expect(readFileSync(join(second.dir, "README.md"), "utf8")).toBe("# demo\n");
    expect(readFileSync(join(second.dir, "NEW.md"), "utf8")).toBe("fresh\n");
    expect(existsSync(join(second.dir, "junk.txt"))).toBe(false);
    expect(existsSync(join(second.dir, "dist"))).toBe(false);
    expect(git(second.dir, ["status", "--porcelain"], env)).toBe("");
  });

  it("parks a tree at the job's base even after the job committed, and the next job starts there", async () => {
    const first = await prepare({ keepIdle: 1 });
    writeFileSync(join(first.dir, "JOB1.md"), "committed by job 1\n");
    git(first.dir, ["add", "JOB1.md"], env);
    git(first.dir, ["commit", "--quiet", "-m", "job 1"], env);
    await first.cleanup();
    const [parked] = await listWorktrees(first.mirrorDir);
    expect(parked?.parkedAt).toBe(first.baseSha);
    expect(git(first.dir, ["rev-parse", "HEAD"], env)).toBe(first.baseSha);
    expect(git(first.dir, ["status", "--porcelain", "--ignored"], env)).toBe("");

    // Same base: only the branch and HEAD are set.
    const second = await prepare({ keepIdle: 1, branch: "agent/issue-2-next" });
    expect(second.dir).toBe(first.dir);
    expect(git(second.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/issue-2-next");
    expect(git(second.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
    expect(existsSync(join(second.dir, "JOB1.md"))).toBe(false);
    expect(git(second.dir, ["status", "--porcelain"], env)).toBe("");
    expect(() => git(second.dir, ["rev-parse", "--abbrev-ref", "@{upstream}"], env)).toThrow();
    // The branch works like one made by checkout: commits land on it.
    writeFileSync(join(second.dir, "JOB2.md"), "job 2\n");
    git(second.dir, ["add", "JOB2.md"], env);
    git(second.dir, ["commit", "--quiet", "-m", "job 2"], env);
    expect(git(second.mirrorDir, ["rev-parse", "agent/issue-2-next^"], env)).toBe(repo.sha("main"));
  });

  it("does not hand a parked tree a branch another running job has checked out", async () => {
    // A PR head at the base commit: the parked tree's fast path applies.
    git(repo.dir, ["update-ref", "refs/heads/feature", repo.sha("main") as string], env);
    await (await prepare({ keepIdle: 1, branch: "agent/seed" })).cleanup();
    const running = await prepare({ branch: "feature", createBranch: false });
    await (await prepare({ keepIdle: 1, branch: "agent/seed-2" })).cleanup();

    const error = await prepare({ keepIdle: 1, branch: "feature", createBranch: false }).catch(
      (e: unknown) => e,
    );
    expect(String((error as Error).message)).toContain("checked out by another running job");
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(git(running.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("feature");

    // Also when the branch is elsewhere than the parked tree's commit (a
    // `checkout -B` there would silently take the branch from its job).
    repo.push({ branch: "feature-2", files: { "F.md": "f\n" } });
    const running2 = await prepare({ branch: "feature-2", createBranch: false });
    await (await prepare({ keepIdle: 1, branch: "agent/seed-3" })).cleanup();
    const error2 = await prepare({ keepIdle: 1, branch: "feature-2", createBranch: false }).catch(
      (e: unknown) => e,
    );
    expect(String((error2 as Error).message)).toContain("checked out by another running job");
    expect(git(running2.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("feature-2");
  });

  it("keeps at most keepIdle parked worktrees per repository", async () => {
    const a = await prepare({ keepIdle: 1, branch: "agent/a" });
    const b = await prepare({ keepIdle: 1, branch: "agent/b" });
    await a.cleanup();
    await b.cleanup();
    expect(existsSync(a.dir)).toBe(true);
    expect(existsSync(b.dir)).toBe(false);
    const worktrees = git(a.mirrorDir, ["worktree", "list", "--porcelain"], env);
    expect(worktrees).toContain(a.dir);
    expect(worktrees).not.toContain(b.dir);
  });

  it("after writing a new big tree, parks a spare that the next job takes while the first runs", async () => {
    const first = await prepare({ keepIdle: 1, spareMinIndexBytes: 0 });
    const spareDir = (await first.spare) as string;
    expect(spareDir).toEqual(expect.any(String));
    expect(spareDir).not.toBe(first.dir);
    expect(git(spareDir, ["rev-parse", "HEAD"], env)).toBe(first.baseSha);
    expect(git(spareDir, ["status", "--porcelain", "--ignored"], env)).toBe("");
    expect((await listWorktrees(first.mirrorDir)).filter((w) => w.idle).map((w) => w.dir)).toEqual([
      spareDir,
    ]);

    const second = await prepare({
      keepIdle: 1,
      spareMinIndexBytes: 0,
      branch: "agent/issue-2-next",
    });
    expect(second.dir).toBe(spareDir);
    expect(git(second.dir, ["symbolic-ref", "--short", "HEAD"], env)).toBe("agent/issue-2-next");
    expect(readFileSync(join(second.dir, "history.txt"), "utf8")).toBe("line 3\n");
    // Taken, not written: no spare after it.
    expect(await second.spare).toBeNull();

    // Both done: one parked tree, as keepIdle says.
    await second.cleanup();
    await first.cleanup();
    const left = await listWorktrees(first.mirrorDir);
    expect(left.map((w) => [w.dir, w.idle])).toEqual([[second.dir, true]]);
    expect(existsSync(first.dir)).toBe(false);
  });

  it("makes no spare for a small tree, nor without keepIdle", async () => {
    const small = await prepare({ keepIdle: 1 });
    expect(await small.spare).toBeNull();
    const unkept = await prepare({ spareMinIndexBytes: 0, branch: "agent/unkept" });
    expect(await unkept.spare).toBeNull();
    expect((await listWorktrees(small.mirrorDir)).map((w) => w.dir).sort()).toEqual(
      [small.dir, unkept.dir].sort(),
    );
  });

  it("a job that ends while its spare is made leaves one parked tree: the spare", async () => {
    const first = await prepare({ keepIdle: 1, spareMinIndexBytes: 0 });
    await first.cleanup();
    const left = await listWorktrees(first.mirrorDir);
    expect(left.map((w) => [w.dir, w.idle])).toEqual([[await first.spare, true]]);
  });

  it("makes no second spare, and a spare that fails leaves nothing behind", async () => {
    const first = await prepare({ keepIdle: 1, spareMinIndexBytes: 0 });
    const spareDir = await first.spare;
    const options = { mirrorDir: first.mirrorDir, gitOptions: { env } };
    const another = join(tmp.path, "another-spare");
    expect(await buildSpare({ ...options, dir: another, commit: first.baseSha })).toBeNull();
    expect(existsSync(another)).toBe(false);

    await first.cleanup();
    // Taken by a job: nothing parked now, but the commit does not exist.
    const taker = await prepare({ keepIdle: 1, branch: "agent/taker" });
    expect(taker.dir).toBe(spareDir);
    const broken = join(tmp.path, "broken-spare");
    expect(await buildSpare({ ...options, dir: broken, commit: "f".repeat(40) })).toBeNull();
    expect(existsSync(broken)).toBe(false);
    expect((await listWorktrees(first.mirrorDir)).map((w) => w.dir)).toEqual([taker.dir]);
  });

  it("ignores a remote URL or hooks a previous job's agent planted in the shared mirror", async () => {
    const first = await prepare();
    const evil = createBareRepo({ root: tmp.path, env, name: "evil" });
    evil.push({ branch: "main", files: { "EVIL.md": "x\n" } });
    // What an agent could do from inside its worktree.
    git(first.dir, ["config", "remote.origin.url", evil.url], env);
    const hooks = join(first.mirrorDir, "hooks");
    mkdirSync(hooks, { recursive: true });
    const marker = join(tmp.path, "hook-ran");
    writeFileSync(join(hooks, "post-checkout"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    await first.cleanup();

    const second = await prepare({ branch: "agent/issue-2-next" });
    expect(second.baseSha).toBe(repo.sha("main"));
    expect(existsSync(join(second.dir, "EVIL.md"))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});
