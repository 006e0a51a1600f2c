import { chmodSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedModel, type ScriptStep } from "../../src/agent/model/scripted.js";
import type { ChangeInput } from "../../src/change/change.js";
import { runChange } from "../../src/change/run-change.js";
import { jobEvents } from "../../src/kernel/events.js";
import { ADD_BUG_FILES } from "../helpers/demo-repo.js";
import { startGitHttpServer } from "../helpers/git-http-server.js";
import {
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";
import { callTool, reply } from "../helpers/model-script.js";
import { realSandbox } from "../helpers/sandbox.js";

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

function setup() {
  const tmp = makeTempDir("pw-job-");
  dirs.push(tmp);
  const env = gitTestEnv(join(tmp.path, "home"));
  const repo = createBareRepo({
    root: tmp.path,
    env,
    files: {
      ...ADD_BUG_FILES,
    },
  });
  return { tmp, env, repo, cacheDir: join(tmp.path, "cache") };
}

/** A pre-receive hook that declines every branch but the `case` patterns given. */
function declineBranches(repoDir: string, allowed: string) {
  const hook = join(repoDir, "hooks", "pre-receive");
  writeFileSync(
    hook,
    `#!/bin/sh\nwhile read old new ref; do\n  case "$ref" in\n    ${allowed}\n    *) echo "protected branch" >&2; exit 1 ;;\n  esac\ndone\n`,
  );
  chmodSync(hook, 0o755);
}

function input(
  overrides: Partial<ChangeInput> & Pick<ChangeInput, "cloneUrl" | "model">,
): ChangeInput {
  return {
    branchTitle: "Fix add()",
    issueNumber: 7,
    branchPrefix: "agent/",
    task: "Fix the failing test",
    policy: { preset: "default", allow: [], deny: [] },
    limits: { maxTurns: 10, maxCostUsd: 5, maxDurationMs: 600_000 },
    setup: [],
    verify: "npm test",
    network: { kind: "off" },
    setupNetwork: { kind: "on" },
    squash: false,
    identity: { name: "patchwright[bot]", email: "bot@example.com" },
    coAuthor: { name: "Octo Cat", login: "octocat", id: 583231 },
    requestUrl: "https://github.com/o/r/issues/7#issuecomment-1",
    push: true,
    ...overrides,
  };
}

const fixSteps = (): ScriptStep[] => [
  callTool("read_file", { file_path: "src/add.js" }),
  callTool(
    "edit_file",
    { file_path: "src/add.js", old_string: "a - b", new_string: "a + b" },
    { say: "Fix add: it subtracted." },
  ),
  callTool(
    "write_file",
    { file_path: "CHANGELOG.md", content: "- fix add()\n" },
    { say: "Add a changelog entry." },
  ),
  reply("Fixed add() and noted it in the changelog."),
];

describe("runChange (the job without GitHub)", () => {
  it("clones, runs the agent, commits per turn, verifies and pushes a new branch", async () => {
    const { env, repo, cacheDir } = setup();
    const steps: string[] = [];
    // What the job had done when it asked the model to load its libraries.
    const warmedUp: Array<{ steps: string[]; requests: number }> = [];
    const model = Object.assign(createScriptedModel(fixSteps()), {
      warmUp: () => warmedUp.push({ steps: [...steps], requests: model.requests.length }),
    });
    const result = await runChange(
      {
        cacheDir,
        sandbox: await realSandbox(),
        secrets: [],
        envSource: env,
        clock: Date,
      },
      input({ cloneUrl: repo.url, model }),
      jobEvents({ step: (s) => steps.push(s) }),
    );
    expect(result.error).toBeUndefined();
    // The agent is told where it is: the job's branch and the history it starts from.
    const system = JSON.stringify(model.requests[0]?.system);
    expect(system).toContain("Git branch: agent/issue-7-fix-add");
    expect(system).toContain("initial");
    expect(result.branch).toBe("agent/issue-7-fix-add");
    expect(result.baseBranch).toBe("main");
    expect(result.commits.map((c) => c.files)).toEqual([["src/add.js"], ["CHANGELOG.md"]]);
    expect(result.verify).toMatchObject({ command: "npm test", passed: true });
    expect(result.push?.pushed).toBe(true);
    expect(repo.show(result.branch, "src/add.js")).toContain("a + b");
    expect(repo.subjects(result.branch, 3)).toEqual([
      result.commits[1]?.subject,
      result.commits[0]?.subject,
      "initial",
    ]);
    const message = git(repo.dir, ["log", "-1", "--format=%B", result.commits[0]?.sha ?? ""], env);
    expect(message).toContain("Co-authored-by: Octo Cat <583231+octocat@users.noreply.github.com>");
    expect(repo.sha("main")).not.toBe(result.push?.sha);
    // Once, as the job starts waiting for git, before any request.
    expect(warmedUp).toEqual([{ steps: ["Preparing the workspace"], requests: 0 }]);
    expect(steps).toEqual([
      "Preparing the workspace",
      "Running the agent",
      "Committing",
      "Verifying: `npm test`",
      "Pushing `agent/issue-7-fix-add`",
    ]);
  });

  it("names the branch from the fetched mirror, past names the remote already has", async () => {
    const { env, repo, cacheDir } = setup();
    repo.push({ branch: "agent/issue-7-fix-add", files: { "other.md": "someone else\n" } });
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model: createScriptedModel(fixSteps()) }),
    );
    expect(result.error).toBeUndefined();
    expect(result.branch).toBe("agent/issue-7-fix-add-2");
    expect(repo.show(result.branch, "src/add.js")).toContain("a + b");
    expect(repo.show("agent/issue-7-fix-add", "other.md")).toBe("someone else");
  });

  it("fetches a small repository whole and one of unknown or large size partially", async () => {
    const promisor = (cacheDir: string) => {
      const mirrors = join(cacheDir, "mirrors");
      const [mirror] = readdirSync(mirrors).filter((name) => name.endsWith(".git"));
      return git(
        join(mirrors, mirror as string),
        ["config", "--get", "remote.origin.promisor"],
        env,
      );
    };
    const { env, repo, tmp } = setup();
    const run = async (cacheDir: string, repoSizeKb: number | undefined) => {
      const result = await runChange(
        { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
        input({
          cloneUrl: repo.url,
          model: createScriptedModel([reply("Nothing to do.")]),
          repoSizeKb,
        }),
      );
      expect(result.error).toBeUndefined();
    };
    await run(join(tmp.path, "small"), 300);
    expect(() => promisor(join(tmp.path, "small"))).toThrow();
    await run(join(tmp.path, "unknown"), undefined);
    expect(promisor(join(tmp.path, "unknown"))).toBe("true");
    await run(join(tmp.path, "large"), 500_000);
    expect(promisor(join(tmp.path, "large"))).toBe("true");
  });

  it("still commits and pushes partial work when the model fails mid-run", async () => {
    const { env, repo, cacheDir } = setup();
    const model = createScriptedModel([
      callTool(
        "write_file",
        { file_path: "notes.md", content: "half done\n" },
        { say: "Start notes." },
      ),
      { error: { status: 400, message: "invalid request" } },
    ]);
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model, verify: null }),
    );
    expect(result.error).toMatchObject({ stage: "agent" });
    expect(result.agent?.stopReason).toBe("error");
    expect(result.commits).toHaveLength(1);
    expect(repo.show(result.branch, "notes.md").trim()).toBe("half done");
  });

  it("works on an existing branch (a PR head) and pushes there", async () => {
    const { env, repo, cacheDir } = setup();
    repo.push({ branch: "feature/x", files: { "feature.txt": "v1\n" } });
    const model = createScriptedModel([
      callTool("read_file", { file_path: "feature.txt" }),
      callTool(
        "write_file",
        { file_path: "feature.txt", content: "v2\n" },
        { say: "Update the feature." },
      ),
      reply("Updated."),
    ]);
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model, existingBranch: "feature/x", verify: null }),
    );
    expect(result.error).toBeUndefined();
    expect(result.branch).toBe("feature/x");
    expect(repo.show("feature/x", "feature.txt").trim()).toBe("v2");
    expect(repo.show("main", "README.md").trim()).toBe("# demo");
  });

  it("gives a patch without pushing (fork pull requests) and makes no commits when nothing changed", async () => {
    const { env, repo, cacheDir } = setup();
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({
        cloneUrl: repo.url,
        model: createScriptedModel(fixSteps()),
        push: false,
        wantPatch: true,
        verify: null,
      }),
    );
    expect(result.patch).toContain("-module.exports = { add: (a, b) => a - b };");
    expect(result.patch).toContain("+module.exports = { add: (a, b) => a + b };");
    expect(repo.sha(result.branch)).toBeNull();

    const idle = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model: createScriptedModel([reply("Nothing to change.")]) }),
    );
    expect(idle.commits).toEqual([]);
    expect(idle.push).toBeUndefined();
    expect(idle.agent?.finalText).toBe("Nothing to change.");
  });

  it("rides out a git server that is down at the first fetch and at the push", async () => {
    const { env, repo, cacheDir, tmp } = setup();
    const token = "ghs_TestToken0123456789abcdef";
    const server = await startGitHttpServer({ projectRoot: tmp.path, token, env });
    try {
      const waits: number[] = [];
      const gitRetry = { sleep: async (ms: number) => void waits.push(ms) };
      server.failNext(2, { service: "git-upload-pack" });
      const result = await runChange(
        {
          cacheDir,
          sandbox: await realSandbox(),
          secrets: [],
          envSource: env,
          clock: Date,
          gitRetry,
        },
        input({
          cloneUrl: server.url("repo"),
          token,
          baseBranch: "main",
          model: createScriptedModel(fixSteps()),
          verify: null,
        }),
        jobEvents({
          step: (step) => {
            // The server drops the push's first request.
            if (step.startsWith("Pushing")) server.failNext(1, { how: "close" });
          },
        }),
      );
      expect(result.error).toBeUndefined();
      expect(result.push?.pushed).toBe(true);
      expect(repo.show(result.branch, "src/add.js")).toContain("a + b");
      expect(waits).toEqual([1_000, 3_000, 1_000]);
      expect(server.requests.filter((r) => r.status === 503)).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("pushes to a side branch when the server declines the job's branch, and says so", async () => {
    const { env, repo, cacheDir } = setup();
    declineBranches(repo.dir, "refs/heads/*-patchwright-*) ;;");
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model: createScriptedModel(fixSteps()), verify: null }),
    );
    const tip = result.commits.at(-1)?.sha ?? "";
    const side = `agent/issue-7-fix-add-patchwright-${tip.slice(0, 7)}`;
    expect(result.push).toBeUndefined();
    expect(result.error?.stage).toBe("push");
    expect(result.error?.message).toContain(`pushed to "${side}" instead`);
    expect(result.fallbackBranch).toBe(side);
    expect(result.pushDeclined).toEqual({
      branch: "agent/issue-7-fix-add",
      reason: "pre-receive hook declined; protected branch",
      sideBranch: side,
    });
    expect(result.patch).toBeUndefined();
    expect(repo.sha(side)).toBe(tip);
    expect(repo.sha("agent/issue-7-fix-add")).toBeNull();
  });

  it("keeps the change as a patch when no branch takes it", async () => {
    const { env, repo, cacheDir } = setup();
    declineBranches(repo.dir, "");
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model: createScriptedModel(fixSteps()), verify: null }),
    );
    expect(result.error?.stage).toBe("push");
    expect(result.fallbackBranch).toBeUndefined();
    expect(result.pushDeclined).toEqual({
      branch: "agent/issue-7-fix-add",
      reason: "pre-receive hook declined; protected branch",
    });
    expect(result.patch).toContain("+module.exports = { add: (a, b) => a + b };");
    expect(result.patch).toContain("+- fix add()");
    expect(git(repo.dir, ["branch", "--list"], env)).toBe("* main");
  });

  it("gives the job's commands one HOME apart from each command's /tmp (memory), kept from setup to verify and never another job's", async () => {
    const { env, repo, cacheDir } = setup();
    const job = async (marker: string) =>
      runChange(
        { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
        input({
          cloneUrl: repo.url,
          model: createScriptedModel(fixSteps()),
          setup: [`ls -A "$HOME" > /dev/null; echo ${marker} >> "$HOME/marker"`],
          // What setup left, and whether HOME is on the command's own /tmp (memory) or apart from it.
          verify:
            'cat "$HOME/marker"; [ "$(stat -c %d "$HOME")" != "$(stat -c %d /tmp)" ] && echo "home apart from /tmp"; echo "pnpm 10: $(cat "$HOME/.config/pnpm/rc")"; echo "pnpm 11 store: $pnpm_config_store_dir"; npm config get cache 2>&1 | head -3',
          push: false,
        }),
      );
    const first = await job("first-job");
    expect(first.error).toBeUndefined();
    expect(first.verify?.outputTail).toContain("first-job");
    expect(first.verify?.outputTail).toContain("home apart from /tmp");
    // pnpm's store there: where it can hard-link it would pick the workspace's mount.
    // pnpm 10 reads it from its global rc: in npm_config_store_dir, npm 11 warned of
    // an "Unknown env config" in every command.
    expect(first.verify?.outputTail).toContain(
      "pnpm 10: store-dir=/tmp/home/.local/share/pnpm/store",
    );
    expect(first.verify?.outputTail).toContain("/tmp/home/.npm");
    expect(first.verify?.outputTail).not.toContain("Unknown env config");
    // pnpm 11 and later read only pnpm_config_*: they made the store in the workspace again.
    expect(first.verify?.outputTail).toContain("pnpm 11 store: /tmp/home/.local/share/pnpm/store");
    const second = await job("second-job");
    expect(second.verify?.outputTail).toContain("second-job");
    expect(second.verify?.outputTail).not.toContain("first-job");
  });

  it("reports a failing setup command and does not run the agent", async () => {
    const { env, repo, cacheDir } = setup();
    const model = createScriptedModel([]);
    const result = await runChange(
      { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock: Date },
      input({ cloneUrl: repo.url, model, setup: ["echo broken >&2; exit 4"] }),
    );
    expect(result.error?.stage).toBe("setup");
    expect(result.error?.message).toContain("exit 4");
    expect(result.error?.message).toContain("broken");
    expect(model.requests).toHaveLength(0);
  });
});
