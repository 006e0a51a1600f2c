import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileHistory } from "../../src/agent/file-history.js";
import type { AgentResult } from "../../src/agent/loop.js";
import { emptyUsage } from "../../src/agent/model/model.js";
import { createRedactor } from "../../src/agent/redact.js";
import { commitWork } from "../../src/change/commit-work.js";
import { captureWorkspaceTree } from "../../src/git/tree/exact-tree.js";
import { git, makeRepo } from "../helpers/temp-dir.js";

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp" };
const identity = { name: "patchwright", email: "bot@example.com" };
const MINUS = "return a - b;\n";
const PLUS = "return a + b;\n";

function agentResult(texts: Record<number, string>): AgentResult {
  return {
    stopReason: "end_turn",
    finalText: "Fixed sum.",
    turnTexts: new Map(Object.entries(texts).map(([turn, text]) => [Number(turn), text])),
    turns: 3,
    usage: emptyUsage(),
    costUsd: 0,
    messages: [],
  };
}

/**
 * The history the bad shell-change detection produced: the fix, then a
 * phantom change from `npm test` that undoes it. The workspace holds the fix.
 */
async function revertedRun() {
  const dir = await makeRepo({ "src/sum.js": MINUS, "README.md": "# calc\n" });
  const head = git(dir, "rev-parse", "HEAD").trim();
  const start = await captureWorkspaceTree(dir, env);
  await writeFile(join(dir, "src/sum.js"), PLUS);
  await writeFile(join(dir, "README.md"), "# calc\n\nAdds.\n");
  const end = await captureWorkspaceTree(dir, env);
  const history = new FileHistory();
  const change = (turn: number, tool: string, path: string, before: string, after: string) =>
    history.record({
      turn,
      tool,
      toolCallId: `t${turn}`,
      path,
      before: Buffer.from(before),
      after: Buffer.from(after),
    });
  change(1, "edit_file", "src/sum.js", MINUS, PLUS);
  change(2, "run_shell", "src/sum.js", PLUS, MINUS);
  change(3, "edit_file", "README.md", "# calc\n", "# calc\n\nAdds.\n");
  const session = {
    result: agentResult({ 1: "Fix sum.", 2: "Run the tests.", 3: "Document it." }),
    history,
    root: dir,
  };
  return { dir, head, trees: { start, end }, session };
}

describe("commitWork", () => {
  for (const squash of [false, true]) {
    it(`never pushes a tree that differs from the workspace (${squash ? "squashed" : "per turn"})`, async () => {
      const run = await revertedRun();
      const work = await commitWork({ ...run, env, identity, squash, redact: createRedactor() });
      expect(work.drift).toEqual(["src/sum.js"]);
      expect(work.commits.at(-1)?.subject).toBe(
        "Include what the workspace held but the commits missed",
      );
      expect(git(run.dir, "show", "HEAD:src/sum.js")).toBe(PLUS);
      expect(git(run.dir, "show", "HEAD:README.md")).toBe("# calc\n\nAdds.\n");
      // The working tree is never rewritten from the records: the fix is still on disk.
      expect(git(run.dir, "status", "--porcelain")).toBe("");
    });
  }

  it("adds nothing when the records and the workspace agree, and redacts the messages", async () => {
    const dir = await makeRepo({ "a.txt": "a\n" });
    const head = git(dir, "rev-parse", "HEAD").trim();
    const start = await captureWorkspaceTree(dir, env);
    await writeFile(join(dir, "a.txt"), "A\n");
    const end = await captureWorkspaceTree(dir, env);
    const history = new FileHistory();
    history.record({
      turn: 1,
      tool: "write_file",
      toolCallId: "w",
      path: "a.txt",
      before: Buffer.from("a\n"),
      after: Buffer.from("A\n"),
    });
    const said = "Capitalise a, as ghp_abcdefghijklmnopqrstuvwxyz012345 asked.";
    const session = { result: agentResult({ 1: said }), history, root: dir };
    const work = await commitWork({
      dir,
      env,
      session,
      trees: { start, end },
      head,
      identity,
      squash: false,
      redact: createRedactor(),
    });
    expect(work.drift).toBeUndefined();
    expect(work.commits).toHaveLength(1);
    // The model's words become the message, redacted like everything it says.
    const message = git(dir, "log", "-1", "--format=%B");
    expect(message).toContain("[redacted: ");
    expect(message).not.toContain("ghp_");
  });
});
