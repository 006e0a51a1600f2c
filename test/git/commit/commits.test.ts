import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CommitTurn, createCommits } from "../../../src/git/commit/commits.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../../helpers/git-repos.js";

const identity = { name: "patchwright[bot]", email: "1+patchwright[bot]@users.noreply.github.com" };
const coAuthor = { name: "Octo Cat", login: "octocat", id: 583231 };
const PARSE = "src/parser/parse.ts";

let tmp: TempDir;
let env: Record<string, string>;
let repo: BareRepo;
let work: string;

function setup(hooks?: Record<string, string>) {
  repo = createBareRepo({
    root: tmp.path,
    env,
    gitignore: "dist/\n*.log\n",
    ...(hooks ? { hooks } : {}),
  });
  work = join(tmp.path, "work");
  git(tmp.path, ["clone", "--quiet", repo.url, work], env);
}

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
});

afterEach(() => tmp.remove());

/** Plays the agent: writes a file and returns the change record. */
function change(path: string, content: string | null) {
  const absolute = join(work, path);
  const before = existsSync(absolute) ? readFileSync(absolute) : null;
  if (content === null) rmSync(absolute);
  else {
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
  return { path, before, after: content === null ? null : Buffer.from(content) };
}

function show(ref: string, path: string): string {
  return git(work, ["show", `${ref}:${path}`], env);
}

describe("createCommits", () => {
  it("makes one commit per turn with that turn's files at that turn's content", async () => {
    setup();
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "I'll fix the parser so it handles empty input.",
        files: [change(PARSE, "v1\n"), change("src/parser/empty.ts", "export {};\n")],
      },
      { turn: 2, text: "Now update the README.", files: [change("README.md", "# demo\nusage\n")] },
      { turn: 3, text: "Fixed the parser edge case for commas.", files: [change(PARSE, "v3\n")] },
    ];
    const { commits } = await createCommits({
      dir: work,
      turns,
      identity,
      coAuthor,
      requestUrl: "https://github.com/o/r/issues/4",
      env,
    });

    expect(commits.map((c) => c.subject)).toEqual([
      "fix(parser): fix the parser so it handles empty input",
      "docs(readme): update the README",
      "fix(parser): fix the parser edge case for commas",
    ]);
    expect(commits.map((c) => c.files)).toEqual([
      ["src/parser/empty.ts", PARSE],
      ["README.md"],
      [PARSE],
    ]);
    const [first, , third] = commits;
    expect(show(first?.sha ?? "", PARSE)).toBe("v1");
    expect(show(third?.sha ?? "", PARSE)).toBe("v3");
    expect(git(work, ["rev-list", "--count", "origin/main..HEAD"], env)).toBe("3");
    expect(
      git(work, ["diff-tree", "--no-commit-id", "--name-only", "-r", first?.sha ?? ""], env),
    ).toBe("src/parser/empty.ts\nsrc/parser/parse.ts");

    const trailers = git(work, ["log", "-1", "--format=%(trailers)", first?.sha ?? ""], env);
    expect(trailers).toContain(
      "Co-authored-by: Octo Cat <583231+octocat@users.noreply.github.com>",
    );
    expect(trailers).toContain("Refs: https://github.com/o/r/issues/4");
    expect(git(work, ["log", "-1", "--format=%an <%ae>|%cn <%ce>"], env)).toBe(
      `${identity.name} <${identity.email}>|${identity.name} <${identity.email}>`,
    );
    expect(git(work, ["status", "--porcelain"], env)).toBe("");
  });

  it("commits nothing outside the turns: no stray, ignored or agent-staged files", async () => {
    setup();
    writeFileSync(join(work, "notes.txt"), "scratch\n");
    writeFileSync(join(work, "staged-by-agent.txt"), "oops\n");
    git(work, ["add", "staged-by-agent.txt"], env);
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "Add a build step.",
        files: [
          change("src/build.ts", "build();\n"),
          change("dist/out.js", "compiled\n"),
          change("debug.log", "log\n"),
        ],
      },
    ];
    const { commits } = await createCommits({ dir: work, turns, identity, env });
    expect(commits).toHaveLength(1);
    expect(commits[0]?.files).toEqual(["src/build.ts"]);
    const tree = git(work, ["ls-tree", "-r", "--name-only", "HEAD"], env).split("\n");
    expect(tree).toContain("src/build.ts");
    expect(tree).not.toContain("dist/out.js");
    expect(tree).not.toContain("debug.log");
    expect(tree).not.toContain("notes.txt");
    expect(tree).not.toContain("staged-by-agent.txt");
    expect(git(work, ["status", "--porcelain", "--", "src"], env)).toBe("");
    expect(readFileSync(join(work, "notes.txt"), "utf8")).toBe("scratch\n");
  });

  it("squashes into one commit with the net change", async () => {
    setup();
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "Add a helper.",
        files: [change("src/tmp.ts", "t\n"), change(PARSE, "a\n")],
      },
      { turn: 2, text: "Remove the README.", files: [change("README.md", null)] },
      {
        turn: 3,
        text: "Drop the helper.",
        files: [change("src/tmp.ts", null), change(PARSE, "b\n")],
      },
    ];
    const { commits } = await createCommits({
      dir: work,
      turns,
      identity,
      squash: true,
      squashText: "Rework the parser and drop the README.",
      env,
    });
    expect(commits).toHaveLength(1);
    expect(commits[0]?.turns).toEqual([1, 2, 3]);
    expect(commits[0]?.files.sort()).toEqual(["README.md", PARSE]);
    expect(commits[0]?.subject).toBe("chore: rework the parser and drop the README");
    expect(show("HEAD", PARSE)).toBe("b");
    expect(() => show("HEAD", "README.md")).toThrow();
    expect(git(work, ["status", "--porcelain"], env)).toBe("");
  });

  it("keeps binary bytes, executable bits and odd file names exactly", async () => {
    setup();
    const binary = Buffer.from([0, 255, 1, 2, 10, 13, 0, 128]);
    const script = change("bin/run.sh", "#!/bin/sh\necho hi\n");
    chmodSync(join(work, "bin/run.sh"), 0o755);
    mkdirSync(join(work, "assets"));
    writeFileSync(join(work, "assets/logo.bin"), binary);
    const odd = change("docs/a b*?[x].md", "odd\n");
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "Add assets.",
        files: [script, { path: "assets/logo.bin", before: null, after: binary }, odd],
      },
    ];
    await createCommits({ dir: work, turns, identity, env });
    const blob = git(work, ["rev-parse", "HEAD:assets/logo.bin"], env);
    const bytes = execFileSync("git", ["cat-file", "blob", blob], { cwd: work, env });
    expect(bytes.equals(binary)).toBe(true);
    expect(git(work, ["ls-tree", "HEAD", "bin/run.sh"], env)).toMatch(/^100755 /);
    expect(show("HEAD", "docs/a b*?[x].md")).toBe("odd");
    expect(git(work, ["status", "--porcelain"], env)).toBe("");
  });

  it("skips turns whose net effect is already in HEAD and refuses paths outside the tree", async () => {
    setup();
    const head = git(work, ["rev-parse", "HEAD"], env);
    const same = { path: "README.md", before: Buffer.from("x"), after: Buffer.from("# demo\n") };
    const result = await createCommits({
      dir: work,
      turns: [{ turn: 1, text: "Touch.", files: [same] }],
      identity,
      env,
    });
    expect(result.commits).toEqual([]);
    expect(git(work, ["rev-parse", "HEAD"], env)).toBe(head);
    await expect(
      createCommits({
        dir: work,
        turns: [{ turn: 1, text: "x", files: [{ path: "../evil", before: null, after: null }] }],
        identity,
        env,
      }),
    ).rejects.toThrow(/relative to the workspace root/);
  });

  it("lists a commit's files as git does: only what changed, in the paths' byte order", async () => {
    setup();
    // UTF-16 puts the emoji (a surrogate pair) before U+FF21; UTF-8, as git sorts, after it.
    const names = ["😀.txt", "\uff21.txt", "z.txt", "B.txt"];
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "Add the files, rewrite the README as it was, drop a file never tracked.",
        files: [
          ...names.map((name) => change(name, `${name}\n`)),
          change("README.md", "# demo\n"),
          { path: "never-tracked.txt", before: Buffer.from("x"), after: null },
        ],
      },
      {
        turn: 2,
        text: "Remove the parser and set z back.",
        files: [change(PARSE, null), change("z.txt", "z.txt\n")],
      },
    ];
    for (const detached of [false, true]) {
      const head = git(work, ["rev-parse", "HEAD"], env);
      const { commits } = await createCommits({
        dir: work,
        turns,
        identity,
        env,
        ...(detached ? { detached: { parent: head, indexFile: join(tmp.path, "scratch") } } : {}),
      });
      const byGit = (sha: string) =>
        git(work, ["diff-tree", "-r", "--name-only", "--no-commit-id", "-z", sha], env)
          .split("\0")
          .filter(Boolean);
      expect(commits.map((c) => c.files)).toEqual([
        ["B.txt", "z.txt", "\uff21.txt", "😀.txt"],
        [PARSE],
      ]);
      expect(commits.map((c) => byGit(c.sha))).toEqual(commits.map((c) => c.files));
      if (!detached) git(work, ["reset", "--quiet", "--hard", head], env);
    }
  });

  it("never runs a hook, whether the repository's config or a planted hooks folder names it", async () => {
    const marker = join(work, "..", "hook-ran");
    const hook = `#!/bin/sh\necho "$GIT_AUTHOR_NAME" > '${marker}'\n`;
    setup({ "pre-commit": hook, "commit-msg": hook, "post-commit": hook });
    git(work, ["config", "core.hooksPath", ".githooks"], env);
    for (const name of ["pre-commit", "post-commit"]) {
      writeFileSync(join(work, ".git", "hooks", name), hook, { mode: 0o755 });
    }
    const turns = [{ turn: 1, text: "Add x.", files: [change("src/x.ts", "x\n")] }];
    const { commits } = await createCommits({ dir: work, turns, identity, env });
    expect(commits).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("createCommits, detached", () => {
  /** A second clone of the same remote, for building the same turns the ordinary way. */
  function cloneAgain(name: string): string {
    const dir = join(tmp.path, name);
    git(tmp.path, ["clone", "--quiet", repo.url, dir], env);
    return dir;
  }

  /** Plays the agent in several clones at once: the same bytes land in each working tree. */
  function changeIn(dirs: string[], path: string, content: string | null, mode = 0o644) {
    const [first = ""] = dirs;
    const absolute = join(first, path);
    const before = existsSync(absolute) ? readFileSync(absolute) : null;
    for (const dir of dirs) {
      const target = join(dir, path);
      if (content === null) rmSync(target);
      else {
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, content);
        chmodSync(target, mode);
      }
    }
    return { path, before, after: content === null ? null : Buffer.from(content) };
  }

  /**
   * The parts of a commit object that do not depend on when it was made
   * (parents do, past the first commit: their shas hold timestamps).
   */
  function commitObject(dir: string, sha: string) {
    // Untrimmed: a trailing newline or blank line in the message counts.
    const raw = execFileSync("git", ["cat-file", "-p", sha], { cwd: dir, env, encoding: "utf8" });
    const split = raw.indexOf("\n\n");
    const headers = raw.slice(0, split).split("\n");
    return { tree: headers.find((h) => h.startsWith("tree ")), message: raw.slice(split + 2) };
  }

  function parentsOf(dir: string, sha: string): string[] {
    return git(dir, ["rev-list", "--parents", "-n", "1", sha], env).split(" ").slice(1);
  }

  /** Everything that says where the workspace's branch and index stand. */
  function workspaceState(dir: string) {
    return {
      head: git(dir, ["rev-parse", "HEAD"], env),
      symbolic: git(dir, ["symbolic-ref", "HEAD"], env),
      branch: git(dir, ["rev-parse", "refs/heads/main"], env),
      cached: git(dir, ["diff", "--cached", "--name-status"], env),
      stage: git(dir, ["ls-files", "--stage"], env),
      index: readFileSync(join(dir, ".git", "index")),
    };
  }

  it("builds the same trees and messages as on HEAD, and leaves HEAD, branch and index alone", async () => {
    setup();
    const other = cloneAgain("other");
    const dirs = [work, other];
    // Something the agent staged itself in the detached workspace: it must stay staged.
    writeFileSync(join(work, "staged.txt"), "staged by the agent\n");
    git(work, ["add", "staged.txt"], env);
    const before = workspaceState(work);
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "I'll fix the parser and add a helper.",
        files: [
          changeIn(dirs, PARSE, "v1\n"),
          changeIn(dirs, "src/util/helper.ts", "export const h = 1;\n"),
          changeIn(dirs, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755),
          changeIn(dirs, "dist/out.js", "compiled\n"),
          // Not written to disk: a record of a path inside .git must never reach a tree.
          { path: ".git/hooks/pre-commit", before: null, after: Buffer.from("#!/bin/sh\n") },
        ],
      },
      {
        turn: 2,
        // Whitespace git's cleanup would change, and a "#" line it must keep.
        text: "Removed the README.   \n\n\n\n# Parser\nFixed the parser again.  \n\n",
        files: [changeIn(dirs, "README.md", null), changeIn(dirs, PARSE, "v2\n")],
      },
      // Only an ignored file: no commit either way.
      { turn: 3, text: "Write a log.", files: [changeIn(dirs, "debug.log", "log\n")] },
    ];
    const common = {
      turns,
      identity,
      coAuthor,
      requestUrl: "https://github.com/o/r/issues/4",
      env,
    };
    const start = before.head;
    const indexFile = join(tmp.path, "scratch-index");
    const detached = await createCommits({
      ...common,
      dir: work,
      detached: { parent: start, indexFile },
    });
    const normal = await createCommits({ ...common, dir: other });

    expect(detached.commits).toHaveLength(2);
    expect(normal.commits).toHaveLength(2);
    // Same subjects, files and turns; trees and messages byte for byte.
    expect(detached.commits.map(({ sha: _, ...rest }) => rest)).toEqual(
      normal.commits.map(({ sha: _, ...rest }) => rest),
    );
    detached.commits.forEach((commit, i) => {
      expect(commitObject(work, commit.sha)).toEqual(
        commitObject(other, normal.commits[i]?.sha ?? ""),
      );
    });
    // A chain on the given parent.
    const [first, second] = detached.commits;
    expect(parentsOf(work, first?.sha ?? "")).toEqual([start]);
    expect(parentsOf(work, second?.sha ?? "")).toEqual([first?.sha]);

    // Each commit holds its own turn's content.
    expect(show(first?.sha ?? "", PARSE)).toBe("v1");
    expect(show(second?.sha ?? "", PARSE)).toBe("v2");
    expect(show(first?.sha ?? "", "README.md")).toBe("# demo");
    expect(() => show(second?.sha ?? "", "README.md")).toThrow();
    expect(commitObject(work, second?.sha ?? "").message).toMatch(/^# Parser/m);
    const tree = git(work, ["ls-tree", "-r", second?.sha ?? ""], env);
    expect(tree).toMatch(/^100644 blob \S+\tsrc\/util\/helper\.ts$/m);
    expect(tree).toMatch(/^100755 blob \S+\tbin\/run\.sh$/m);
    for (const never of ["dist/out.js", "debug.log", ".git/hooks/pre-commit", "staged.txt"]) {
      expect(tree).not.toContain(never);
    }

    // The workspace is as the agent left it: HEAD, branch, index (bytes included).
    expect(workspaceState(work)).toEqual(before);
    expect(git(work, ["diff", "--cached", "--name-only"], env)).toBe("staged.txt");
    expect(readFileSync(join(work, PARSE), "utf8")).toBe("v2\n");
    expect(existsSync(indexFile)).toBe(true);
  });

  it("agrees with HEAD mode on an ignored path the agent force-staged: neither commits it", async () => {
    setup();
    const other = cloneAgain("other");
    const dirs = [work, other];
    const turns: CommitTurn[] = [
      {
        turn: 1,
        text: "Build it.",
        files: [changeIn(dirs, "dist/out.js", "compiled\n"), changeIn(dirs, "src/a.ts", "a\n")],
      },
    ];
    // `git add -f` in the agent's shell makes the ignored file look tracked to the index.
    for (const dir of dirs) git(dir, ["add", "-f", "dist/out.js"], env);
    const head = git(work, ["rev-parse", "HEAD"], env);
    const detached = await createCommits({
      dir: work,
      turns,
      identity,
      env,
      detached: { parent: head, indexFile: join(tmp.path, "scratch-index") },
    });
    const normal = await createCommits({ dir: other, turns, identity, env });
    expect(detached.commits.map((c) => c.files)).toEqual([["src/a.ts"]]);
    expect(normal.commits.map((c) => c.files)).toEqual([["src/a.ts"]]);
    expect(commitObject(work, detached.commits[0]?.sha ?? "").tree).toBe(
      commitObject(other, normal.commits[0]?.sha ?? "").tree,
    );
  });

  it("continues a chain across calls as one ordinary run would build it", async () => {
    setup();
    const other = cloneAgain("other");
    const dirs = [work, other];
    const turns: CommitTurn[] = [
      { turn: 1, text: "Fix the parser.", files: [changeIn(dirs, PARSE, "one\n")] },
      { turn: 2, text: "Add notes.", files: [changeIn(dirs, "docs/notes.md", "notes\n")] },
      { turn: 3, text: "Fix the parser again.", files: [changeIn(dirs, PARSE, "three\n")] },
    ];
    // One call per turn, each on the last tip, all through one scratch index (as checkpoints do).
    const indexFile = join(tmp.path, "scratch-index");
    let parent = git(work, ["rev-parse", "HEAD"], env);
    const chain: string[] = [];
    for (const turn of turns) {
      const { commits } = await createCommits({
        dir: work,
        turns: [turn],
        identity,
        env,
        detached: { parent, indexFile },
      });
      expect(commits).toHaveLength(1);
      parent = commits[0]?.sha ?? "";
      chain.push(parent);
    }
    const normal = await createCommits({ dir: other, turns, identity, env });
    expect(chain.map((sha) => commitObject(work, sha))).toEqual(
      normal.commits.map((c) => commitObject(other, c.sha)),
    );
    expect(chain.slice(1).map((sha) => parentsOf(work, sha))).toEqual(
      chain.slice(0, -1).map((sha) => [sha]),
    );
    expect(git(work, ["rev-parse", "HEAD"], env)).toBe(git(other, ["rev-parse", "HEAD~3"], env));
  });

  it("builds on the parent's tree, not on HEAD's or the working tree's", async () => {
    repo = createBareRepo({ root: tmp.path, env, commits: 1 });
    work = join(tmp.path, "work");
    git(tmp.path, ["clone", "--quiet", repo.url, work], env);
    // history.txt exists on HEAD but not on its parent.
    const parent = git(work, ["rev-parse", "HEAD~1"], env);
    const { commits } = await createCommits({
      dir: work,
      turns: [{ turn: 1, text: "Add a.", files: [change("a.txt", "a\n")] }],
      identity,
      env,
      detached: { parent, indexFile: join(tmp.path, "scratch-index") },
    });
    const files = git(work, ["ls-tree", "-r", "--name-only", commits[0]?.sha ?? ""], env);
    expect(files.split("\n").sort()).toEqual(["README.md", "a.txt", PARSE]);
    expect(git(work, ["rev-parse", `${commits[0]?.sha}^`], env)).toBe(parent);
  });

  it("commits nothing when the turns change nothing, and refuses paths outside the tree", async () => {
    setup();
    const head = git(work, ["rev-parse", "HEAD"], env);
    const detached = { parent: head, indexFile: join(tmp.path, "scratch-index") };
    const same = { path: "README.md", before: Buffer.from("x"), after: Buffer.from("# demo\n") };
    const result = await createCommits({
      dir: work,
      turns: [{ turn: 1, text: "Touch.", files: [same] }],
      identity,
      env,
      detached,
    });
    expect(result.commits).toEqual([]);
    const index = readFileSync(join(work, ".git", "index"));
    await expect(
      createCommits({
        dir: work,
        turns: [{ turn: 1, text: "x", files: [{ path: "../evil", before: null, after: null }] }],
        identity,
        env,
        detached,
      }),
    ).rejects.toThrow(/relative to the workspace root/);
    expect(git(work, ["rev-parse", "HEAD"], env)).toBe(head);
    expect(readFileSync(join(work, ".git", "index")).equals(index)).toBe(true);
  });
});
