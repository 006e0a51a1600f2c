import { describe, expect, it } from "vitest";
import {
  RunnerContextError,
  readRunnerContext,
  withRepository,
} from "../../src/action/runner-context.js";

const ENV = {
  GITHUB_EVENT_NAME: "schedule",
  GITHUB_EVENT_PATH: "/runner/_temp/event.json",
  GITHUB_REPOSITORY: "octo-org/demo",
  GITHUB_API_URL: "https://ghe.example.com/api/v3/",
  GITHUB_SERVER_URL: "https://ghe.example.com",
  GITHUB_RUN_ID: "77",
  GITHUB_RUN_ATTEMPT: "2",
  GITHUB_ACTOR: "dependabot[bot]",
  GITHUB_ACTOR_ID: "49699333",
  GITHUB_REF_NAME: "trunk",
  RUNNER_TEMP: "/runner/_temp",
};

describe("readRunnerContext", () => {
  it("reads what the runner gives every step", () => {
    expect(readRunnerContext(ENV)).toEqual({
      eventName: "schedule",
      eventPath: "/runner/_temp/event.json",
      repository: "octo-org/demo",
      apiUrl: "https://ghe.example.com/api/v3",
      serverUrl: "https://ghe.example.com",
      deliveryId: "77-2",
      runUrl: "https://ghe.example.com/octo-org/demo/actions/runs/77",
      actor: { login: "dependabot[bot]", id: 49699333, type: "Bot" },
      tempDir: "/runner/_temp",
      refName: "trunk",
    });
  });

  it("says how to run the Action when it is not under a runner", () => {
    expect(() => readRunnerContext({})).toThrow(RunnerContextError);
    expect(() => readRunnerContext({})).toThrow(
      /run patchwright as a step of a GitHub Actions workflow/,
    );
  });

  it("defaults to github.com and leaves out what it cannot know", () => {
    const context = readRunnerContext({ GITHUB_EVENT_NAME: "push", GITHUB_EVENT_PATH: "/e.json" });
    expect(context).toMatchObject({
      apiUrl: "https://api.github.com",
      deliveryId: "local-push",
      runUrl: undefined,
      actor: undefined,
    });
  });
});

describe("withRepository", () => {
  it("rebuilds a schedule payload's repository from the runner's variables", () => {
    const context = readRunnerContext(ENV);
    expect(withRepository({ schedule: "0 6 * * 1" }, context)).toEqual({
      schedule: "0 6 * * 1",
      repository: {
        name: "demo",
        owner: { login: "octo-org" },
        clone_url: "https://ghe.example.com/octo-org/demo.git",
        default_branch: "trunk",
        html_url: "https://ghe.example.com/octo-org/demo",
      },
    });
  });

  it("keeps a payload that has its repository", () => {
    const payload = { repository: { name: "kept" } };
    expect(withRepository(payload, readRunnerContext(ENV))).toBe(payload);
  });
});
