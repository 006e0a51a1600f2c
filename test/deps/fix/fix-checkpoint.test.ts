import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createScriptedModel, type ScriptStep } from "../../../src/agent/model/scripted.js";
import { defaultConfig } from "../../../src/config/schema.js";
import { runDepsJob } from "../../../src/deps/run-deps-job.js";
import { jobEvents } from "../../../src/kernel/events.js";
import { createFakeGitHub, type FakeGitHub } from "../../helpers/fake-github.js";
import { type BareRepo, createBareRepo, git, gitTestEnv } from "../../helpers/git-repos.js";
import { callTool, reply } from "../../helpers/model-script.js";
import { realSandbox } from "../../helpers/sandbox.js";
import { createFixtureWorld, demoAppFiles, type FixtureWorld } from "../registry-fixtures.js";

/**
 * A dependency group on the job sequence with checkpoints on (the App's
 * queue): a shutdown in the middle of the agent's fix, or after it, keeps
 * the fix on the job's checkpoint ref, publishes nothing, and the job's next
 * run takes it up, so nothing is lost and a finished fix is not paid for
 * twice. Against verdaccio, a local bare repository and the in-memory GitHub.
 */

let world: FixtureWorld;
let root: string;
let env: Record<string, string>;
let files: Record<string, string>;
let github: FakeGitHub;
let api: { url: string; close(): Promise<void> };

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const BRANCH = "agent/deps/fx-greet-2";
const HELLO = 'const { hello } = require("fx-greet");\n\nmodule.exports = () => hello("world");\n';

beforeAll(async () => {
  // The npm client's HTTP agent and nock's interceptor do not mix; loopback only here.
  nock.restore();
  root = await mkdtemp(join(tmpdir(), "pw-deps-checkpoint-"));
  world = await createFixtureWorld(root);
  env = { ...gitTestEnv(join(root, "home")), npm_config_cache: join(root, "job-npm-cache") };
  files = await demoAppFiles(world);
}, 120_000);

/** A GitHub of its own per test: the tests' branches have the same name. */
async function freshGitHub(): Promise<void> {
  await api?.close();
  github = createFakeGitHub({ owner: "o", repo: "r" });
  api = await github.listen();
}

afterAll(async () => {
  await api?.close();
  await world?.registry.close();
  await rm(root, { recursive: true, force: true });
});

interface RunOptions {
  jobId: string;
  onStep?: (step: string, abort: () => void) => void;
  onEvent?: (event: AgentEvent, abort: () => void) => void;
}

async function run(repo: BareRepo, steps: ScriptStep[], options: RunOptions) {
  const model = createScriptedModel(steps);
  const controller = new AbortController();
  const abort = () => controller.abort(new Error("shutting down"));
  const progress: string[] = [];
  const result = await runDepsJob(
    {
      secrets: [],
      cacheDir: join(root, "cache"),
      sandbox: await realSandbox(),
      envSource: env,
      clock: { now: () => world.now },
      createModel: () => model,
      groupConcurrency: 1,
      signal: controller.signal,
      checkpoints: { jobId: options.jobId },
      octokit: new Octokit({ auth: "test", baseUrl: api.url, log: silent }),
    },
    {
      owner: "o",
      repo: "r",
      cloneUrl: repo.url,
      token: undefined,
      // Only fx-greet's breaking major: the patch would wait behind it.
      config: {
        ...defaultConfig(),
        deps: { ignore: [{ name: "fx-greet", update_types: ["patch", "minor"] }] },
      },
      groups: ["fx-greet-2"],
    },
    jobEvents({
      step: (step) => {
        progress.push(step);
        options.onStep?.(step, abort);
      },
      agent: (event) => options.onEvent?.(event, abort),
    }),
  );
  return { result, model, progress };
}

/** The checkpoint ref's commit on the remote, or null. */
function remoteRef(repo: BareRepo, ref: string): string | null {
  try {
    return git(repo.dir, ["rev-parse", "--verify", "--quiet", ref], env).trim() || null;
  } catch {
    return null;
  }
}

const pullsOn = (branch: string) => github.pulls.filter((p) => p.head.ref === branch);

describe("a dependency group's fix across a shutdown", () => {
  it("keeps the fix on the checkpoint ref through two deploys: the agent carries on, then no model is asked again", async () => {
    await freshGitHub();
    const repo = createBareRepo({ root, env, files, name: "deploys" });
    const ref = "refs/patchwright/wip/job-7-deps-fx-greet-2";
    const trailer = (message: string, name: string) =>
      new RegExp(`^Patchwright-${name}: (.*)$`, "m").exec(message)?.[1];

    // 1. The deploy lands once the agent's edit (its second turn) is over.
    const first = await run(
      repo,
      [
        // The agent reads a file before it may overwrite it.
        callTool("read_file", { file_path: "index.js" }),
        callTool(
          "write_file",
          { file_path: "index.js", content: HELLO },
          { say: "fx-greet 2 renamed greet() to hello()." },
        ),
        reply("Done."),
      ],
      {
        jobId: "job-7",
        onEvent: (event, abort) => {
          if (event.type === "turn_start" && event.turn === 3) abort();
        },
      },
    );
    expect(first.result.groups[0]?.error?.stage, JSON.stringify(first.progress)).toBe(
      "interrupted",
    );
    expect(pullsOn(BRANCH)).toEqual([]);
    const unfinished = remoteRef(repo, ref);
    expect(unfinished).not.toBeNull();
    expect(git(repo.dir, ["show", `${unfinished}:index.js`], env)).toBe(HELLO.trimEnd());
    const firstMessage = git(repo.dir, ["log", "-1", "--format=%B", `${unfinished}`], env);
    expect(trailer(firstMessage, "Finished")).toBe("false");
    // Only the agent's file: the bump's manifests and lockfile are the next run's to make again.
    expect(
      git(repo.dir, ["diff-tree", "--no-commit-id", "--name-only", "-r", `${unfinished}`], env),
    ).toBe("index.js");

    // 2. The next run's agent is handed the edit and finishes; the deploy lands in verify.
    const second = await run(
      repo,
      [reply("Call hello() instead of greet(): fx-greet 2.0.0 renamed the export.")],
      {
        jobId: "job-7",
        onStep: (step, abort) => {
          if (step === "Verifying the agent's fix") abort();
        },
      },
    );
    // On failure, say what the run did instead.
    const told = JSON.stringify({
      progress: second.progress,
      groups: second.result.groups.map((g) => [g.status, g.error, g.agent, g.firstFailure?.stage]),
      status: second.result.status,
      message: second.result.message,
      plan: second.result.plan,
    });
    expect(second.result.groups[0]?.error?.stage, told).toBe("interrupted");
    // The earlier run's edit, put back by patchwright, is not reported as drift of the agent's records.
    expect(second.result.groups[0]?.drift).toBeUndefined();
    const task = JSON.stringify(second.model.requests[0]?.messages[0]);
    expect(task).toContain("an earlier run of this fix was interrupted");
    expect(task).toContain("already back in the workspace: index.js");
    expect(repo.sha(BRANCH)).toBeNull();
    const finished = git(repo.dir, ["log", "-1", "--format=%B", ref], env);
    expect(trailer(finished, "Finished")).toBe("true");
    const cost = Number(trailer(finished, "Cost"));
    // Both runs' model calls are in it.
    expect(cost).toBeGreaterThan(Number(trailer(firstMessage, "Cost")));

    // 3. The third run takes the finished fix as it is.
    const third = await run(repo, [], { jobId: "job-7" });
    expect(third.model.requests).toHaveLength(0);
    expect(third.progress).toContain("Taking the agent's fix from an earlier run of this job");
    const [group] = third.result.groups;
    expect(group?.status).toBe("green");
    expect(group?.agent).toMatchObject({
      fixed: true,
      files: ["index.js"],
      summary: "Call hello() instead of greet(): fx-greet 2.0.0 renamed the export.",
    });
    // What the fix cost is reported, not lost.
    expect(group?.agent?.costUsd).toBe(cost);
    expect(repo.show(BRANCH, "index.js")).toContain('hello("world")');
    expect(repo.subjects(BRANCH, 2)).toEqual([
      expect.stringMatching(/^\w+(\(\w+\))?: adapt the code to fx-greet 2\.0\.0$/),
      "chore(deps): bump fx-greet from 1.0.0 to 2.0.0",
    ]);
    expect(pullsOn(BRANCH)).toHaveLength(1);
    expect(pullsOn(BRANCH)[0]?.body).toContain("> Call hello() instead of greet()");
    // Published: the checkpoint is gone.
    expect(remoteRef(repo, ref)).toBeNull();
  }, 240_000);
});
