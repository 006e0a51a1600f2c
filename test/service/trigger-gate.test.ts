import { describe, expect, it } from "vitest";
import type { GitHubClient } from "../../src/github/octokit.js";
import type { JobRequest } from "../../src/requests/request.js";
import { createTriggerGate, type TriggerRules } from "../../src/service/trigger-gate.js";

const octokit = {} as GitHubClient;

function request(instruction: string, login = "octocat", repo = "demo"): JobRequest {
  return {
    trigger: "issue_comment",
    deliveryId: "d",
    installationId: 1,
    repo: { owner: "o", name: repo, cloneUrl: "x", defaultBranch: "main" },
    target: { kind: "issue", number: 1, title: "t", body: "", state: "open", locked: false },
    instruction,
    source: { kind: "issue_comment", id: 1 },
    requester: { login, id: 1, type: login.endsWith("[bot]") ? "Bot" : "User" },
  } as JobRequest;
}

function gate(rules: TriggerRules | (() => Promise<TriggerRules>), ttlMs = 1000) {
  let now = 0;
  let reads = 0;
  let clients = 0;
  const client = async () => {
    clients += 1;
    return octokit;
  };
  const g = createTriggerGate({
    botLogin: async () => "patchwright[bot]",
    clock: { now: () => now },
    ttlMs,
    maxRepositories: 2,
    readRules: async (given) => {
      expect(given).toBe(octokit);
      reads += 1;
      return typeof rules === "function" ? rules() : rules;
    },
  });
  return {
    admits: (r: JobRequest) => g.admits(client, r),
    reads: () => reads,
    /** How often a GitHub client was asked for: only to read rules. */
    clients: () => clients,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const DEFAULTS: TriggerRules = { triggerPhrase: "@agent", label: "agent", allowedBots: [] };

describe("the webhook's trigger gate", () => {
  it("drops the bot's own comments without reading anything", async () => {
    const g = gate(DEFAULTS);
    expect(await g.admits(request("@agent working on it", "patchwright[bot]"))).toBe(false);
    expect(g.reads()).toBe(0);
    expect(g.clients()).toBe(0);
  });

  it("reads a repository's rules once, then judges its chatter for free until they expire", async () => {
    const g = gate({ ...DEFAULTS, triggerPhrase: "/bot" });
    expect(await g.admits(request("lgtm"))).toBe(false);
    expect(await g.admits(request("@agent fix"))).toBe(false);
    expect(await g.admits(request("/bot fix it"))).toBe(true);
    expect(g.reads()).toBe(1);
    // Judged from the cache: no client built for the second and third.
    expect(g.clients()).toBe(1);
    g.advance(1001);
    expect(await g.admits(request("nice"))).toBe(false);
    expect(g.reads()).toBe(2);
  });

  it("lets a request through when the rules cannot be read, and asks again next time", async () => {
    let fail = true;
    const g = gate(async () => {
      if (fail) throw new Error("502");
      return DEFAULTS;
    });
    expect(await g.admits(request("lgtm"))).toBe(true);
    fail = false;
    expect(await g.admits(request("lgtm"))).toBe(false);
    expect(g.reads()).toBe(2);
  });

  it("keeps at most maxRepositories rule sets", async () => {
    const g = gate(DEFAULTS, 60_000);
    for (const repo of ["a", "b", "c"]) await g.admits(request("hi", "octocat", repo));
    expect(g.reads()).toBe(3);
    await g.admits(request("hi", "octocat", "c"));
    expect(g.reads()).toBe(3);
    // "a" was the oldest and went first.
    await g.admits(request("hi", "octocat", "a"));
    expect(g.reads()).toBe(4);
  });

  it("refuses other bots unless allowed", async () => {
    const g = gate({ ...DEFAULTS, allowedBots: ["renovate[bot]"] });
    expect(await g.admits(request("@agent fix", "dependabot[bot]"))).toBe(false);
    expect(await g.admits(request("@agent fix", "renovate[bot]"))).toBe(true);
  });
});

describe("a burst of deliveries to a repository not yet known", () => {
  it("reads its rules once, not once per delivery", async () => {
    let reads = 0;
    let answer: (rules: TriggerRules) => void = () => {};
    const g = createTriggerGate({
      botLogin: async () => "patchwright[bot]",
      clock: { now: () => 0 },
      readRules: () => {
        reads += 1;
        return new Promise((done) => {
          answer = done;
        });
      },
    });
    const verdicts = Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        g.admits(async () => octokit, request(i % 2 ? "@agent go" : "chat")),
      ),
    );
    await new Promise((done) => setImmediate(done));
    answer(DEFAULTS);
    const results = await verdicts;
    expect(reads).toBe(1);
    expect(results.filter(Boolean)).toHaveLength(25);
  });
});
