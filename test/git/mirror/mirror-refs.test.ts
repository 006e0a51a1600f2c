import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mirrorRefs } from "../../../src/git/mirror/mirror-refs.js";
import {
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

/**
 * The mirror's refs read from its files, against what git itself says about
 * the same repository. A git that cannot be started (PATH without it) shows
 * which answers came from the files alone.
 */

let tmp: TempDir;
let env: Record<string, string>;
let dir: string;
let first: string;
let second: string;
/** Options whose git cannot start: any answer given with them came from the files. */
let noGit: { env: Record<string, string> };

beforeEach(() => {
  tmp = makeTempDir("pw-mirror-refs-");
  env = gitTestEnv(tmp.path);
  const repo = createBareRepo({ root: tmp.path, env, commits: 1 });
  dir = repo.dir;
  first = git(dir, ["rev-parse", "main~1"], env);
  second = git(dir, ["rev-parse", "main"], env);
  git(dir, ["update-ref", "refs/remotes/origin/main", second], env);
  git(dir, ["update-ref", "refs/remotes/origin/agent/issue-7", first], env);
  git(dir, ["update-ref", "refs/heads/agent/issue-9", first], env);
  const emptyPath = join(tmp.path, "no-git-here");
  mkdirSync(emptyPath);
  noGit = { env: { ...env, PATH: emptyPath } };
});

afterEach(() => tmp.remove());

async function answers(options: { env: Record<string, string> }) {
  const refs = mirrorRefs(dir, options);
  return {
    main: await refs.remoteTip("main"),
    issue7: await refs.remoteTip("agent/issue-7"),
    missing: await refs.remoteTip("agent/issue-8"),
    folder: await refs.remoteTip("agent"),
    local9: await refs.hasLocal("agent/issue-9"),
    localMain: await refs.hasLocal("main"),
    local7: await refs.hasLocal("agent/issue-7"),
  };
}

const EXPECTED = () => ({
  main: second,
  issue7: first,
  missing: undefined,
  folder: undefined,
  local9: true,
  localMain: true,
  local7: false,
});

describe("mirrorRefs", () => {
  it("reads loose refs without starting git", async () => {
    expect(await answers(noGit)).toEqual(EXPECTED());
  });

  it("reads packed refs, and a loose ref written after the packing wins over its packed line", async () => {
    git(dir, ["pack-refs", "--all"], env);
    expect(await answers(noGit)).toEqual(EXPECTED());
    // A fetch after `gc` writes the moved ref loose; its packed line is stale.
    git(dir, ["update-ref", "refs/remotes/origin/agent/issue-7", second], env);
    expect(await mirrorRefs(dir, noGit).remoteTip("agent/issue-7")).toBe(second);
    // A deleted ref leaves neither.
    git(dir, ["update-ref", "-d", "refs/remotes/origin/main"], env);
    expect(await mirrorRefs(dir, noGit).remoteTip("main")).toBeUndefined();
    expect(await mirrorRefs(dir, { env }).remoteTip("main")).toBeUndefined();
  });

  it("asks git when a ref is symbolic, and answers as git does", async () => {
    git(dir, ["symbolic-ref", "refs/remotes/origin/trunk", "refs/remotes/origin/main"], env);
    await expect(mirrorRefs(dir, noGit).remoteTip("trunk")).rejects.toThrow();
    const refs = mirrorRefs(dir, { env });
    expect(await refs.remoteTip("trunk")).toBe(second);
    // Once it asked git, git answers the rest too.
    expect(await refs.remoteTip("agent/issue-7")).toBe(first);
    expect(await refs.hasLocal("agent/issue-9")).toBe(true);
  });

  it("asks git once, however many names are asked for at the same time", async () => {
    git(dir, ["symbolic-ref", "refs/remotes/origin/trunk", "refs/remotes/origin/main"], env);
    git(
      dir,
      ["symbolic-ref", "refs/remotes/origin/stable", "refs/remotes/origin/agent/issue-7"],
      env,
    );
    const bin = join(tmp.path, "bin");
    mkdirSync(bin);
    const log = join(tmp.path, "git-calls.log");
    const realGit = execFileSync("sh", ["-c", "command -v git"], { env, encoding: "utf8" }).trim();
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$1" >> ${log}\nexec ${realGit} "$@"\n`, {
      mode: 0o755,
    });
    const refs = mirrorRefs(dir, { env: { ...env, PATH: `${bin}:${env.PATH}` } });
    const answers = await Promise.all([
      refs.remoteTip("trunk"),
      refs.remoteTip("stable"),
      refs.remoteTip("main"),
      refs.remoteTip("agent/issue-7"),
      refs.hasLocal("agent/issue-9"),
    ]);
    expect(answers).toEqual([second, first, second, first, true]);
    expect(await refs.remoteTip("trunk")).toBe(second);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["for-each-ref"]);
  });

  it("asks git when a loose ref holds something else than an object id", async () => {
    writeFileSync(join(dir, "refs/remotes/origin/broken"), "not an id\n");
    await expect(mirrorRefs(dir, noGit).remoteTip("main")).resolves.toBe(second);
    await expect(mirrorRefs(dir, noGit).remoteTip("broken")).rejects.toThrow();
    expect(await answers({ env })).toEqual(EXPECTED());
  });

  it("asks git for a store that is not made of files (reftable)", async () => {
    mkdirSync(join(dir, "reftable"));
    await expect(mirrorRefs(dir, noGit).remoteTip("main")).rejects.toThrow();
    expect(await answers({ env })).toEqual(EXPECTED());
  });

  it("never reads a path outside the refs for a name with dot segments", async () => {
    writeFileSync(join(tmp.path, "outside"), `${first}\n`);
    await expect(mirrorRefs(dir, noGit).remoteTip("../../../../outside")).rejects.toThrow();
    expect(await mirrorRefs(dir, { env }).remoteTip("../../../../outside")).toBeUndefined();
  });
});
