import { rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptedModel } from "../../src/agent/model/scripted.js";
import type { ChangeInput } from "../../src/change/change.js";
import { AGENT_STEPS, runChange } from "../../src/change/run-change.js";
import { readBaseFactsAhead } from "../../src/kernel/base-facts.js";
import { startPrefetch } from "../../src/kernel/repository.js";
import type { JobServices } from "../../src/kernel/services.js";
import { ADD_BUG_FILES } from "../helpers/demo-repo.js";
import {
  type BareRepo,
  createBareRepo,
  git,
  gitTestEnv,
  makeTempDir,
  type TempDir,
} from "../helpers/git-repos.js";
import { reply } from "../helpers/model-script.js";
import { realSandbox } from "../helpers/sandbox.js";

/**
 * The agent's first turn goes out while the worktree is checked out
 * (change/early-turn.ts), from the facts the mirror has. What the model
 * gets must be what it would get after the checkout, byte for byte: these
 * runs compare the two, and count the requests (an early turn the session
 * did not take shows as a second first request).
 */

const dirs: TempDir[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

const INSTRUCTIONS = {
  "AGENTS.md": "# Agents\n\nRun `npm test` before you finish.\n",
  "CLAUDE.md": "Prefer small commits.\n",
};

function world(files: Record<string, string> = {}, commits = 6) {
  const tmp = makeTempDir("pw-early-");
  dirs.push(tmp);
  const env = gitTestEnv(join(tmp.path, "home"));
  const repo = createBareRepo({
    root: tmp.path,
    env,
    files: { ...ADD_BUG_FILES, ...INSTRUCTIONS, ...files },
    commits,
  });
  return { tmp, env, repo };
}

function input(repo: BareRepo, overrides: Partial<ChangeInput> = {}): ChangeInput {
  return {
    cloneUrl: repo.url,
    model: createScriptedModel([reply("Nothing to change.")]),
    branchTitle: "Tidy up",
    issueNumber: 7,
    branchPrefix: "agent/",
    task: "Tidy up the parser",
    extraRules: "Say what you ran.",
    policy: { preset: "default", allow: [], deny: [] },
    limits: { maxTurns: 5, maxCostUsd: 5, maxDurationMs: 600_000 },
    setup: [],
    verify: null,
    network: { kind: "off" },
    setupNetwork: { kind: "off" },
    squash: false,
    identity: { name: "patchwright[bot]", email: "bot@example.com" },
    push: false,
    ...overrides,
  };
}

async function services(
  env: Record<string, string>,
  cacheDir: string,
  clock: { now(): number },
): Promise<JobServices> {
  return { cacheDir, sandbox: await realSandbox(), secrets: [], envSource: env, clock };
}

/** The system prompt with the run's own worktree path (random per run) named <root>. */
function normalized(system: string[] | undefined): string[] {
  const text = system?.join("\n\n") ?? "";
  const root = /- Working directory: (.*)/.exec(text)?.[1];
  expect(root, "the prompt names its working directory").toBeTruthy();
  return (system ?? []).map((part) => part.split(root as string).join("<root>"));
}

/** The same change with the steps in a list of their own (no early turn): its model's requests. */
async function sequentialRequests(
  env: Record<string, string>,
  repo: BareRepo,
  cacheDir: string,
  clock: { now(): number },
) {
  const sequential = input(repo);
  const result = await runChange(await services(env, cacheDir, clock), sequential, undefined, [
    ...AGENT_STEPS,
  ]);
  expect(result.error).toBeUndefined();
  return (sequential.model as ReturnType<typeof createScriptedModel>).requests;
}

describe("the agent's first turn, sent during the checkout", () => {
  it("is the request the finished checkout gives, and the session takes its answer", async () => {
    const { env, repo, tmp } = world();
    // One clock for both runs: the prompt has the date.
    const clock = { now: () => Date.UTC(2026, 10, 29, 12) };
    const early = input(repo);
    const earlyResult = await runChange(
      await services(env, join(tmp.path, "cache-early"), clock),
      early,
    );
    const sequential = await sequentialRequests(env, repo, join(tmp.path, "cache-seq"), clock);
    expect(earlyResult.error).toBeUndefined();
    const earlyModel = early.model as ReturnType<typeof createScriptedModel>;
    // One request each: the early one was the session's first.
    expect(earlyModel.requests).toHaveLength(1);
    expect(sequential).toHaveLength(1);
    const [sent] = earlyModel.requests;
    const [after] = sequential;
    expect(normalized(sent?.system)).toEqual(normalized(after?.system));
    expect(sent?.messages).toEqual(after?.messages);
    expect(sent?.tools).toEqual(after?.tools);
    expect(sent?.maxTokens).toBe(after?.maxTokens);
    // And it holds what the checkout has: the instructions, the branch, the history.
    const system = sent?.system.join("\n") ?? "";
    expect(system).toContain("Run `npm test` before you finish.");
    expect(system).toContain("Prefer small commits.");
    expect(system).toContain("Git branch: agent/issue-7-tidy-up");
    expect(system).toContain("history 6");
    expect(system).toContain("history 2");
    expect(system).not.toContain("history 1\n");
  });

  it("is the same request when the Action read its facts ahead from the prefetched mirror", async () => {
    const { env, repo, tmp } = world();
    const clock = { now: () => Date.UTC(2026, 10, 29, 12) };
    const aheadServices = await services(env, join(tmp.path, "cache-ahead"), clock);
    // As the Action starts it: the facts are read once git has written the fetched objects.
    const prefetch = startPrefetch(aheadServices, { cloneUrl: repo.url });
    readBaseFactsAhead(aheadServices, prefetch, { baseBranch: "main" });
    const ahead = input(repo, { fetched: prefetch.mirror });
    const aheadResult = await runChange(aheadServices, ahead);
    const [after] = await sequentialRequests(env, repo, join(tmp.path, "cache-seq"), clock);
    expect(aheadResult.error).toBeUndefined();
    const [sent] = (ahead.model as ReturnType<typeof createScriptedModel>).requests;
    expect(normalized(sent?.system)).toEqual(normalized(after?.system));
    expect(sent?.messages).toEqual(after?.messages);
    expect(sent?.system.join("\n")).toContain("Git branch: agent/issue-7-tidy-up");
  });

  it("is dropped for the session's own when the checkout writes other bytes than the mirror holds", async () => {
    // Line endings converted on checkout: the workspace's AGENTS.md is not the blob.
    const { env, repo, tmp } = world({ ".gitattributes": "AGENTS.md text eol=crlf\n" });
    // Two answers: the early request's (given up) and the session's.
    const change = input(repo, {
      model: createScriptedModel([reply("Not used."), reply("Nothing to change.")]),
    });
    const result = await runChange(await services(env, join(tmp.path, "cache"), Date), change);
    expect(result.error).toBeUndefined();
    const model = change.model as ReturnType<typeof createScriptedModel>;
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]?.system.join("\n")).toContain("# Agents\n\nRun `npm test`");
    // What the agent worked from is the checkout's file.
    expect(model.requests[1]?.system.join("\n")).toContain("# Agents\r\n\r\nRun `npm test`");
    expect(result.agent?.finalText).toBe("Nothing to change.");
  });

  it("is not sent when an instruction file is a link (its target is only known in the checkout)", async () => {
    const { env, repo, tmp } = world({}, 0);
    const work = join(tmp.path, "linker");
    git(tmp.path, ["clone", "--quiet", repo.url, work], env);
    rmSync(join(work, "AGENTS.md"));
    symlinkSync("CLAUDE.md", join(work, "AGENTS.md"));
    git(work, ["add", "-A"], env);
    git(work, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "link"], env);
    git(work, ["push", "--quiet", "origin", "HEAD:main"], env);
    const change = input(repo);
    const result = await runChange(await services(env, join(tmp.path, "cache"), Date), change);
    expect(result.error).toBeUndefined();
    const model = change.model as ReturnType<typeof createScriptedModel>;
    expect(model.requests).toHaveLength(1);
    // AGENTS.md read through the link: CLAUDE.md's words, twice.
    expect(model.requests[0]?.system.join("\n").split("Prefer small commits.")).toHaveLength(3);
  });

  it("waits for setup commands, which may change what the workspace says", async () => {
    const { env, repo, tmp } = world();
    const change = input(repo, { setup: ["echo generated >> src/add.js"] });
    const result = await runChange(await services(env, join(tmp.path, "cache"), Date), change);
    expect(result.error).toBeUndefined();
    const model = change.model as ReturnType<typeof createScriptedModel>;
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.system.join("\n")).toContain("M src/add.js");
  });
});
