import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Resumed, resumeFromCheckpoint, resumeNote } from "../../src/change/resume.js";
import { pushCheckpoint } from "../../src/git/commit/checkpoint-ref.js";
import {
  type CommitTurn,
  type CreatedCommit,
  createCommits,
} from "../../src/git/commit/commits.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

const identity = { name: "patchwright[bot]", email: "bot@example.com" };
const REF = "refs/patchwright/wip/job-7";
const PARSE = "src/parser/parse.ts";

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env });
});

afterEach(() => tmp.remove());

function clone(name: string): string {
  const dir = join(tmp.path, name);
  git(tmp.path, ["clone", "--quiet", repo.url, dir], env);
  return dir;
}

const file = (path: string, after: string | null) => ({
  path,
  before: null,
  after: after === null ? null : Buffer.from(after),
});

/**
 * The run that crashed: its turns, committed as checkpoints on its HEAD
 * and saved to the job's ref, as checkpoints.ts does.
 */
async function crashedRun(): Promise<{ start: string; commits: CreatedCommit[] }> {
  const dir = clone("crashed");
  const start = git(dir, ["rev-parse", "HEAD"], env);
  const turns: CommitTurn[] = [
    {
      turn: 1,
      text: "Fix the parser for empty input.",
      files: [file(PARSE, "fixed\n"), file("src/parser/empty.ts", "export {};\n")],
    },
    { turn: 2, text: "Remove the README.", files: [file("README.md", null)] },
  ];
  const { commits } = await createCommits({
    dir,
    turns,
    identity,
    env,
    detached: { parent: start, indexFile: join(tmp.path, "scratch-index") },
  });
  const tip = commits.at(-1)?.sha ?? "";
  await pushCheckpoint({ dir, env, ref: REF, sha: tip, secrets: [] });
  return { start, commits };
}

describe("resumeFromCheckpoint", () => {
  it("is undefined when the job has no checkpoint, and leaves the workspace alone", async () => {
    const dir = clone("next");
    const head = git(dir, ["rev-parse", "HEAD"], env);
    expect(await resumeFromCheckpoint({ dir, env, ref: REF })).toBeUndefined();
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(head);
  });

  it("moves the workspace to the checkpoint and lists its commits, oldest first", async () => {
    const crashed = await crashedRun();
    const dir = clone("next");
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(crashed.start);

    const resumed = await resumeFromCheckpoint({ dir, env, ref: REF });
    const tip = crashed.commits.at(-1)?.sha;
    expect(resumed?.from).toBe(tip);
    expect(resumed?.commits).toEqual(
      crashed.commits.map(({ sha, subject, files }) => ({ sha, subject, files, turns: [] })),
    );
    // The branch, the index and the files on disk are the checkpoint's.
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(tip);
    expect(git(dir, ["rev-parse", "refs/heads/main"], env)).toBe(tip);
    expect(readFileSync(join(dir, PARSE), "utf8")).toBe("fixed\n");
    expect(readFileSync(join(dir, "src/parser/empty.ts"), "utf8")).toBe("export {};\n");
    expect(existsSync(join(dir, "README.md"))).toBe(false);
    expect(git(dir, ["status", "--porcelain"], env)).toBe("");
  });

  it("starts over when the branch moved since the checkpoint grew from it", async () => {
    await crashedRun();
    // Someone pushed to the branch meanwhile: its HEAD is not in the checkpoint's history.
    const moved = repo.push({ branch: "main", files: { "README.md": "# demo\nnews\n" } });
    const dir = clone("next");
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(moved);
    writeFileSync(join(dir, "local.txt"), "untracked\n");

    expect(await resumeFromCheckpoint({ dir, env, ref: REF })).toBeUndefined();
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(moved);
    expect(readFileSync(join(dir, "README.md"), "utf8")).toBe("# demo\nnews\n");
    expect(readFileSync(join(dir, PARSE), "utf8")).not.toBe("fixed\n");
    expect(git(dir, ["status", "--porcelain"], env)).toBe("?? local.txt");
  });

  it("is undefined when the workspace is already at the checkpoint", async () => {
    const crashed = await crashedRun();
    const dir = clone("next");
    const tip = crashed.commits.at(-1)?.sha ?? "";
    git(dir, ["fetch", "--quiet", "origin", `${REF}:${REF}`], env);
    git(dir, ["reset", "--quiet", "--hard", tip], env);
    expect(await resumeFromCheckpoint({ dir, env, ref: REF })).toBeUndefined();
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(tip);
  });
});

describe("resumeFromCheckpoint on a branch the earlier run pushed", () => {
  it("lists the work since the base when the branch already holds the checkpoint", async () => {
    const crashed = await crashedRun();
    const tip = crashed.commits.at(-1)?.sha ?? "";
    // The earlier run pushed its branch, then died before opening the pull request.
    const pushed = clone("pushed");
    git(pushed, ["fetch", "--quiet", "origin", `${REF}:${REF}`], env);
    git(pushed, ["push", "--quiet", "origin", `${tip}:refs/heads/patchwright/issue-7`], env);
    const dir = clone("rerun");
    git(dir, ["checkout", "--quiet", "-b", "work", "origin/patchwright/issue-7"], env);

    const resumed = await resumeFromCheckpoint({ dir, env, ref: REF, base: crashed.start });
    expect(resumed?.from).toBe(tip);
    expect(resumed?.commits.map((c) => c.sha)).toEqual(crashed.commits.map((c) => c.sha));
    // Nothing moved: the branch is the work.
    expect(git(dir, ["rev-parse", "HEAD"], env)).toBe(tip);
  });

  it("is undefined there without a base to count from (the branch is taken as it is)", async () => {
    const crashed = await crashedRun();
    const tip = crashed.commits.at(-1)?.sha ?? "";
    const dir = clone("rerun");
    git(dir, ["fetch", "--quiet", "origin", `${REF}:${REF}`], env);
    git(dir, ["reset", "--quiet", "--hard", tip], env);
    expect(await resumeFromCheckpoint({ dir, env, ref: REF, base: tip })).toBeUndefined();
  });
});

describe("resumeNote", () => {
  it("names each commit by short sha and subject, and counts them", async () => {
    const crashed = await crashedRun();
    const dir = clone("next");
    const resumed = await resumeFromCheckpoint({ dir, env, ref: REF });
    expect(resumed).toBeDefined();
    const note = resumeNote(resumed as Resumed);
    for (const commit of crashed.commits) {
      expect(note).toContain(`- ${commit.sha.slice(0, 7)} ${commit.subject}`);
      expect(note).not.toContain(commit.sha);
    }
    expect(note).toContain(`(${crashed.commits.length} commits)`);
  });

  it("says 1 commit, not 1 commits", () => {
    const commit = { sha: "0123456789abcdef", subject: "fix: the parser", files: ["a"], turns: [] };
    const note = resumeNote({ from: commit.sha, commits: [commit] });
    expect(note).toContain("(1 commit)");
    expect(note).toContain("- 0123456 fix: the parser");
  });
});
