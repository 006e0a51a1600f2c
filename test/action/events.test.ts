import { describe, expect, it } from "vitest";
import {
  ActionEventError,
  forkPullRequestNote,
  parseActionEvent,
} from "../../src/action/events.js";
import { parseTrigger } from "../../src/requests/triggers.js";
import { aim, examplePayload, type Payload } from "../helpers/app-harness.js";
import { firstExample } from "./harness.js";

const CLONE = "https://github.com/octo-org/demo.git";

function pullRequest(action: string, headRepo: string): Payload {
  const payload = aim(examplePayload("pull_request", action), CLONE, { login: "octocat" });
  payload.pull_request.head.repo.full_name = headRepo;
  payload.pull_request.base.repo.full_name = "octo-org/demo";
  return payload;
}

const run = { deliveryId: "9001-1", prompt: "Review the change for missing tests." };

describe("parseActionEvent", () => {
  it("parses comment events exactly as the App does", () => {
    const payload = aim(
      examplePayload("issue_comment", "created", (p: Payload) => !p.issue.pull_request),
      CLONE,
      { login: "octocat" },
    );
    payload.comment.body = "@agent fix it";
    const event = parseActionEvent({ ...run, eventName: "issue_comment", payload });
    expect(event).toEqual({
      kind: "request",
      request: parseTrigger("issue_comment", payload, "9001-1"),
    });
  });

  it("skips comment actions that start nothing", () => {
    const payload = aim(examplePayload("issue_comment", "edited"), CLONE, { login: "octocat" });
    expect(parseActionEvent({ ...run, eventName: "issue_comment", payload })).toEqual({
      kind: "skip",
      reason: 'issue_comment events with action "edited" start no job',
    });
  });

  it("turns a same-repository pull_request into a request on its own branch, with the prompt as the instruction", () => {
    const payload = pullRequest("synchronize", "octo-org/demo");
    const event = parseActionEvent({ ...run, eventName: "pull_request", payload });
    expect(event.kind).toBe("request");
    if (event.kind !== "request") return;
    expect(event.request).toMatchObject({
      trigger: "pull_request",
      instruction: "Review the change for missing tests.",
      source: { kind: "event", htmlUrl: payload.pull_request.html_url },
      target: { kind: "pull_request", number: payload.pull_request.number },
      pullRequest: { headRef: payload.pull_request.head.ref, isFork: false },
      requester: { login: "octocat" },
    });
  });

  it("needs the prompt for pull_request, workflow_dispatch and schedule", () => {
    const payload = pullRequest("opened", "octo-org/demo");
    expect(() =>
      parseActionEvent({ ...run, prompt: " ", eventName: "pull_request", payload }),
    ).toThrow(
      new ActionEventError(
        "input prompt: required for pull_request events (the instruction the agent carries out)",
      ),
    );
  });

  it("skips pull_request actions other than opened, synchronize and ready_for_review", () => {
    const payload = pullRequest("labeled", "octo-org/demo");
    expect(parseActionEvent({ ...run, eventName: "pull_request", payload }).kind).toBe("skip");
  });

  it("turns workflow_dispatch into a repository job credited to its sender", () => {
    const payload = aim(firstExample("workflow_dispatch"), CLONE, {
      login: "octocat",
      id: 21,
    });
    const event = parseActionEvent({
      ...run,
      eventName: "workflow_dispatch",
      payload,
      runUrl: "https://github.com/octo-org/demo/actions/runs/9001",
    });
    expect(event).toEqual({
      kind: "repository",
      request: {
        trigger: "workflow_dispatch",
        deliveryId: "9001-1",
        repo: {
          owner: "octo-org",
          name: "demo",
          cloneUrl: CLONE,
          defaultBranch: "main",
          htmlUrl: "https://github.com/octo-org/demo",
          sizeKb: 144,
        },
        requester: { login: "octocat", id: 21, type: "User" },
        instruction: run.prompt,
        runUrl: "https://github.com/octo-org/demo/actions/runs/9001",
      },
    });
  });

  it("credits a schedule to the run's actor, since its payload has no sender", () => {
    const { repository } = aim(firstExample("workflow_dispatch"), CLONE, {
      login: "octocat",
    });
    const actor = { login: "maintainer", id: 5, type: "User" as const };
    const event = parseActionEvent({
      ...run,
      eventName: "schedule",
      payload: { schedule: "0 6 * * 1", repository },
      actor,
    });
    expect(event.kind === "repository" && event.request).toMatchObject({
      trigger: "schedule",
      requester: actor,
    });
  });

  it("turns a pull_request into a review, with no prompt needed, under mode: review", () => {
    const payload = pullRequest("opened", "octo-org/demo");
    const event = parseActionEvent({
      ...run,
      prompt: undefined,
      mode: "review",
      eventName: "pull_request",
      payload,
    });
    expect(event).toMatchObject({ kind: "request", request: { task: "review", instruction: "" } });
  });

  it("turns a failed workflow_run on a pull request's head into a CI fix, and skips the rest", () => {
    const payload = aim(examplePayload("workflow_run", "completed"), CLONE, { login: "octocat" });
    const sha = "d".repeat(40);
    Object.assign(payload.workflow_run, {
      head_sha: sha,
      conclusion: "failure",
      pull_requests: [{ number: 3, head: { ref: "agent/x", sha }, base: { ref: "main" } }],
    });
    expect(parseActionEvent({ ...run, eventName: "workflow_run", payload })).toMatchObject({
      kind: "request",
      request: { task: "fix_ci", ci: { headSha: sha }, target: { number: 3 } },
    });
    payload.workflow_run.conclusion = "success";
    expect(parseActionEvent({ ...run, eventName: "workflow_run", payload }).kind).toBe("skip");
  });

  it("refuses events it cannot serve, naming the ones it can", () => {
    expect(() => parseActionEvent({ ...run, eventName: "push", payload: {} })).toThrow(
      /^patchwright does not run on push events; trigger the workflow on issue_comment, pull_request_review_comment, pull_request_review, issues, pull_request, workflow_run, workflow_dispatch, schedule$/,
    );
  });
});

describe("forkPullRequestNote", () => {
  it("explains why a fork's pull request is left alone", () => {
    const note = forkPullRequestNote("pull_request", pullRequest("opened", "someone/demo"));
    expect(note).toMatch(/^Pull request #\d+ comes from someone\/demo, a fork\./);
    expect(note).toContain("Nothing was changed or pushed.");
  });

  it("is null for same-repository pull requests and other events", () => {
    expect(forkPullRequestNote("pull_request", pullRequest("opened", "octo-org/demo"))).toBeNull();
    expect(forkPullRequestNote("issue_comment", pullRequest("opened", "someone/demo"))).toBeNull();
  });
});
