import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Model } from "../../src/agent/model/model.js";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import { ADD_BUG_FILES, fixAddSteps } from "../helpers/demo-repo.js";
import {
  type BareRepo,
  createBareRepo,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";
import { callTool } from "../helpers/model-script.js";
import { makeTempDir as makeWorkspace } from "../helpers/temp-dir.js";
import { runMain } from "./fake-io.js";

const API_KEY = "sk-ant-test-key-0123456789abcdef";

let tmp: TempDir;
let repo: BareRepo;
let env: Record<string, string>;

beforeAll(() => {
  tmp = makeTempDir("pw-cli-run-");
  env = { ...gitTestEnv(join(tmp.path, "home")), ANTHROPIC_API_KEY: API_KEY };
  repo = createBareRepo({ root: tmp.path, env, files: ADD_BUG_FILES });
});
afterAll(() => tmp.remove());

/** Answers from `steps`, then waits for the run to be stopped. */
function stepsThenWait(steps: ScriptStep[]): () => Model {
  return () => {
    const scripted = createScriptedModel(steps);
    return {
      id: scripted.id,
      contextWindow: scripted.contextWindow,
      price: scripted.price ?? null,
      complete: (request, onEvent) =>
        scripted.remaining > 0
          ? scripted.complete(request, onEvent)
          : new Promise((_, reject) =>
              request.signal?.addEventListener("abort", () => reject(request.signal?.reason), {
                once: true,
              }),
            ),
    };
  };
}

function repoArgs(run: string, ...more: string[]): string[] {
  return [
    "run",
    "Fix add",
    "--repo",
    repo.dir,
    "--cache-dir",
    join(tmp.path, "cache"),
    "--transcript",
    join(tmp.path, `${run}.jsonl`),
    ...more,
  ];
}

describe("patchwright run, in process", () => {
  it("starts the yarn release a --repo project keeps, where the PATH has no yarn (setup, verify)", async () => {
    const release = ".yarn/releases/yarn-4.18.1.cjs";
    const yarn = await readFile(
      fileURLToPath(new URL("../../node_modules/@yarnpkg/cli-dist/bin/yarn.js", import.meta.url)),
      "utf8",
    );
    const kept = createBareRepo({
      root: tmp.path,
      env,
      name: "keeps-yarn",
      files: {
        ...ADD_BUG_FILES,
        "package.json":
          '{ "name": "add", "private": true, "scripts": { "test": "node test.js" } }\n',
        ".yarnrc.yml": `yarnPath: ${release}\n`,
        "yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10c0\n",
        [release]: yarn,
      },
    });
    const path = (process.env.PATH ?? "").split(":").filter((d) => !d.includes("node_modules"));
    const { stdout } = await runMain(
      [
        ...repoArgs("yarn-release", "--setup", "yarn --version", "--verify", "yarn --version"),
        "--json",
      ].map((arg) => (arg === repo.dir ? kept.dir : arg)),
      {
        env: { ...env, PATH: path.join(":") },
        cwd: tmp.path,
        model: () => createScriptedModel(fixAddSteps()),
      },
    );
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary.job.error).toBeNull();
    expect(summary.job.verify).toMatchObject({ command: "yarn --version", passed: true });
    expect(summary.job.verify.outputTail).toContain("4.18.1");
  });

  it("on Ctrl+C while the model thinks: clears the status line, prints the totals and the transcript, exits 130", async () => {
    const workspace = await makeWorkspace();
    const transcript = join(tmp.path, "ctrl-c.jsonl");
    const sigintListeners = process.listenerCount("SIGINT");
    let listenersWhileRunning = -1;
    const { code, stderr } = await runMain(
      ["run", "wait", "--cwd", workspace, "--policy", "trusted", "--transcript", transcript],
      {
        env,
        terminal: true,
        model: stepsThenWait([
          { ...callTool("run_shell", { command: "true" }), usage: { inputTokens: 1200 } },
        ]),
        onStderr: (text, pressCtrlC) => {
          if (listenersWhileRunning < 0 && text.includes("turn 2: waiting for the model")) {
            listenersWhileRunning = process.listenerCount("SIGINT");
            pressCtrlC();
          }
        },
      },
    );
    expect(code).toBe(130);
    // Nothing but the CLI's own handler listens: a spinner library's would exit at once.
    expect(listenersWhileRunning).toBe(sigintListeners);
    const [beforeStop, afterStop] = stderr.split("interrupted: stopping the run");
    expect(beforeStop?.endsWith("\r\u001b[2K\n")).toBe(true);
    // Cleared for good: nothing draws the status line again.
    expect(afterStop).not.toContain("\u001b");
    expect(afterStop).toContain("turns: 2");
    expect(afterStop).toContain("tokens: 1,200 in");
    expect(afterStop).toMatch(/cost: \$0\.0\d*[1-9]/);
    expect(afterStop?.endsWith(`transcript: ${transcript}\n`)).toBe(true);
  });

  it("on Ctrl+C during a --repo setup command: stops it and still ends with the totals, exit 130", async () => {
    const started = Date.now();
    let pressed = false;
    const { code, stdout, stderr } = await runMain(repoArgs("setup", "--setup", "sleep 30"), {
      env,
      cwd: tmp.path,
      model: stepsThenWait([]),
      onStderr: (text, pressCtrlC) => {
        // Once: a second Ctrl+C means "quit at once".
        if (!pressed && text.includes("Running setup")) {
          pressed = true;
          pressCtrlC();
        }
      },
    });
    expect(`exit ${code}\n${stdout}\n${stderr}`).toMatch(/^exit 130\n/);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(stderr).toContain("turns: 0");
    expect(stderr).toContain(`transcript: ${join(tmp.path, "setup.jsonl")}`);
  });

  it("finishes the run and warns when its transcript could not be written", async () => {
    // /dev/full takes the open and fails every write (ENOSPC), as a full disk would.
    const args = repoArgs("unused");
    args[args.indexOf("--transcript") + 1] = "/dev/full";
    const { code, stdout, stderr } = await runMain([...args, "--no-push"], {
      env,
      cwd: tmp.path,
      model: () =>
        createScriptedModel([{ content: [{ type: "text", text: "Nothing to change." }] }]),
    });
    expect(`exit ${code}\n${stdout}\n${stderr}`).toMatch(/^exit 0\n/);
    expect(stderr).toContain("warning: the transcript /dev/full is incomplete: ENOSPC");
  });

  it("passes --verify-timeout to the job: a verify that runs too long is stopped", async () => {
    const { code, stdout } = await runMain(
      repoArgs("verify-timeout", "--verify", "sleep 30", "--verify-timeout", "1s", "--json"),
      { env, cwd: tmp.path, model: () => createScriptedModel(fixAddSteps()) },
    );
    expect(code).toBe(1);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary.job.verify).toMatchObject({
      command: "sleep 30",
      passed: false,
      timedOut: true,
    });
    expect(summary.job.verify.durationMs).toBeLessThan(15_000);
  });

  it("stops the agent at --max-cost and keeps the commits of the turns it paid for", async () => {
    // About $0.60 a turn at the scripted model's price: $1 pays for two of the four.
    const steps = [1, 2, 3, 4].map((n) => ({
      ...callTool("write_file", { file_path: `notes-${n}.md`, content: `note ${n}\n` }),
      usage: { inputTokens: 200_000 },
    }));
    const model = createScriptedModel([...steps, { content: [{ type: "text", text: "done" }] }]);
    const { code, stdout } = await runMain(
      repoArgs("max-cost", "--max-cost", "1", "--no-push", "--json"),
      { env, cwd: tmp.path, model: () => model },
    );
    expect(code).toBe(1);
    expect(model.requests).toHaveLength(2);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({ type: "summary", stopReason: "max_cost", turns: 2 });
    expect(summary.costUsd).toBeGreaterThanOrEqual(1);
    expect(summary.job.commits.flatMap((c: { files: string[] }) => c.files).sort()).toEqual([
      "notes-1.md",
      "notes-2.md",
    ]);
  });

  it("shows progress plainly when stderr is not a terminal; --verbose adds verify's output", async () => {
    const { code, stdout, stderr } = await runMain(
      repoArgs("verbose", "--verify", "npm test", "--verbose", "--no-push"),
      { env, cwd: tmp.path, model: () => createScriptedModel(fixAddSteps()) },
    );
    expect(`exit ${code}\n${stdout}\n${stderr}`).toMatch(/^exit 0\n/);
    expect(stderr).toContain("Verifying: npm test…\n");
    expect(stderr).not.toContain("`");
    expect(`${stdout}${stderr}`).not.toContain("\u001b");
    expect(stdout).toMatch(/verify output:\n(?: {4}.*\n)*? {4}tests passed\n/);
  });
});
