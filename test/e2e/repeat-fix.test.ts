import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/model/scripted.js";
import { main } from "../../src/cli/main.js";
import { CALC_FILES, CALC_FIXED_SUM, calcFixSteps } from "../helpers/calc-repo.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";

/**
 * The scripted job that once pushed branches reverting the agent's own fix
 * (6 runs in 10), run again and again through `patchwright run --repo`, the
 * way one process serves job after job: shared cache, warm mirror, parked
 * trees. Every pushed branch must hold the fix and pass the tests.
 */

// The issue asks for at least 20 runs. With the bug, 6 runs in 10 pushed the
// wrong code: 20 clean runs would miss it with odds of 0.4^20 (1 in 90 million).
const RUNS = 20;
// What `npm test` runs, for the shell call between the edits and for verify:
// the bug was in tracking a shell call's changes, whatever the command, and
// npm's own start was 40 processes of ~0.3 s CPU each for nothing here
// (test/app/app.test.ts runs the same job with `npm test` itself).
const TEST = "node test.js";

let tmp: TempDir;
let repo: BareRepo;
let env: Record<string, string>;

beforeAll(() => {
  tmp = makeTempDir("pw-repeat-");
  env = gitTestEnv(join(tmp.path, "home"));
  repo = createBareRepo({ root: tmp.path, env, files: CALC_FILES });
});
afterAll(() => tmp.remove());

async function runOnce(run: number): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(
    [
      "run",
      `Fix sum, run ${run}`,
      "--repo",
      repo.dir,
      "--verify",
      TEST,
      "--cache-dir",
      join(tmp.path, "cache"),
      "--transcript",
      join(tmp.path, `t-${run}.jsonl`),
    ],
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: { ...env, ANTHROPIC_API_KEY: "sk-ant-test-0123456789" },
      cwd: tmp.path,
      clock: Date,
      onInterrupt: () => () => {},
      createModel: () => createScriptedModel(calcFixSteps(TEST)),
    },
  );
  return { code, stdout, stderr };
}

describe(`the scripted sum fix, ${RUNS} runs in a row through run --repo`, () => {
  // About 45 s alone; up to three times that while a browser test shares the two cores.
  it("pushes a branch with the fix and the README change every time, and verify passes", async () => {
    const failures: string[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const { code, stdout, stderr } = await runOnce(run);
      const branch = /pushed \d+ commits? to (\S+) /.exec(stdout)?.[1];
      const problems: string[] = [];
      if (code !== 0) problems.push(`exit ${code}`);
      if (!stdout.includes(`verify: ${TEST} passed`)) problems.push("verify did not pass");
      if (stdout.includes("commits missed")) problems.push("needed a correcting commit");
      if (!branch) problems.push("nothing pushed");
      else {
        if (repo.show(branch, "src/sum.js") !== CALC_FIXED_SUM.trimEnd())
          problems.push("pushed src/sum.js lacks the fix");
        if (!repo.show(branch, "README.md").includes("`sum(2, 3)` is 5"))
          problems.push("pushed README.md lacks the change");
        // Each commit changes what its turn changed, and none undoes the fix.
        const log = execFileSync("git", ["log", "--format=%s", "-p", `main..${branch}`], {
          cwd: repo.dir,
          env,
          encoding: "utf8",
        });
        if (log.includes("+  return a - b;")) problems.push("a commit reverts the fix");
        // And nothing else: with the fixed sum.js, test.js passes (verify ran it).
        const changed = execFileSync("git", ["diff", "--name-only", "main", branch], {
          cwd: repo.dir,
          env,
          encoding: "utf8",
        });
        if (changed !== "README.md\nsrc/sum.js\n") problems.push(`pushed changes: ${changed}`);
      }
      if (problems.length > 0) failures.push(`run ${run}: ${problems.join(", ")}\n${stderr}`);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
