import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { runGit } from "../../../src/agent/tools/git-exec.js";
import { gitSearch } from "../../../src/agent/tools/grep/grep-git.js";
import { MatchCollector } from "../../../src/agent/tools/grep/grep-matches.js";
import type { LineTest } from "../../../src/agent/tools/grep/grep-scan.js";
import { describeBothWays } from "../../helpers/spawn-helper-up.js";
import { createWorkspace, type TestWorkspace } from "./tool-context.js";

/** A search for a literal word: git grep finds the candidate lines. */
const word = (text: string): LineTest => ({
  regex: new RegExp(text),
  literals: [text],
  ignoreCase: false,
});

/**
 * The tools' own git (ls-files, grep) through the spawner's helper or
 * started here: exit codes reported, not thrown; a cancelled run stops git
 * and everything it started, and says it was aborted.
 */

describeBothWays("the tools' git", (starter) => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await createWorkspace({ git: true });
    await ws.write("a.txt", "alpha\nbeta\n");
  });
  afterEach(() => ws.cleanup());

  it("is started by the process it should be", async () => {
    // The alias's shell is git's child: git's own parent is the fourth field of its stat.
    const { stdout } = await runGit(
      ["-c", "alias.parent=!awk '{ print $4 }' /proc/$PPID/stat", "parent"],
      { cwd: ws.root, env: ws.ctx.env },
    );
    expect(Number(stdout.trim())).toBe(starter());
  });

  it("reports git's exit code and output instead of throwing", async () => {
    const none = await runGit(["grep", "-n", "gamma"], { cwd: ws.root, env: ws.ctx.env });
    expect(none).toEqual({ code: 1, stdout: "", stderr: "" });
    const found = await runGit(["grep", "-n", "--untracked", "beta"], {
      cwd: ws.root,
      env: ws.ctx.env,
    });
    expect(found).toEqual({ code: 0, stdout: "a.txt:2:beta\n", stderr: "" });
  });

  it("stops git and what it started when the run is cancelled", async () => {
    const controller = new AbortController();
    const started = Date.now();
    // An alias that runs a shell: git's child, in git's process group.
    const running = runGit(["-c", "alias.hang=!echo $$ > hang.pid; exec sleep 30", "hang"], {
      cwd: ws.root,
      env: ws.ctx.env,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    await expect(running).rejects.toMatchObject({ name: "AbortError" });
    expect(Date.now() - started).toBeLessThan(10_000);
    const sleeper = Number(readFileSync(join(ws.root, "hang.pid"), "utf8"));
    let gone = false;
    for (let i = 0; i < 100 && !gone; i++) {
      try {
        process.kill(sleeper, 0);
        await new Promise((wait) => setTimeout(wait, 20));
      } catch {
        gone = true;
      }
    }
    expect(gone).toBe(true);
  });

  it("starts nothing for a run already cancelled", async () => {
    ws.controller.abort();
    await expect(
      runGit(["-c", "alias.mark=!touch marked", "mark"], {
        cwd: ws.root,
        env: ws.ctx.env,
        signal: ws.ctx.signal,
      }),
    ).rejects.toMatchObject({ name: "AbortError" });
    await expect(
      gitSearch(ws.ctx, ["."], word("alpha"), new MatchCollector()),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(ws.git("status", "--porcelain", "--untracked-files=all")).not.toContain("marked");
  });

  it("finds candidate lines with git grep, streamed", async () => {
    const matches = new MatchCollector();
    const search = await gitSearch(ws.ctx, ["."], word("beta"), matches);
    expect(search).toEqual({ rescan: [] });
    expect(matches.format("none")).toBe("a.txt:2:beta");
  });
});
