import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, inject, it } from "vitest";
import { initBareRepository } from "../../../src/git/mirror/bare-init.js";
import { git, gitTestEnv, makeTempDir, type TempDir } from "../../helpers/git-repos.js";
import { compiled } from "../../helpers/source-build.js";

/**
 * A mirror's repository is written by us, not by `git init --bare` (one
 * process fewer before the first fetch): git must take it for the
 * repository its own init makes on the same filesystem.
 */

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function world() {
  const tmp = makeTempDir("pw-bare-init-");
  dirs.push(tmp);
  return { tmp: tmp.path, env: gitTestEnv(join(tmp.path, "home")) };
}

describe("initBareRepository", () => {
  it("makes what git init --bare makes, as git reads it", async () => {
    const { tmp, env } = world();
    const ours = join(tmp, "ours.git");
    initBareRepository(ours);
    const gits = join(tmp, "gits.git");
    git(tmp, ["init", "--bare", "--quiet", gits], env);

    const list = (dir: string) => git(dir, ["config", "--list", "--local"], env);
    expect(list(ours)).toBe(list(gits));
    expect(git(ours, ["rev-parse", "--is-bare-repository"], env).trim()).toBe("true");
    expect(git(ours, ["rev-parse", "--git-dir"], env).trim()).toBe(".");
    expect(git(ours, ["symbolic-ref", "HEAD"], env).trim()).toBe("refs/heads/main");
    for (const sub of ["objects/info", "objects/pack", "refs/heads", "refs/tags"]) {
      expect(statSync(join(ours, sub)).isDirectory()).toBe(true);
    }
    // No probe is left behind, and no template file is made.
    expect(readdirSync(ours).sort()).toEqual(["HEAD", "config", "objects", "refs"]);
  });

  it("leaves no probe behind on Node 24 either, where the Action and the Docker image run", () => {
    const node24 = inject("node24");
    if (!node24) throw new Error(`this test runs on Node 24: ${inject("node24Problem")}`);
    const { tmp } = world();
    const ours = join(tmp, "ours.git");
    const url = pathToFileURL(compiled("src/git/mirror/bare-init.ts")).href;
    const ran = spawnSync(
      node24,
      [
        "--input-type=module",
        "-e",
        `const { initBareRepository } = await import(${JSON.stringify(url)});\ninitBareRepository(${JSON.stringify(ours)});\nconsole.log(process.versions.node);`,
      ],
      { encoding: "utf8" },
    );
    expect(ran.stderr).toBe("");
    expect(ran.stdout.trim()).toMatch(/^24\./);
    // Node 23 and later's rmSync left the probe's dangling link here.
    expect(readdirSync(ours).sort()).toEqual(["HEAD", "config", "objects", "refs"]);
  });

  it("takes a fetch, a commit and a worktree like a repository git made", async () => {
    const { tmp, env } = world();
    const source = join(tmp, "source");
    mkdirSync(source);
    git(source, ["init", "--quiet", "-b", "main"], env);
    git(source, ["commit", "--quiet", "--allow-empty", "-m", "first"], env);
    const ours = join(tmp, "ours.git");
    initBareRepository(ours);
    git(ours, ["fetch", "--quiet", source, "+refs/heads/*:refs/remotes/origin/*"], env);
    git(ours, ["worktree", "add", "--quiet", "-b", "work", join(tmp, "wt"), "origin/main"], env);
    expect(git(join(tmp, "wt"), ["log", "--format=%s"], env).trim()).toBe("first");
    expect(git(ours, ["fsck", "--no-progress"], env)).toBe("");
  });
});
