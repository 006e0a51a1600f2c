import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkpointRef,
  deleteCheckpoint,
  fetchCheckpoint,
  pushCheckpoint,
} from "../../../src/git/commit/checkpoint-ref.js";
import { createCommits } from "../../../src/git/commit/commits.js";
import { PushRefusedError } from "../../../src/git/push/push-context.js";
import { SecretInCommitError } from "../../../src/git/push/secret-scan.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

const identity = { name: "patchwright[bot]", email: "bot@example.com" };
const REF = "refs/patchwright/wip/job-1";
// Not a well-known token shape: only the list of known secrets can catch it.
const API_KEY = { name: "ANTHROPIC_API_KEY", value: "operator-key-0123456789abcdef" };

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let work: string;
let start: string;

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env });
  work = clone("work");
  start = git(work, ["rev-parse", "HEAD"], env);
});

afterEach(() => tmp.remove());

function clone(name: string): string {
  const dir = join(tmp.path, name);
  git(tmp.path, ["clone", "--quiet", repo.url, dir], env);
  return dir;
}

/** A checkpoint commit on `parent`, built the way checkpoints are (HEAD untouched). */
async function checkpointCommit(parent: string, path: string, content: string): Promise<string> {
  const { commits } = await createCommits({
    dir: work,
    turns: [
      {
        turn: 1,
        text: `Write ${path}.`,
        files: [{ path, before: null, after: Buffer.from(content) }],
      },
    ],
    identity,
    env,
    detached: { parent, indexFile: join(tmp.path, "scratch-index") },
  });
  return commits[0]?.sha ?? "";
}

/** The ref's sha on the remote, or null. */
function remoteRef(ref: string): string | null {
  try {
    return git(repo.dir, ["rev-parse", "--verify", "--quiet", ref], env);
  } catch {
    return null;
  }
}

describe("checkpointRef", () => {
  it("puts the job id under refs/patchwright/wip/, with anything unsafe replaced", () => {
    expect(checkpointRef("0b6f6c1e-3f7a-4a52-9d6b-2c1f0a7e9b11")).toBe(
      "refs/patchwright/wip/0b6f6c1e-3f7a-4a52-9d6b-2c1f0a7e9b11",
    );
    expect(checkpointRef("owner/repo#12 x")).toBe("refs/patchwright/wip/owner-repo-12-x");
    // Every character git forbids in a ref name becomes one "-", so git accepts the result.
    const odd = checkpointRef("a/b c~d^e:f?g*h[i]j\\k@{l}");
    expect(odd).toBe("refs/patchwright/wip/a-b-c-d-e-f-g-h-i-j-k--l-");
    expect(git(work, ["check-ref-format", odd], env)).toBe("");
  });

  it("refuses ids that cannot make a ref of their own", () => {
    for (const id of ["", "a..b", "-x", "..", "."]) {
      expect(() => checkpointRef(id), id).toThrow(PushRefusedError);
    }
  });
});

describe("pushCheckpoint", () => {
  it("force-pushes each checkpoint over the last, even when it does not fast-forward", async () => {
    const first = await checkpointCommit(start, "a.txt", "a\n");
    await pushCheckpoint({ dir: work, env, ref: REF, sha: first, secrets: [API_KEY] });
    expect(remoteRef(REF)).toBe(first);

    // A sibling of the first: replacing it is not a fast-forward.
    const second = await checkpointCommit(start, "b.txt", "b\n");
    await pushCheckpoint({ dir: work, env, ref: REF, sha: second, secrets: [API_KEY] });
    expect(remoteRef(REF)).toBe(second);
    expect(git(repo.dir, ["show", `${REF}:b.txt`], env)).toBe("b");
    // Only the checkpoint ref moved: the branch and the workspace are as they were.
    expect(repo.sha("main")).toBe(start);
    expect(git(work, ["rev-parse", "HEAD"], env)).toBe(start);
  });

  it("refuses a commit holding a known secret or a token shape, and the ref stays absent", async () => {
    const leaky = await checkpointCommit(start, "config.txt", `key=${API_KEY.value}\n`);
    const error = await pushCheckpoint({
      dir: work,
      env,
      ref: REF,
      sha: leaky,
      secrets: [API_KEY],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SecretInCommitError);
    expect((error as SecretInCommitError).findings).toEqual([
      { commit: leaky, where: "file", path: "config.txt", what: API_KEY.name },
    ]);
    expect(String(error)).not.toContain(API_KEY.value);
    expect(remoteRef(REF)).toBeNull();

    const shaped = await checkpointCommit(
      start,
      "t.txt",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
    );
    await expect(
      pushCheckpoint({ dir: work, env, ref: REF, sha: shaped, secrets: [] }),
    ).rejects.toThrow(SecretInCommitError);
    expect(remoteRef(REF)).toBeNull();
  });

  it("scans for the push token too, and a refused checkpoint leaves the saved one in place", async () => {
    const token = "push-token-abcdefghijklmnop";
    const good = await checkpointCommit(start, "a.txt", "a\n");
    await pushCheckpoint({ dir: work, env, ref: REF, sha: good, secrets: [], token });
    const leaky = await checkpointCommit(good, "b.txt", `token ${token}\n`);
    await expect(
      pushCheckpoint({ dir: work, env, ref: REF, sha: leaky, secrets: [], token }),
    ).rejects.toThrow(/the push token in the file b\.txt/);
    expect(remoteRef(REF)).toBe(good);
  });

  it("refuses refs outside refs/patchwright/wip/ before anything reaches the remote", async () => {
    const sha = await checkpointCommit(start, "a.txt", "a\n");
    for (const ref of [
      "refs/heads/main",
      "refs/heads/wip",
      "refs/patchwright/wip/../../heads/main",
    ]) {
      await expect(pushCheckpoint({ dir: work, env, ref, sha, secrets: [] })).rejects.toThrow(
        PushRefusedError,
      );
      await expect(fetchCheckpoint({ dir: work, env, ref })).rejects.toThrow(PushRefusedError);
      await expect(deleteCheckpoint({ dir: work, env, ref })).rejects.toThrow(PushRefusedError);
    }
    expect(repo.sha("main")).toBe(start);
    expect(repo.sha("wip")).toBeNull();
  });
});

describe("fetchCheckpoint and deleteCheckpoint", () => {
  it("fetch what another worker saved, undefined when there is none; delete removes it", async () => {
    const other = clone("other");
    expect(await fetchCheckpoint({ dir: other, env, ref: REF })).toBeUndefined();

    const sha = await checkpointCommit(start, "a.txt", "a\n");
    await pushCheckpoint({ dir: work, env, ref: REF, sha, secrets: [] });
    expect(await fetchCheckpoint({ dir: other, env, ref: REF })).toBe(sha);
    // The commit itself is now in the other workspace.
    expect(git(other, ["show", `${sha}:a.txt`], env)).toBe("a");

    await deleteCheckpoint({ dir: work, env, ref: REF });
    expect(remoteRef(REF)).toBeNull();
    // The ref fetched earlier is still local, but the remote's answer wins.
    expect(await fetchCheckpoint({ dir: other, env, ref: REF })).toBeUndefined();
    // Deleting what is already gone is fine.
    await expect(deleteCheckpoint({ dir: work, env, ref: REF })).resolves.toBeUndefined();
  });

  it("fetch follows the remote when the checkpoint was replaced", async () => {
    const other = clone("other");
    const first = await checkpointCommit(start, "a.txt", "a\n");
    await pushCheckpoint({ dir: work, env, ref: REF, sha: first, secrets: [] });
    expect(await fetchCheckpoint({ dir: other, env, ref: REF })).toBe(first);
    const second = await checkpointCommit(start, "b.txt", "b\n");
    await pushCheckpoint({ dir: work, env, ref: REF, sha: second, secrets: [] });
    expect(await fetchCheckpoint({ dir: other, env, ref: REF })).toBe(second);
  });
});
