import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pushBranch } from "../../../src/git/push/push.js";
import { remoteDefaultBranch } from "../../../src/git/remote-head.js";
import { prepareWorkspace, type Workspace } from "../../../src/git/workspace/workspace.js";
import { type GitHttpServer, startGitHttpServer } from "../../helpers/git-http-server.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

const TOKEN = "ghs_TestToken0123456789abcdef";
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let server: GitHttpServer;
const open: Workspace[] = [];

beforeEach(async () => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: join(tmp.path, "srv"), env, commits: 2 });
  server = await startGitHttpServer({ projectRoot: join(tmp.path, "srv"), token: TOKEN, env });
});

afterEach(async () => {
  for (const ws of open.splice(0)) await ws.cleanup();
  await server.close();
  tmp.remove();
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

describe("prepareWorkspace over HTTP with a token", () => {
  it("authenticates every request and leaves the token nowhere on disk or in config", async () => {
    const url = server.url("repo");
    const ws = await prepareWorkspace({
      cloneUrl: url,
      token: TOKEN,
      baseBranch: "main",
      branch: "agent/issue-7-http",
      createBranch: true,
      cacheDir: join(tmp.path, "cache"),
      env,
    });
    open.push(ws);
    expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((r) => r.authorized)).toBe(true);
    expect(git(ws.dir, ["remote", "get-url", "origin"], env)).toBe(url);
    expect(git(ws.mirrorDir, ["config", "remote.origin.partialclonefilter"], env)).toBe(
      "blob:none",
    );

    const config = git(ws.dir, ["config", "--list", "--show-origin"], env);
    expect(config).not.toContain(TOKEN);
    expect(config).not.toContain(BASIC);
    expect(config.toLowerCase()).not.toContain("extraheader");
    // The worktree's own files, its .git pointer, and the whole shared mirror.
    const files = [...filesUnder(ws.dir), ...filesUnder(ws.mirrorDir)];
    expect(files.some((f) => f.endsWith(`${join(".git")}`))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      expect(bytes.includes(TOKEN), file).toBe(false);
      expect(bytes.includes(BASIC), file).toBe(false);
    }
  });

  it("fetches (authenticated) on the second job and fails fast without a token", async () => {
    const url = server.url("repo");
    const cacheDir = join(tmp.path, "cache");
    const base = { cloneUrl: url, baseBranch: "main", createBranch: true, cacheDir, env };
    const first = await prepareWorkspace({ ...base, token: TOKEN, branch: "agent/one" });
    open.push(first);
    const inode = statSync(first.mirrorDir).ino;
    const tip = repo.push({ branch: "main", files: { "later.txt": "later\n" } });
    const before = server.requests.length;

    const second = await prepareWorkspace({ ...base, token: TOKEN, branch: "agent/two" });
    open.push(second);
    expect(second.fromCache).toBe(true);
    expect(statSync(second.mirrorDir).ino).toBe(inode);
    expect(second.baseSha).toBe(tip);
    const fetches = server.requests.slice(before);
    expect(fetches.some((r) => r.query === "service=git-upload-pack")).toBe(true);
    expect(fetches.every((r) => r.authorized)).toBe(true);

    // Prompts are off: a missing token is an error, not a hang.
    await expect(prepareWorkspace({ ...base, branch: "agent/three" })).rejects.toThrow();
    expect(server.requests.some((r) => r.status === 401)).toBe(true);
  });

  it("takes a token embedded in the clone URL but stores only the clean URL", async () => {
    const clean = server.url("repo");
    const withToken = clean.replace("http://", `http://x-access-token:${TOKEN}@`);
    const ws = await prepareWorkspace({
      cloneUrl: withToken,
      baseBranch: "main",
      branch: "agent/embedded",
      createBranch: true,
      cacheDir: join(tmp.path, "cache"),
      env,
    });
    open.push(ws);
    expect(ws.remoteUrl).toBe(clean);
    expect(git(ws.dir, ["config", "--list"], env)).not.toContain(TOKEN);
    expect(server.requests.every((r) => r.authorized)).toBe(true);
  });

  it("falls back to a full mirror when the server refuses filters", async () => {
    const strict = await startGitHttpServer({
      projectRoot: join(tmp.path, "srv"),
      token: TOKEN,
      env,
      allowFilter: false,
    });
    try {
      const ws = await prepareWorkspace({
        cloneUrl: strict.url("repo"),
        token: TOKEN,
        baseBranch: "main",
        branch: "agent/full",
        createBranch: true,
        cacheDir: join(tmp.path, "cache-full"),
        env,
      });
      open.push(ws);
      expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
      const missing = git(ws.mirrorDir, ["rev-list", "--objects", "--missing=print", "--all"], env)
        .split("\n")
        .filter((line) => line.startsWith("?"));
      expect(missing).toEqual([]);
      // History is complete, so old contents are readable without any further fetch.
      expect(git(ws.dir, ["show", "HEAD~1:history.txt"], env)).toBe("line 1");
    } finally {
      await strict.close();
    }
  });
});

describe("a git server that is down for a moment", () => {
  /** Records the backoff instead of waiting it out. */
  function recordingRetry() {
    const waits: number[] = [];
    return { waits, retry: { sleep: async (ms: number) => void waits.push(ms) } };
  }

  /** A new file committed in the workspace. */
  function commitNew(ws: Workspace): void {
    writeFileSync(join(ws.dir, "new.txt"), "new\n");
    git(ws.dir, ["add", "new.txt"], env);
    git(ws.dir, ["commit", "-m", "Add new"], env);
  }

  /** The workspace's branch pushed over HTTP with the token. */
  const pushOver = (ws: Workspace, gitEnv: Record<string, string>, retry: object) =>
    pushBranch({
      dir: ws.dir,
      remoteUrl: ws.remoteUrl,
      mirrorDir: ws.mirrorDir,
      branch: ws.branch,
      allowedBranch: ws.branch,
      defaultBranch: "main",
      token: TOKEN,
      env: gitEnv,
      secrets: [],
      retry,
    });

  const fresh = (retry: object, branch: string) =>
    prepareWorkspace({
      cloneUrl: server.url("repo"),
      token: TOKEN,
      baseBranch: "main",
      branch,
      createBranch: true,
      cacheDir: join(tmp.path, "cache"),
      env,
      retry,
    });

  it.each([["503"], ["close"]] as const)(
    "retries the first fetch with backoff when the server answers %s",
    async (how) => {
      const { waits, retry } = recordingRetry();
      server.failNext(2, { how });
      const ws = await fresh(retry, "agent/after-outage");
      open.push(ws);
      expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(repo.sha("main"));
      expect(waits).toEqual([1_000, 3_000]);
      expect(server.requests.slice(0, 2).map((r) => r.status)).toEqual(
        how === "503" ? [503, 503] : [0, 0],
      );
    },
  );

  it("gives up after four tries over about ten seconds", async () => {
    const { waits, retry } = recordingRetry();
    server.failNext(100);
    await expect(fresh(retry, "agent/never")).rejects.toThrow(/503/);
    expect(waits).toEqual([1_000, 3_000, 6_000]);
    expect(server.requests).toHaveLength(4);
  });

  it("gives up on a server that takes the request and never answers, fetch and push alike", async () => {
    // Git's own variable shortens the two minutes patchwright's git waits
    // for a first byte; without the limit patchwright sets, git waits forever.
    const quick = { ...env, GIT_HTTP_LOW_SPEED_TIME: "1" };
    const { waits, retry } = recordingRetry();
    server.failNext(100, { how: "stall" });
    const stalled = prepareWorkspace({
      cloneUrl: server.url("repo"),
      token: TOKEN,
      baseBranch: "main",
      branch: "agent/stalled",
      createBranch: true,
      cacheDir: join(tmp.path, "cache"),
      env: quick,
      retry,
    });
    await expect(stalled).rejects.toThrow(/Operation too slow/);
    expect(waits).toEqual([1_000, 3_000, 6_000]);
    expect(server.requests.map((r) => r.status)).toEqual([0, 0, 0, 0]);

    server.failNext(0);
    const ws = await fresh(retry, "agent/push-stalled");
    open.push(ws);
    commitNew(ws);
    server.failNext(100, { how: "stall", service: "git-receive-pack" });
    await expect(pushOver(ws, quick, { ...retry, delaysMs: [1] })).rejects.toThrow(
      /Operation too slow/,
    );
    expect(repo.sha(ws.branch)).toBeNull();
  });

  it("does not retry an authentication failure or a missing repository", async () => {
    const { waits, retry } = recordingRetry();
    const base = { baseBranch: "main", createBranch: true, env, retry, branch: "agent/x" };
    await expect(
      prepareWorkspace({ ...base, cloneUrl: server.url("repo"), cacheDir: join(tmp.path, "a") }),
    ).rejects.toThrow();
    await expect(
      prepareWorkspace({
        ...base,
        cloneUrl: server.url("missing"),
        token: TOKEN,
        cacheDir: join(tmp.path, "b"),
      }),
    ).rejects.toThrow();
    expect(waits).toEqual([]);
    expect(server.requests.map((r) => r.status)).toEqual([401, 404]);
  });

  it("retries ls-remote and a push the same way", async () => {
    const { waits, retry } = recordingRetry();
    server.failNext(1);
    expect(await remoteDefaultBranch({ url: server.url("repo"), token: TOKEN, env, retry })).toBe(
      "main",
    );
    const ws = await fresh(retry, "agent/push-after-outage");
    open.push(ws);
    commitNew(ws);
    server.failNext(1, { how: "close" });
    const pushed = await pushOver(ws, env, retry);
    expect(repo.sha(ws.branch)).toBe(pushed.sha);
    expect(waits).toEqual([1_000, 1_000]);
  });
});
