import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FileChange } from "../../src/agent/file-history.js";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import { runAgentSession } from "../../src/agent/session.js";
import { callTool, reply } from "../helpers/model-script.js";
import { sandboxFor } from "../helpers/sandbox.js";
import { git, makeRepo, makeTempDir } from "../helpers/temp-dir.js";

/**
 * Many rounds of edit -> shell -> edit, every edit keeping the file's size,
 * run as fast as the loop goes, so most of them land in the same second as
 * the checkout and as each other: the case where git's stat cache cannot see
 * a change and only its racy-entry check (or a content comparison) can.
 */

const MINUS = "module.exports = (a, b) => { return a - b; };\n";
const PLUS = "module.exports = (a, b) => { return a + b; };\n";
const TIMES = "module.exports = (a, b) => { return a * b; };\n";
const OTHER_A = "alpha\n";
const OTHER_B = "omega\n";

interface Round {
  steps: ScriptStep[];
  /** After this round: what each file holds, and which tool call ids must have recorded what. */
  sum: string;
  other: string;
  expected: Array<{ id: string; path: string; before: string; after: string }>;
  silent: string[];
}

/** A deterministic mix of rounds: no-op shells, same-size shell edits, tool edits between. */
function buildRounds(count: number, seed: number): Round[] {
  let sum = MINUS;
  let other = OTHER_A;
  let random = seed;
  const next = () => {
    random = (random * 1103515245 + 12345) % 2 ** 31;
    return random % 4;
  };
  const rounds: Round[] = [];
  for (let r = 0; r < count; r++) {
    const id = (what: string) => `toolu_${seed}_${r}_${what}`;
    const steps: ScriptStep[] = [];
    const expected: Round["expected"] = [];
    const silent: string[] = [];

    // A tool edit of src/sum.js that keeps its size.
    const target = sum === MINUS ? PLUS : MINUS;
    steps.push(callTool("read_file", { file_path: "src/sum.js" }, { id: id("read") }));
    steps.push(
      callTool(
        "edit_file",
        {
          file_path: "src/sum.js",
          old_string: sum.slice(36, 41),
          new_string: target.slice(36, 41),
        },
        { id: id("edit") },
      ),
    );
    expected.push({ id: id("edit"), path: "src/sum.js", before: sum, after: target });
    sum = target;

    // A shell command: most change nothing, some change a file to a same-size content in place.
    const kind = next();
    if (kind === 0 && r > 0) {
      steps.push(
        callTool("run_shell", { command: "printf 'return a * b' >/dev/null" }, { id: id("sh") }),
      );
      silent.push(id("sh"));
    } else if (r === 0) {
      // Long enough to end in a later second than the checkout and the edit above.
      steps.push(callTool("run_shell", { command: "sleep 1.1" }, { id: id("sh") }));
      silent.push(id("sh"));
    } else if (kind === 1) {
      steps.push(
        callTool(
          "run_shell",
          { command: `printf '%s' '${TIMES.trimEnd()}' > src/sum.js && echo >> src/sum.js` },
          { id: id("sh") },
        ),
      );
      expected.push({ id: id("sh"), path: "src/sum.js", before: sum, after: TIMES });
      sum = TIMES;
    } else if (kind === 2) {
      const flipped = other === OTHER_A ? OTHER_B : OTHER_A;
      steps.push(
        callTool(
          "run_shell",
          { command: `printf '${flipped.trimEnd()}\\n' > notes.txt` },
          { id: id("sh") },
        ),
      );
      expected.push({ id: id("sh"), path: "notes.txt", before: other, after: flipped });
      other = flipped;
    } else {
      steps.push(callTool("run_shell", { command: "cat src/sum.js notes.txt" }, { id: id("sh") }));
      silent.push(id("sh"));
    }

    // Another tool edit, of the other file, also the same size.
    const flipped = other === OTHER_A ? OTHER_B : OTHER_A;
    steps.push(callTool("read_file", { file_path: "notes.txt" }, { id: id("read2") }));
    steps.push(
      callTool(
        "write_file",
        { file_path: "notes.txt", content: flipped },
        {
          id: id("write"),
        },
      ),
    );
    expected.push({ id: id("write"), path: "notes.txt", before: other, after: flipped });
    other = flipped;
    rounds.push({ steps, sum, other, expected, silent });
  }
  return rounds;
}

/** A fresh checkout (a clone: git has not yet smudged its racy index entries). */
async function freshCheckout(files: Record<string, string>): Promise<string> {
  const origin = await makeRepo(files);
  const root = await makeTempDir("pw-clone-");
  git(root, "clone", "-q", origin, ".");
  return root;
}

/** Waits for the start of a wall-clock second: file timestamps, not a clock we can inject. */
async function startOfSecond(): Promise<void> {
  const ms = Date.now() % 1000;
  if (ms > 100) await new Promise((done) => setTimeout(done, 1000 - ms));
}

async function runRounds(seed: number, count: number) {
  // The checkout and the first edits land in the same second; the first
  // shell command ends in the next one.
  await startOfSecond();
  const root = await freshCheckout({ "src/sum.js": MINUS, "notes.txt": OTHER_A });
  const rounds = buildRounds(count, seed);
  const model = createScriptedModel([...rounds.flatMap((r) => r.steps), reply("done")]);
  const { history, result } = await runAgentSession({
    root,
    task: "edit",
    model,
    policy: { preset: "trusted", allow: [], deny: [] },
    limits: { maxTurns: 1000, maxCostUsd: 100, maxDurationMs: 600_000 },
    envSource: { PATH: process.env.PATH, HOME: process.env.HOME },
    sandbox: await sandboxFor(root, { readOnly: [join(root, ".git")] }),
    clock: Date,
  });
  return { root, rounds, history, result };
}

const text = (b: Buffer | null) => (b === null ? null : b.toString("utf8"));

describe("shell change detection (property: same-size edits in the same second)", () => {
  for (const seed of [1, 2]) {
    it(`records exactly what each call changed, round after round (seed ${seed})`, async () => {
      const { root, rounds, history, result } = await runRounds(seed, 15);
      expect(result.stopReason).toBe("end_turn");
      const byId = new Map<string, FileChange[]>();
      for (const change of history.all()) {
        byId.set(change.toolCallId, [...(byId.get(change.toolCallId) ?? []), change]);
      }
      for (const round of rounds) {
        for (const id of round.silent) expect(byId.get(id) ?? [], id).toEqual([]);
        for (const want of round.expected) {
          const got = (byId.get(want.id) ?? []).map((c) => ({
            path: c.path,
            before: text(c.before),
            after: text(c.after),
          }));
          expect(got, want.id).toEqual([
            { path: want.path, before: want.before, after: want.after },
          ]);
        }
      }
      // The records chain: each change starts where the one before it on that path ended.
      const last = new Map<string, string | null>();
      for (const change of history.all()) {
        if (last.has(change.path)) expect(text(change.before)).toBe(last.get(change.path));
        last.set(change.path, text(change.after));
      }
      // And the net change is what is on disk.
      const final = rounds.at(-1);
      expect(await readFile(join(root, "src/sum.js"), "utf8")).toBe(final?.sum);
      const net = Object.fromEntries(history.netChanges().map((c) => [c.path, text(c.after)]));
      if (final?.sum !== MINUS) expect(net["src/sum.js"]).toBe(final?.sum);
      else expect(net["src/sum.js"]).toBeUndefined();
    });
  }
});
