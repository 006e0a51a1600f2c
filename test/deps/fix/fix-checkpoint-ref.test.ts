import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dropFixCheckpoint,
  type FixCheckpointTarget,
  loadFixCheckpoint,
  type SavedFix,
  saveFixCheckpoint,
  updatesKey,
} from "../../../src/deps/fix/fix-checkpoint.js";
import { SecretInCommitError } from "../../../src/git/push/secret-scan.js";
import { type BareRepo, createBareRepo, git, gitTestEnv } from "../../helpers/git-repos.js";

/**
 * The dependency fix's checkpoint against a local bare repository: what is
 * saved comes back byte for byte (binary files, deletions, the executable
 * bit), a checkpoint for other updates or another base is not taken, and a
 * secret in the agent's files never leaves.
 */

let root: string;
let env: Record<string, string>;
let repo: BareRepo;
let dir: string;
let base: string;
let target: FixCheckpointTarget;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "pw-fix-ref-"));
  env = gitTestEnv(join(root, "home"));
  repo = createBareRepo({
    root,
    env,
    files: { "index.js": "module.exports = 1;\n", "old.js": "gone soon\n", "run.sh": "echo\n" },
  });
  dir = join(root, "work");
  git(root, ["clone", "--quiet", repo.url, dir], env);
  git(dir, ["update-index", "--chmod=+x", "run.sh"], env);
  git(dir, ["commit", "--quiet", "-m", "executable"], env);
  git(dir, ["push", "--quiet", "origin", "HEAD:main"], env);
  base = git(dir, ["rev-parse", "HEAD"], env).trim();
  target = {
    dir,
    remoteUrl: repo.url,
    env,
    identity: { name: "bot", email: "bot@example.com" },
    ref: "refs/patchwright/wip/job-1-deps-minor",
    secrets: [{ name: "ANTHROPIC_API_KEY", value: "sk-ant-secret-value-123456" }],
  };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const binary = Buffer.from([0, 255, 1, 254, 10, 13, 0]);

function fix(files: Map<string, Buffer | null>, extra: Partial<SavedFix> = {}): SavedFix {
  return {
    updates: updatesKey([
      { name: "zeta", to: "2.0.0" },
      { name: "alpha", to: "1.1.0" },
    ]),
    finished: true,
    stopReason: "end_turn",
    costUsd: 0.0421,
    summary: "Use the new API.\n\nPatchwright-Updates: this line is the model's, not ours",
    files,
    ...extra,
  };
}

describe("the dependency fix checkpoint", () => {
  it("comes back as saved: contents, deletions, modes and the report's fields", async () => {
    const files = new Map<string, Buffer | null>([
      ["index.js", Buffer.from("module.exports = 2;\n")],
      ["assets/logo.bin", binary],
      ["old.js", null],
      ["run.sh", Buffer.from("echo fixed\n")],
    ]);
    const sha = await saveFixCheckpoint(target, base, fix(files));
    expect(git(repo.dir, ["rev-parse", target.ref], env).trim()).toBe(sha);
    // The executable bit of a file the agent edited stays.
    expect(git(repo.dir, ["ls-tree", sha, "run.sh"], env)).toMatch(/^100755 /);

    const loaded = await loadFixCheckpoint(target, base, ["alpha@1.1.0", "zeta@2.0.0"]);
    expect(loaded?.finished).toBe(true);
    expect(loaded?.stopReason).toBe("end_turn");
    expect(loaded?.costUsd).toBe(0.0421);
    expect(loaded?.summary).toBe(
      "Use the new API.\n\nPatchwright-Updates: this line is the model's, not ours",
    );
    expect(loaded?.updates).toEqual(["alpha@1.1.0", "zeta@2.0.0"]);
    expect([...(loaded?.files.keys() ?? [])].sort()).toEqual([
      "assets/logo.bin",
      "index.js",
      "old.js",
      "run.sh",
    ]);
    expect(loaded?.files.get("assets/logo.bin")?.equals(binary)).toBe(true);
    expect(loaded?.files.get("old.js")).toBeNull();
    expect(loaded?.files.get("index.js")?.toString()).toBe("module.exports = 2;\n");
  });

  it("is not taken for other updates or another base", async () => {
    await saveFixCheckpoint(
      target,
      base,
      fix(new Map([["index.js", Buffer.from("x\n")]]), { finished: false }),
    );
    expect(await loadFixCheckpoint(target, base, ["alpha@1.1.0"])).toBeUndefined();
    expect(await loadFixCheckpoint(target, base, ["alpha@1.2.0", "zeta@2.0.0"])).toBeUndefined();
    git(dir, ["commit", "--quiet", "--allow-empty", "-m", "base moved"], env);
    const moved = git(dir, ["rev-parse", "HEAD"], env).trim();
    expect(await loadFixCheckpoint(target, moved, ["alpha@1.1.0", "zeta@2.0.0"])).toBeUndefined();
    const same = await loadFixCheckpoint(target, base, ["alpha@1.1.0", "zeta@2.0.0"]);
    expect(same?.finished).toBe(false);
  });

  it("refuses to push a secret the agent wrote into a file", async () => {
    const before = git(repo.dir, ["rev-parse", target.ref], env).trim();
    await expect(
      saveFixCheckpoint(
        target,
        base,
        fix(new Map([["config.js", Buffer.from('key = "sk-ant-secret-value-123456"\n')]])),
      ),
    ).rejects.toBeInstanceOf(SecretInCommitError);
    expect(git(repo.dir, ["rev-parse", target.ref], env).trim()).toBe(before);
  });

  it("is gone once dropped, and nothing is found then", async () => {
    await dropFixCheckpoint({ ...target, dir: repo.dir });
    expect(() => git(repo.dir, ["rev-parse", "--verify", "--quiet", target.ref], env)).toThrow();
    expect(await loadFixCheckpoint(target, base, ["alpha@1.1.0", "zeta@2.0.0"])).toBeUndefined();
    // Dropping what is not there is fine.
    await dropFixCheckpoint({ ...target, dir: repo.dir });
  });
});
