import { Octokit } from "@octokit/rest";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { GitHubClient } from "../../src/github/octokit.js";
import type { StatusReporter } from "../../src/github/status.js";
import type { JobRequest } from "../../src/requests/request.js";
import { admitRequest } from "../../src/thread/admit.js";
import {
  createFakeGitHub,
  type FakeGitHub,
  type FakeGitHubOptions,
} from "../helpers/fake-github.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(options: Partial<FakeGitHubOptions> = {}) {
  const github = createFakeGitHub({
    owner: "octo-org",
    repo: "demo",
    permissions: { octocat: "write" },
    ...options,
  });
  const server = await github.listen();
  closers.push(server.close);
  const octokit: GitHubClient = new Octokit({
    baseUrl: server.url,
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
  return { github, octokit };
}

async function client(options: Partial<FakeGitHubOptions> = {}): Promise<GitHubClient> {
  return (await serve(options)).octokit;
}

function recordingStatus(seen: string[]): StatusReporter {
  return {
    acknowledge: async () => void seen.push("eyes"),
    reply: async (markdown) => void seen.push(`reply: ${markdown}`),
    start: async () => {},
    update: () => {},
    step: () => {},
    finish: async (markdown, outcome) => void seen.push(`finish (${outcome}): ${markdown}`),
    note: () => {},
    suspend: async () => {},
    commentUrl: () => undefined,
    commentId: () => undefined,
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

  describe("the requester's permission", () => {
    const comment = (instruction: string): JobRequest => ({
      ...PULL_REQUEST_EVENT,
      trigger: "issue_comment",
      instruction,
      source: { kind: "issue_comment", id: 5 },
    });

    it("is read beside the config for a request to the bot: one round trip less", async () => {
      const { octokit } = await serve();
      const order: string[] = [];
      (octokit as Octokit).hook.wrap("request", async (request, options) => {
        const what = String(options.url).includes("permission") ? "permission" : "config";
        order.push(`${what} asked`);
        try {
          return await request(options);
        } finally {
          // The fake has no config file: that answer is a 404.
          order.push(`${what} answered`);
        }
      });
      const admission = await admitRequest(
        { octokit, botLogin: "patchwright[bot]" },
        comment("@agent please fix"),
        recordingStatus([]),
      );
      expect(admission.admitted).toBe(true);
      expect(order.indexOf("permission asked")).toBeLessThan(order.indexOf("config answered"));
    });

    it("is not asked for a comment that is not for the bot", async () => {
      const { github, octokit } = await serve();
      const admission = await admitRequest(
        { octokit, botLogin: "patchwright[bot]" },
        comment("thanks, looks good"),
        recordingStatus([]),
      );
      expect(admission).toEqual({ admitted: false, reason: "not_for_us" });
      expect(github.calls.map((call) => call.path)).toEqual([
        "/repos/octo-org/demo/contents/.github%2Fpatchwright.yml",
      ]);
    });
  });

  describe("when GitHub fails the checks", () => {
    const COMMENT: JobRequest = {
      ...PULL_REQUEST_EVENT,
      trigger: "issue_comment",
      instruction: "@agent please fix",
      source: { kind: "issue_comment", id: 5 },
    };
    const PERMISSION = /\/collaborators\/octocat\/permission$/;
    const CONFIG = /\/contents\//;

    async function admit(request: JobRequest, fault: Parameters<FakeGitHub["inject"]>[0]) {
      const { github, octokit } = await serve();
      github.inject(fault);
      const seen: string[] = [];
      const waits: number[] = [];
      const admission = await admitRequest(
        { octokit, botLogin: "patchwright[bot]", sleep: async (ms) => void waits.push(ms) },
        request,
        recordingStatus(seen),
      );
      const asked = (path: RegExp) => github.calls.filter((c) => path.test(c.path)).length;
      return { admission, seen, waits, asked };
    }

    it("asks again after a 500 and admits when GitHub recovers", async () => {
      const { admission, seen, waits, asked } = await admit(COMMENT, {
        method: "GET",
        path: PERMISSION,
        status: 500,
        times: 2,
      });
      expect(admission).toEqual({ admitted: true, config: defaultConfig() });
      expect(seen).toEqual(["eyes"]);
      expect(waits).toEqual([1_000, 4_000]);
      expect(asked(PERMISSION)).toBe(3);
    });

    it.each([
      ["permission check", PERMISSION, 500],
      ["config read", CONFIG, 502],
    ])(
      "answers with 😕 and says check_failed when the %s keeps failing",
      async (what, path, status) => {
        const { admission, seen, asked } = await admit(COMMENT, {
          method: "GET",
          path,
          status,
          times: 10,
        });
        expect(admission).toMatchObject({ admitted: false, reason: "check_failed" });
        expect(!admission.admitted && admission.checkError).toContain(`GitHub answered ${status}`);
        // What failed, in words, and what to do.
        const when =
          what === "config read"
            ? "when I read `.github/patchwright.yml` from the default branch"
            : "when I checked whether @octocat may ask me for changes here";
        expect(seen).toEqual([
          `finish (failure): 😕 I couldn't start on this request: GitHub did not answer (${status}) ${when}, so nothing was started. Please ask again in a few minutes.`,
        ]);
        expect(asked(path)).toBe(3);
      },
    );

    it("leaves the answer to the caller's queue with retryLater: no reply, no reaction, check_failed", async () => {
      const { github, octokit } = await serve();
      github.inject({ method: "GET", path: PERMISSION, status: 500, times: 10 });
      const seen: string[] = [];
      const admission = await admitRequest(
        { octokit, botLogin: "patchwright[bot]", retryLater: true, retryDelaysMs: [] },
        COMMENT,
        recordingStatus(seen),
      );
      expect(admission).toMatchObject({
        admitted: false,
        reason: "check_failed",
        checkFailure:
          "GitHub did not answer (500) when I checked whether @octocat may ask me for changes here",
      });
      expect(seen).toEqual([]);
      expect(github.calls.filter((c) => PERMISSION.test(c.path))).toHaveLength(1);
    });

    it("does not answer a comment that was not for the bot while the config is unreadable", async () => {
      const { admission, seen } = await admit(
        { ...COMMENT, instruction: "looks good to me" },
        { method: "GET", path: CONFIG, drop: true, times: 10 },
      );
      expect(admission).toEqual({ admitted: false, reason: "not_for_us" });
      expect(seen).toEqual([]);
    });

    it("does not retry a refusal, and treats an unknown user as unauthorized as before", async () => {
      const refused = await admit(COMMENT, {
        method: "GET",
        path: PERMISSION,
        status: 404,
        body: { message: "Not Found" },
      });
      expect(refused.admission).toEqual({ admitted: false, reason: "unauthorized" });
      expect(refused.waits).toEqual([]);
      expect(refused.seen).toEqual([expect.stringMatching(/^reply: Sorry @octocat/)]);

      const { github, octokit } = await serve();
      github.inject({
        method: "GET",
        path: PERMISSION,
        status: 403,
        body: { message: "Resource not accessible by integration" },
      });
      const status = recordingStatus([]);
      await expect(
        admitRequest({ octokit, botLogin: "patchwright[bot]" }, COMMENT, status),
      ).rejects.toMatchObject({ status: 403 });
    });
  });
});
