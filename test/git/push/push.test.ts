import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCommits } from "../../../src/git/commit/commits.js";
import {
  allowJobBranches,
  PushConflictError,
  PushDeclinedError,
  PushFailedError,
  PushRefusedError,
  pushBranch,
} from "../../../src/git/push/push.js";
import { prepareWorkspace, type Workspace } from "../../../src/git/workspace/workspace.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

const identity = { name: "patchwright[bot]", email: "bot@example.com" };
const BRANCH = "agent/issue-1-demo";

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let ws: Workspace;

beforeEach(async () => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({
    root: tmp.path,
    env,
    files: { "src/config.ts": "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n" },
  });
  ws = await prepareWorkspace({
    cloneUrl: repo.url,
    baseBranch: "main",
    branch: BRANCH,
    createBranch: true,
    cacheDir: join(tmp.path, "cache"),
    env,
  });
});

afterEach(async () => {
  await ws.cleanup();
  tmp.remove();
});

/** The agent edits a file and the job commits it. */
async function agentCommit(path: string, content: string, text: string) {
  const absolute = join(ws.dir, path);
  const before = existsSync(absolute)
    ? Buffer.from(git(ws.dir, ["show", `HEAD:${path}`], env))
    : null;
  writeFileSync(absolute, content);
  const { commits } = await createCommits({
    dir: ws.dir,
    turns: [{ turn: 1, text, files: [{ path, before, after: Buffer.from(content) }] }],
    identity,
    env,
  });
  return commits[0]?.sha ?? "";
}

/** A pre-receive hook in the remote (a stand-in for branch protection). */
function installHook(script: string) {
  const hook = join(repo.dir, "hooks", "pre-receive");
  writeFileSync(hook, script);
  chmodSync(hook, 0o755);
}

const ONLY_SIDE_BRANCHES = `#!/bin/sh
while read old new ref; do
  case "$ref" in
    refs/heads/*-patchwright-*) ;;
    *) echo "protected: only side branches" >&2; exit 1 ;;
  esac
done
`;

const push = (extra: Partial<Parameters<typeof pushBranch>[0]> = {}) =>
  pushBranch({
    dir: ws.dir,
    branch: BRANCH,
    allowedBranch: BRANCH,
    defaultBranch: "main",
    env,
    secrets: [],
    ...extra,
  });

describe("pushBranch", () => {
  it("pushes the job's commits to its own new branch", async () => {
    const sha = await agentCommit("src/new.ts", "new\n", "Add new module.");
    const result = await push();
    expect(result).toEqual({ pushed: true, sha, rebased: false });
    expect(repo.sha(BRANCH)).toBe(sha);
    expect(repo.sha("main")).toBe(ws.baseSha);
  });

  it("refuses commits that hold the push's own token or a known secret, and pushes nothing", async () => {
    const token = "push-token-abcdefghijklmnop";
    await agentCommit("src/leak.ts", `export const t = "${token}";\n`, "Add leak.");
    await expect(push({ token })).rejects.toThrow(/the push token in the file src\/leak\.ts/);
    const key = "known-secret-value-0123456789";
    await agentCommit("src/key.ts", `export const k = "${key}";\n`, "Add key.");
    await expect(push({ secrets: [{ name: "MY_KEY", value: key }] })).rejects.toThrow(
      /MY_KEY in the file src\/key\.ts/,
    );
    expect(repo.sha(BRANCH)).toBeNull();
  });

  it("refuses the default branch, other branches and invalid names", async () => {
    await agentCommit("src/new.ts", "new\n", "Add new module.");
    const mainBefore = repo.sha("main");
    await expect(push({ branch: "main", allowedBranch: () => true })).rejects.toBeInstanceOf(
      PushRefusedError,
    );
    await expect(push({ branch: "agent/other" })).rejects.toThrow(/not this job's branch/);
    await expect(push({ branch: "-f", allowedBranch: () => true })).rejects.toThrow(/valid/);
    expect(repo.sha("main")).toBe(mainBefore);
    expect(repo.sha("agent/other")).toBeNull();

    const rule = allowJobBranches({ prefix: "agent/", prHead: "feature/login" });
    expect(rule("agent/x")).toBe(true);
    expect(rule("feature/login")).toBe(true);
    expect(rule("feature/other")).toBe(false);
    expect(rule("agent/")).toBe(false);
  });

  it("rebases onto commits someone else pushed meanwhile and keeps both", async () => {
    await agentCommit("src/first.ts", "1\n", "Add first.");
    await push();
    const theirs = repo.push({
      branch: BRANCH,
      files: { "docs/notes.md": "human\n" },
      message: "docs: human note",
    });
    const mine = await agentCommit("src/second.ts", "2\n", "Add second.");

    const result = await push();
    expect(result.rebased).toBe(true);
    expect(result.sha).not.toBe(mine);
    expect(repo.sha(BRANCH)).toBe(result.sha);
    expect(repo.subjects(BRANCH, 3)).toEqual([
      "feat(second): add second",
      "docs: human note",
      "feat(first): add first",
    ]);
    expect(git(repo.dir, ["merge-base", "--is-ancestor", theirs, BRANCH], env)).toBe("");
    expect(repo.show(BRANCH, "src/second.ts")).toBe("2");
    expect(repo.show(BRANCH, "docs/notes.md")).toBe("human");
  });

  it("on a conflict saves the work to a fallback branch and names the files", async () => {
    await agentCommit("src/new.ts", "n\n", "Add new.");
    await push();
    const theirs = repo.push({
      branch: BRANCH,
      files: {
        "src/config.ts": "export const a = 100;\nexport const b = 2;\nexport const c = 3;\n",
      },
    });
    const mine = await agentCommit(
      "src/config.ts",
      "export const a = 42;\nexport const b = 2;\nexport const c = 3;\n",
      "Fix the default of a.",
    );

    const error = await push().catch((e) => e);
    expect(error).toBeInstanceOf(PushConflictError);
    expect(error.files).toEqual(["src/config.ts"]);
    expect(error.fallbackBranch).toBe(`${BRANCH}-conflict-${mine.slice(0, 7)}`);
    expect(error.sha).toBe(mine);
    expect(repo.sha(error.fallbackBranch)).toBe(mine);
    // Nothing was forced: the other person's commit is still the branch tip.
    expect(repo.sha(BRANCH)).toBe(theirs);
    // The rebase was aborted; the workspace is back on the job's own commit.
    expect(git(ws.dir, ["rev-parse", "HEAD"], env)).toBe(mine);
    expect(git(ws.dir, ["status", "--porcelain", "--untracked-files=no"], env)).toBe("");
  });

  it("gives up after maxRetries and does not retry a server-side rejection", async () => {
    await agentCommit("src/new.ts", "n\n", "Add new.");
    await push();
    repo.push({ branch: BRANCH, files: { "other.txt": "o\n" } });
    await agentCommit("src/more.ts", "m\n", "Add more.");
    await expect(push({ maxRetries: 0 })).rejects.toThrow(/gave up after 0 rebases/);

    const hook = join(repo.dir, "hooks", "pre-receive");
    writeFileSync(hook, "#!/bin/sh\necho 'protected: pushes are frozen' >&2\nexit 1\n");
    chmodSync(hook, 0o755);
    const error = await push().catch((e) => e);
    expect(error).toBeInstanceOf(PushFailedError);
    expect(error.message).toContain("protected: pushes are frozen");
  });

  it("saves a declined branch's commits to a side branch under the prefix", async () => {
    const sha = await agentCommit("src/new.ts", "n\n", "Add new.");
    installHook(ONLY_SIDE_BRANCHES);
    const error = await push({ sideBranchPrefix: "agent/" }).catch((e) => e);
    expect(error).toBeInstanceOf(PushDeclinedError);
    expect(error).toBeInstanceOf(PushFailedError);
    const side = `${BRANCH}-patchwright-${sha.slice(0, 7)}`;
    expect(error.sideBranch).toBe(side);
    expect(error.reason).toBe("pre-receive hook declined; protected: only side branches");
    expect(error.message).toContain(`pushed to "${side}" instead`);
    expect(repo.sha(side)).toBe(sha);
    expect(repo.sha(BRANCH)).toBeNull();

    // A branch outside the prefix (a PR head) gets its side branch under the prefix.
    const head = await push({
      branch: "feature/login",
      allowedBranch: "feature/login",
      sideBranchPrefix: "agent/",
    }).catch((e) => e);
    expect(head.sideBranch).toBe(`agent/feature/login-patchwright-${sha.slice(0, 7)}`);
    expect(repo.sha(head.sideBranch)).toBe(sha);
  });

  it("says nothing was pushed when the side branch is declined too", async () => {
    await agentCommit("src/new.ts", "n\n", "Add new.");
    installHook("#!/bin/sh\necho 'pushes are frozen' >&2\nexit 1\n");
    const error = await push({ sideBranchPrefix: "agent/" }).catch((e) => e);
    expect(error).toBeInstanceOf(PushDeclinedError);
    expect(error.sideBranch).toBeUndefined();
    expect(error.message).toMatch(/failed too: .*pushes are frozen/s);
    expect(repo.sha(BRANCH)).toBeNull();
  });

  it("undoes config the agent planted in the shared mirror before pushing (url.insteadOf)", async () => {
    const evil = createBareRepo({ root: tmp.path, env, name: "evil" });
    const sha = await agentCommit("src/new.ts", "n\n", "Add new.");
    git(ws.dir, ["config", `url.${evil.url}.insteadOf`, repo.url], env);
    git(ws.dir, ["config", "remote.origin.url", evil.url], env);

    const result = await push();
    expect(result.sha).toBe(sha);
    expect(repo.sha(BRANCH)).toBe(sha);
    expect(evil.sha(BRANCH)).toBeNull();
    expect(() => git(ws.dir, ["config", "--get-regexp", "^url\\."], env)).toThrow();
    expect(git(ws.dir, ["remote", "get-url", "origin"], env)).toBe(repo.url);
  });

  it("refuses a worktree whose .git no longer points into the given mirror", async () => {
    await agentCommit("src/new.ts", "n\n", "Add new.");
    writeFileSync(join(ws.dir, ".git"), `gitdir: ${join(tmp.path, "elsewhere")}\n`);
    await expect(push({ mirrorDir: ws.mirrorDir })).rejects.toThrow(/not a worktree of/);
    expect(repo.sha(BRANCH)).toBeNull();
  });

  it("forces a rewritten branch only over the tip it leased, never over someone else's push", async () => {
    const first = await agentCommit("src/one.ts", "one\n", "Add one.");
    await push();
    // The job rewrites its branch (as a rebase does) and forces it with a lease on `first`.
    git(ws.dir, ["reset", "-q", "--hard", ws.baseSha], env);
    const rewritten = await agentCommit("src/two.ts", "two\n", "Add two.");
    expect(await push({ forceWithLease: first })).toMatchObject({ pushed: true, sha: rewritten });
    expect(repo.sha(BRANCH)).toBe(rewritten);

    // Someone pushes meanwhile: a lease on the old tip no longer holds, and nothing is overwritten.
    const theirs = repo.push({ branch: BRANCH, files: { "theirs.txt": "x\n" } });
    git(ws.dir, ["reset", "-q", "--hard", ws.baseSha], env);
    await agentCommit("src/three.ts", "three\n", "Add three.");
    await expect(push({ forceWithLease: rewritten })).rejects.toBeInstanceOf(PushFailedError);
    expect(repo.sha(BRANCH)).toBe(theirs);
  });
});
