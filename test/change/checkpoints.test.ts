import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FileHistory } from "../../src/agent/file-history.js";
import { createRedactor } from "../../src/agent/redact.js";
import { type CheckpointerOptions, createCheckpointer } from "../../src/change/checkpoints.js";
import { buildCommitMessage } from "../../src/git/commit/commit-message.js";
import {
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

const identity = { name: "patchwright[bot]", email: "bot@example.com" };
const PARSE = "src/parser/parse.ts";
// A checkpoint is several git processes: room for a loaded machine.
const WAIT = { timeout: 10_000 };

let tmp: TempDir;
let env: Record<string, string>;
let work: string;
let start: string;
let history: FileHistory;
let savedTmpdir: string | undefined;

beforeEach(() => {
  tmp = makeTempDir();
  env = gitTestEnv(join(tmp.path, "home"));
  const repo = createBareRepo({ root: tmp.path, env, gitignore: "dist/\n" });
  work = join(tmp.path, "work");
  git(tmp.path, ["clone", "--quiet", repo.url, work], env);
  start = git(work, ["rev-parse", "HEAD"], env);
  history = new FileHistory();
  // The scratch index goes under os.tmpdir(): a folder of this test's own, to see it removed.
  savedTmpdir = process.env.TMPDIR;
  process.env.TMPDIR = join(tmp.path, "scratch");
  mkdirSync(process.env.TMPDIR);
});

afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  tmp.remove();
});

/** Plays the agent's tools: writes the file and records the change in the history. */
function edit(turn: number, path: string, content: string | null, toolCallId = `call-${turn}`) {
  const absolute = join(work, path);
  const before = existsSync(absolute) ? readFileSync(absolute) : null;
  if (content === null) rmSync(absolute);
  else {
    mkdirSync(dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
  const after = content === null ? null : Buffer.from(content);
  history.record({ turn, tool: "write_file", toolCallId, path, before, after });
}

function head(): string {
  return git(work, ["rev-parse", "HEAD"], env);
}

function show(sha: string, path: string): string {
  return git(work, ["show", `${sha}:${path}`], env);
}

function parentOf(sha: string): string {
  return git(work, ["rev-parse", `${sha}^`], env);
}

/** A checkpointer on the workspace whose saves are recorded, with HEAD as each save saw it. */
function checkpointer(overrides: Partial<CheckpointerOptions> = {}) {
  const saves: Array<{ sha: string; head: string }> = [];
  const errors: unknown[] = [];
  const cp = createCheckpointer({
    dir: work,
    env,
    start,
    history,
    identity,
    redact: createRedactor(),
    save: async (sha) => {
      saves.push({ sha, head: head() });
    },
    onError: (error) => errors.push(error),
    ...overrides,
  });
  /** The agent loop's events for the start of a turn and the model's words in it. */
  const turn = (n: number, text: string) => {
    cp.listener({ type: "turn_start", turn: n });
    cp.listener({ type: "text", turn: n, text });
  };
  return { cp, saves, errors, turn };
}

const TEXTS = {
  1: "I'll fix the parser and add a helper.",
  2: "Now update the README.",
  4: "Fix the parser again.",
};

describe("createCheckpointer", () => {
  it("commits each turn that changed files once the next turn starts, chained on start", async () => {
    const { cp, saves, errors, turn } = checkpointer({
      coAuthor: { name: "Octo Cat", login: "octocat", id: 583231 },
      requestUrl: "https://github.com/o/r/issues/4",
    });
    turn(1, TEXTS[1]);
    edit(1, PARSE, "v1\n");
    edit(1, "src/util/helper.ts", "export const h = 1;\n");

    turn(2, TEXTS[2]);
    // Recorded before turn 1's checkpoint has had a chance to run: it must not get in.
    edit(2, "README.md", "# demo\nusage\n");
    await vi.waitFor(() => expect(saves).toHaveLength(1), WAIT);
    const first = saves[0]?.sha ?? "";
    expect(parentOf(first)).toBe(start);
    expect(show(first, PARSE)).toBe("v1");
    expect(show(first, "README.md")).toBe("# demo");

    turn(3, "Let me run the tests.");
    // Only an ignored build output: nothing to commit for turn 3.
    edit(3, "dist/out.js", "built\n");
    turn(4, TEXTS[4]);
    await vi.waitFor(() => expect(saves).toHaveLength(2), WAIT);
    edit(4, PARSE, "v4\n");
    expect(head()).toBe(start);

    const chain = await cp.finish();
    expect(errors).toEqual([]);
    expect(chain.complete).toBe(true);
    expect(chain.saved).toBe(true);
    expect(chain.commits.map((c) => c.turns)).toEqual([[1], [2], [4]]);
    expect(chain.commits.map((c) => c.files)).toEqual([
      [PARSE, "src/util/helper.ts"],
      ["README.md"],
      [PARSE],
    ]);
    // Each commit's message comes from its own turn's words.
    const texts = [TEXTS[1], TEXTS[2], TEXTS[4]];
    expect(chain.commits.map((c) => c.subject)).toEqual(
      chain.commits.map(
        (c, i) => buildCommitMessage({ text: texts[i] ?? "", files: c.files }).subject,
      ),
    );
    expect(chain.commits.map((c) => git(work, ["log", "-1", "--format=%s", c.sha], env))).toEqual(
      chain.commits.map((c) => c.subject),
    );
    const shas = chain.commits.map((c) => c.sha);
    expect(saves.map((s) => s.sha)).toEqual(shas);
    expect(chain.tip).toBe(shas[2]);
    expect(shas.map(parentOf)).toEqual([start, shas[0], shas[1]]);
    // Each commit holds its own turn's content, and the last one everything.
    expect(show(shas[2] ?? "", PARSE)).toBe("v4");
    expect(show(shas[2] ?? "", "README.md")).toBe("# demo\nusage");
    expect(() => show(shas[2] ?? "", "dist/out.js")).toThrow();
    const trailers = git(work, ["log", "-1", "--format=%(trailers)", chain.tip], env);
    expect(trailers).toContain("Refs: https://github.com/o/r/issues/4");
    expect(trailers).toContain("Co-authored-by: Octo Cat");

    // HEAD never moved, the index was never touched: the agent's work shows as unstaged changes.
    expect(saves.map((s) => s.head)).toEqual([start, start, start]);
    expect(head()).toBe(start);
    expect(git(work, ["rev-parse", "refs/heads/main"], env)).toBe(start);
    expect(git(work, ["diff", "--cached", "--name-only"], env)).toBe("");
    expect(git(work, ["diff", "--name-only"], env).split("\n")).toEqual(["README.md", PARSE]);
    // The scratch index is gone once the chain is finished.
    expect(readdirSync(process.env.TMPDIR ?? "")).toEqual([]);
  });

  it("returns start and saves nothing when no turn changed a file", async () => {
    const { cp, saves, turn } = checkpointer();
    turn(1, "Let me look around.");
    turn(2, "Nothing to change.");
    const chain = await cp.finish();
    expect(chain).toEqual({ tip: start, commits: [], saved: false, complete: true });
    expect(saves).toEqual([]);
  });

  it("discards for a failed session: waits for the checkpoint under way, commits no more, leaves no scratch index", async () => {
    const { cp, saves, errors, turn } = checkpointer();
    turn(1, TEXTS[1]);
    edit(1, PARSE, "v1\n");
    // Turn 1 is checkpointed as turn 2 starts; turn 2's edit is never committed.
    turn(2, TEXTS[2]);
    edit(2, "README.md", "# demo\nusage\n");
    await cp.discard();
    expect(errors).toEqual([]);
    expect(saves).toHaveLength(1);
    expect(show(saves[0]?.sha ?? "", "README.md")).toBe("# demo");
    expect(readdirSync(process.env.TMPDIR ?? "")).toEqual([]);
  });

  it("passes commit messages through redact", async () => {
    const secret = "s3cr3t-value-of-the-operator";
    const { cp, turn } = checkpointer({ redact: createRedactor([secret]) });
    turn(1, `Fix the parser with ${secret} and ghp_abcdefghijklmnopqrstuvwxyz0123456789.`);
    edit(1, PARSE, "v1\n");
    const chain = await cp.finish();
    const message = git(work, ["log", "-1", "--format=%B", chain.tip], env);
    expect(chain.commits).toHaveLength(1);
    expect(message).toContain("[redacted: ");
    expect(message).not.toContain(secret);
    expect(message).not.toContain("ghp_");
  });

  it("keeps the chain going past a failed save, and reports whether the last one was saved", async () => {
    let calls = 0;
    const attempted: string[] = [];
    const { cp, errors, turn } = checkpointer({
      // The first and third saves fail: the remote was down.
      save: async (sha) => {
        attempted.push(sha);
        calls++;
        if (calls % 2 === 1) throw new Error(`remote down (${calls})`);
      },
    });
    turn(1, "Fix the parser.");
    edit(1, PARSE, "v1\n");
    turn(2, "Add a helper.");
    edit(2, "src/helper.ts", "h\n");
    await vi.waitFor(() => expect(attempted).toHaveLength(1), WAIT);
    turn(3, "Update the README.");
    edit(3, "README.md", "readme\n");
    await vi.waitFor(() => expect(attempted).toHaveLength(2), WAIT);
    const chain = await cp.finish();

    expect(chain.commits).toHaveLength(3);
    expect(attempted).toEqual(chain.commits.map((c) => c.sha));
    const shas = chain.commits.map((c) => c.sha);
    expect(shas.map(parentOf)).toEqual([start, shas[0], shas[1]]);
    expect(chain.complete).toBe(true);
    // The third (last) save failed.
    expect(chain.saved).toBe(false);
    expect(errors.map((e) => (e as Error).message)).toEqual(["remote down (1)", "remote down (3)"]);
  });

  it("reports the last tip as saved when only an earlier save failed", async () => {
    let calls = 0;
    const { cp, errors, turn } = checkpointer({
      save: async () => {
        if (++calls === 1) throw new Error("remote down");
      },
    });
    turn(1, "Fix the parser.");
    edit(1, PARSE, "v1\n");
    turn(2, "Add a helper.");
    edit(2, "src/helper.ts", "h\n");
    const chain = await cp.finish();
    expect(chain.commits).toHaveLength(2);
    expect(calls).toBe(2);
    expect(chain.saved).toBe(true);
    expect(errors).toHaveLength(1);
  });

  it("stops at a turn that cannot be committed and says the chain is incomplete", async () => {
    const { cp, saves, errors, turn } = checkpointer();
    turn(1, "Fix the parser.");
    edit(1, PARSE, "v1\n");
    turn(2, "Write outside the workspace.");
    // A record no commit can hold: the whole turn fails to commit.
    history.record({
      turn: 2,
      tool: "write_file",
      toolCallId: "bad",
      path: "../x",
      before: null,
      after: Buffer.from("x\n"),
    });
    turn(3, "Add a helper.");
    edit(3, "src/helper.ts", "h\n");
    const chain = await cp.finish();

    expect(chain.complete).toBe(false);
    expect(chain.commits.map((c) => c.turns)).toEqual([[1]]);
    expect(chain.tip).toBe(chain.commits[0]?.sha);
    expect(saves.map((s) => s.sha)).toEqual([chain.tip]);
    // The tip that exists was saved; nothing after the failure was built or saved.
    expect(chain.saved).toBe(true);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/relative to the workspace root/);
    expect(head()).toBe(start);
  });
});
