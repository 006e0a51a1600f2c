import { Octokit } from "@octokit/rest";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { GitHubClient } from "../../src/github/octokit.js";
import type { StatusReporter } from "../../src/github/status.js";
import { admitRequest } from "../../src/job/admit.js";
import type { JobRequest } from "../../src/requests/request.js";
import { createFakeGitHub, type FakeGitHubOptions } from "../helpers/fake-github.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function client(options: Partial<FakeGitHubOptions> = {}): Promise<GitHubClient> {
  const github = createFakeGitHub({
    owner: "octo-org",
    repo: "demo",
    permissions: { octocat: "write" },
    ...options,
  });
  const server = await github.listen();
  closers.push(server.close);
  return new Octokit({
    baseUrl: server.url,
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
}

function recordingStatus(seen: string[]): StatusReporter {
  return {
    acknowledge: async () => void seen.push("eyes"),
    reply: async (markdown) => void seen.push(`reply: ${markdown}`),
    start: async () => {},
    update: () => {},
    step: () => {},
    finish: async () => {},
    commentUrl: () => undefined,
    settled: async () => {},
  };
}

const PULL_REQUEST_EVENT: JobRequest = {
  trigger: "pull_request",
  deliveryId: "1-1",
  repo: { owner: "octo-org", name: "demo", cloneUrl: "x", defaultBranch: "main" },
  target: { kind: "pull_request", number: 12, title: "t", body: "", state: "open", locked: false },
  instruction: "Review the change.",
  source: { kind: "event" },
  requester: { login: "octocat", id: 1, type: "User" },
};

describe("admitRequest", () => {
  it("starts an event request without a trigger phrase, once the sender may write", async () => {
    const seen: string[] = [];
    const admission = await admitRequest(
      { octokit: await client(), botLogin: "github-actions[bot]" },
      PULL_REQUEST_EVENT,
      recordingStatus(seen),
    );
    expect(admission).toEqual({ admitted: true, config: defaultConfig() });
    expect(seen).toEqual(["eyes"]);
  });

  it("never starts on the bot's own event (its push to a PR branch)", async () => {
    const admission = await admitRequest(
      { octokit: await client(), botLogin: "patchwright[bot]" },
      { ...PULL_REQUEST_EVENT, requester: { login: "patchwright[bot]", id: 2, type: "Bot" } },
      recordingStatus([]),
    );
    expect(admission).toEqual({ admitted: false, reason: "not_for_us" });
  });

  it("reads the config from the given path and lets the entry point adjust it", async () => {
    const octokit = await client({ configYaml: "max_turns: 9\n", configPath: ".github/bot.yml" });
    const admission = await admitRequest(
      {
        octokit,
        botLogin: "github-actions[bot]",
        configPath: ".github/bot.yml",
        adjustConfig: (config) => ({ ...config, maxCostUsd: 0.25 }),
      },
      PULL_REQUEST_EVENT,
      recordingStatus([]),
    );
    expect(admission.admitted && admission.config).toMatchObject({ maxTurns: 9, maxCostUsd: 0.25 });
  });

  it("judges the phrase by the adjusted config, and returns a broken file's error", async () => {
    const octokit = await client({ configYaml: "max_turns: many\n" });
    const comment: JobRequest = {
      ...PULL_REQUEST_EVENT,
      trigger: "issue_comment",
      instruction: "@bot please fix",
      source: { kind: "issue_comment", id: 5 },
    };
    const seen: string[] = [];
    const admission = await admitRequest(
      {
        octokit,
        botLogin: "github-actions[bot]",
        adjustConfig: (config) => ({ ...config, triggerPhrase: "@bot" }),
      },
      comment,
      recordingStatus(seen),
    );
    expect(admission).toMatchObject({ admitted: false, reason: "config_error" });
    expect(!admission.admitted && admission.configError?.message).toMatch(/max_turns|whole number/);
    expect(seen[0]).toMatch(/^reply: /);
  });
});
