import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileHistory } from "../../../src/agent/file-history.js";
import { createCommits } from "../../../src/git/commit/commits.js";
import { captureWorkspaceTree } from "../../../src/git/tree/exact-tree.js";
import { git, makeRepo } from "../../helpers/temp-dir.js";

/**
 * Property: whatever the agent did, turn after turn (edits that keep a
 * file's size, creations, deletions, a file changed back, several files in
 * one turn), the commits built from the history hold exactly the workspace
 * it left: per turn, each commit is the state after that turn; squashed,
 * one commit is the end state.
 */

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const identity = { name: "patchwright", email: "bot@example.com" };
const PATHS = ["src/a.js", "src/b.js", "docs/c.md", "d.txt"];
const VALUES = ["x = 1;\n", "x = 2;\n", "x = 3;\n", "something longer\n", null] as const;

function generator(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

async function put(root: string, path: string, content: string | null): Promise<void> {
  const absolute = join(root, path);
  if (content === null) await rm(absolute, { force: true });
  else {
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
}

async function randomRun(seed: number) {
  const next = generator(seed);
  const root = await makeRepo({
    "src/a.js": "x = 1;\n",
    "src/b.js": "x = 2;\n",
    "d.txt": "x = 3;\n",
  });
  const current = new Map<string, string | null>([
    ["src/a.js", "x = 1;\n"],
    ["src/b.js", "x = 2;\n"],
    ["docs/c.md", null],
    ["d.txt", "x = 3;\n"],
  ]);
  const history = new FileHistory();
  const afterTurn: Array<Map<string, string | null>> = [];
  const turns = 2 + next(6);
  for (let turn = 1; turn <= turns; turn++) {
    for (let call = 0, calls = 1 + next(3); call < calls; call++) {
      const path = PATHS[next(PATHS.length)] ?? "d.txt";
      const after = VALUES[next(VALUES.length)] ?? null;
      const before = current.get(path) ?? null;
      await put(root, path, after);
      current.set(path, after);
      history.record({
        turn,
        toolCallId: `t${turn}-${call}`,
        tool: "run_shell",
        path,
        before: before === null ? null : Buffer.from(before),
        after: after === null ? null : Buffer.from(after),
      });
    }
    afterTurn.push(new Map(current));
  }
  return { root, history, afterTurn };
}

function turnsOf(history: FileHistory) {
  return history.turns().map((t) => ({ turn: t.turn, text: `Turn ${t.turn}.`, files: t.files }));
}

function treeContents(root: string, ref: string): Map<string, string | null> {
  const present = new Set(git(root, "ls-tree", "-r", "--name-only", ref).split("\n"));
  const map = new Map<string, string | null>();
  for (const path of PATHS) {
    map.set(path, present.has(path) ? git(root, "show", `${ref}:${path}`) : null);
  }
  return map;
}

describe("FileHistory -> commits (property)", () => {
  for (const seed of [11, 12, 13, 14, 15, 16]) {
    it(`per-turn and squashed commits both end at the workspace (seed ${seed})`, async () => {
      const { root, history, afterTurn } = await randomRun(seed);
      const workspace = await captureWorkspaceTree(root, env);
      const base = git(root, "rev-parse", "HEAD").trim();

      const { commits } = await createCommits({
        dir: root,
        turns: turnsOf(history),
        identity,
        env,
      });
      expect(git(root, "rev-parse", "HEAD^{tree}").trim()).toBe(workspace);
      // Each turn's commit holds the files as they were after that turn.
      for (const commit of commits) {
        const turn = commit.turns[0] ?? 0;
        const want = afterTurn[turn - 1];
        expect(treeContents(root, commit.sha), `turn ${turn}`).toEqual(want);
      }

      git(root, "reset", "-q", "--hard", base);
      for (const [path, content] of afterTurn.at(-1) ?? []) await put(root, path, content);
      await createCommits({ dir: root, turns: turnsOf(history), identity, env, squash: true });
      expect(git(root, "rev-parse", "HEAD^{tree}").trim()).toBe(workspace);
    });
  }
});
