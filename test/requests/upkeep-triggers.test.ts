import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { triggerKey } from "../../src/requests/request.js";
import { parseTrigger } from "../../src/requests/triggers.js";
import { parseBaseMoved } from "../../src/requests/upkeep-triggers.js";
import { shouldStart } from "../../src/thread/start-rules.js";

// biome-ignore lint/suspicious/noExplicitAny: tests edit real webhook payloads field by field
type Payload = Record<string, any>;
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as Array<{
  name: string;
  examples: Payload[];
}>;
const example = (event: string, action: string): Payload =>
  structuredClone(
    examples.find((g) => g.name === event)?.examples.find((p) => p.action === action) ?? {},
  );

const SHA = "a".repeat(40);
const pr = (sha = SHA) => ({
  number: 5,
  id: 1,
  url: "x",
  head: { ref: "agent/issue-1-x", sha, repo: {} },
  base: { ref: "main", sha: "b".repeat(40), repo: {} },
});

function failedRun(conclusion = "failure", pulls = [pr()]) {
  const payload = example("workflow_run", "completed");
  Object.assign(payload.workflow_run, { head_sha: SHA, conclusion, pull_requests: pulls });
  payload.installation = { id: 3 };
  return payload;
}

function failedSuite() {
  const payload = example("check_suite", "completed");
  Object.assign(payload.check_suite, {
    head_sha: SHA,
    conclusion: "failure",
    pull_requests: [pr()],
  });
  payload.installation = { id: 3 };
  return payload;
}

describe("CI failure triggers", () => {
  it("turns a failed run on a pull request's head into a fix_ci request", () => {
    const request = parseTrigger("workflow_run", failedRun(), "d1");
    expect(request).toMatchObject({
      trigger: "workflow_run",
      task: "fix_ci",
      ci: { headSha: SHA },
      target: { kind: "pull_request", number: 5 },
      pullRequest: { headRef: "agent/issue-1-x", headSha: SHA, baseRef: "main", isFork: false },
      source: { kind: "event" },
    });
    // No phrase, sender or label to check: whether the bot tends the PR is the job's question.
    expect(
      request &&
        shouldStart(request, {
          triggerPhrase: "@agent",
          label: "agent",
          allowedBots: [],
          botLogin: "x[bot]",
        }).start,
    ).toBe(true);
  });

  it("gives the run's and the suite's event of one commit the same trigger key", () => {
    const run = parseTrigger("workflow_run", failedRun(), "d1");
    const suite = parseTrigger("check_suite", failedSuite(), "d2");
    expect(run && suite && triggerKey(run)).toBe(suite && triggerKey(suite));
  });

  it.each([
    ["a success", failedRun("success")],
    ["a cancelled run", failedRun("cancelled")],
    ["no pull request", failedRun("failure", [])],
    ["a pull request whose head moved on", failedRun("failure", [pr("c".repeat(40))])],
  ])("starts nothing for %s", (_name, payload) => {
    expect(parseTrigger("workflow_run", payload, "d")).toBeNull();
  });
});

describe("parseBaseMoved", () => {
  const push = (extra: Payload) => ({
    ref: "refs/heads/main",
    after: SHA,
    repository: example("workflow_run", "completed").repository,
    sender: { login: "octocat", id: 1 },
    installation: { id: 3 },
    ...extra,
  });

  it("reads a push to a branch", () => {
    expect(parseBaseMoved(push({}), "d")).toMatchObject({
      baseRef: "main",
      after: SHA,
      installationId: 3,
    });
  });

  it.each([
    ["a tag", { ref: "refs/tags/v1" }],
    ["a deleted branch", { deleted: true }],
    ["no installation", { installation: undefined }],
  ])("ignores %s", (_name, extra) => {
    expect(parseBaseMoved(push(extra), "d")).toBeNull();
  });
});
