import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CommitTurn, createCommits } from "../../src/git/commits.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

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
