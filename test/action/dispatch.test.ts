import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { PRIVATE_KEY } from "../helpers/app-harness.js";
import type { ServerStep } from "../helpers/fake-anthropic-server.js";
import { git } from "../helpers/git-repos.js";
import { callTool, overloaded, reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  eventPayload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

const bundle = useBundle();
const RENEWED = "ghs_renewed0123456789abcdefghijklmnopqrstu";

let world: ActionWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const CHANGELOG_STEPS = [
  callTool(
    "write_file",
    { file_path: "CHANGELOG.md", content: "# Changelog\n\n## Unreleased\n" },
    { say: "Add a changelog." },
  ),
  reply("Added CHANGELOG.md with an Unreleased section."),
];

describe("the bundled Action on workflow_dispatch and schedule", () => {
  it("runs the prompt on the default branch and opens a pull request", async () => {
    world = await startWorld({ steps: CHANGELOG_STEPS });
    const run = await runAction(bundle.entry, world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: {
        anthropic_api_key: API_KEY,
        github_token: TOKEN,
        prompt: "Add a CHANGELOG.md\n\nStart it with an Unreleased section.",
        max_turns: "5",
      },
    });

    expect(run.code, run.log).toBe(0);
    // A github_token's permissions cannot be read back: nothing is said about workflow files.
    expect(JSON.stringify(world.model.requests[0]?.body)).not.toContain("workflows: write");
    const [pull] = world.github.pulls;
    expect(pull?.title).toBe("Add a CHANGELOG.md");
    expect(pull?.base.ref).toBe("main");
    expect(pull?.head.ref).toBe("agent/add-a-changelog-md");
    expect(pull?.body).toContain("Added CHANGELOG.md");
    expect(pull?.body).toContain("https://github.com/octo-org/demo/actions/runs/9001");
    expect(world.repo.show("agent/add-a-changelog-md", "CHANGELOG.md")).toContain("Unreleased");
    // The commit credits whoever dispatched the run.
    const message = git(
      world.repo.dir,
      ["log", "-1", "--format=%B", "agent/add-a-changelog-md"],
      world.env,
    );
    expect(message).toContain("Co-authored-by: octocat <583231+octocat@users.noreply.github.com>");
    expect(run.outputs).toMatchObject({
      conclusion: "success",
      branch: "agent/add-a-changelog-md",
      pr_number: String(pull?.number),
      pr_url: pull?.html_url,
      turns: "2",
    });
    expect(run.summary).toContain("opened pull request");
    expect(run.summary).toContain("| Verify | not run |");
    // The prompt reached the model as the task, with the repository named.
    const first = JSON.stringify(world.model.requests[0]?.body);
    expect(first).toContain("Add a CHANGELOG.md");
    expect(first).toContain("octo-org/demo");
    // One git session fetched the repository: no separate ls-remote, and the
    // fetch started next to the config lookup was not repeated by the job.
    const fetches = world.git.requests.filter(
      (r) => r.method === "GET" && r.query === "service=git-upload-pack",
    );
    expect(fetches).toHaveLength(1);
    // No issue, so no tracking comment and no reactions.
    expect(world.github.comments.size).toBe(0);
    expect(world.github.reactions).toHaveLength(0);
  }, 120_000);

  it("stops when the run is cancelled, pushes the work done so far and fails the step", async () => {
    let child: ChildProcess | undefined;
    world = await startWorld({
      // The second answer is "overloaded, retry in 20 s": the runner cancels during that wait.
      steps: [
        CHANGELOG_STEPS[0] as ServerStep,
        overloaded({ retryAfter: 20 }),
        reply("never seen"),
      ],
      onModelRequest: () => {
        if (world?.model.requests.length === 2) child?.kill("SIGINT");
      },
    });
    const run = await runAction(bundle.entry, world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Add a CHANGELOG.md" },
      onSpawn: (spawned) => {
        child = spawned;
      },
    });

    expect(run.code, run.log).toBe(1);
    expect(world.repo.show("agent/add-a-changelog-md", "CHANGELOG.md")).toContain("Unreleased");
    expect(world.github.pulls[0]?.draft).toBe(true);
    expect(run.outputs.conclusion).toBe("failure");
    expect(run.log).toContain("Agent stopped after 2 turns: aborted");
  }, 120_000);

  it("runs a scheduled prompt as the App, with an installation token for this repository, renewed as it runs out", async () => {
    // The first token is minutes from its end, and has run out by the time
    // the agent works: the push goes with the one minted to replace it.
    const minted: string[] = [];
    let firstRanOut = false;
    world = await startWorld({
      steps: CHANGELOG_STEPS,
      github: {
        botSlug: "patchwright-dev",
        mintToken: () => {
          minted.push(minted.length === 0 ? TOKEN : RENEWED);
          const minutes = minted.length === 1 ? 5 : 60;
          return {
            token: minted.at(-1) as string,
            expiresAt: new Date(Date.now() + minutes * 60_000).toISOString(),
          };
        },
      },
      onModelRequest: () => {
        firstRanOut = true;
      },
      gitAccepts: (token) => token === RENEWED || (token === TOKEN && !firstRanOut),
    });
    const payload = {
      schedule: "0 6 * * 1",
      repository: eventPayload(world, "workflow_dispatch", undefined, "octocat").repository,
    };
    const run = await runAction(bundle.entry, world, {
      event: "schedule",
      payload,
      inputs: {
        anthropic_api_key: API_KEY,
        github_token: "",
        app_id: "12345",
        private_key: PRIVATE_KEY,
        prompt: "Add a CHANGELOG.md",
      },
    });

    expect(run.code, run.log).toBe(0);
    expect(world.github.pulls[0]?.head.ref).toBe("agent/add-a-changelog-md");
    // The installation token has no workflows: write (the fake's default): the agent is told at once.
    expect(JSON.stringify(world.model.requests[0]?.body)).toContain("workflows: write");
    const paths = world.github.calls.map((c) => `${c.method} ${c.path}`);
    expect(paths).toContain("GET /repos/octo-org/demo/installation");
    expect(paths).toContain("POST /app/installations/42/access_tokens");
    const tokenCall = world.github.calls.find((c) => c.path.endsWith("/access_tokens"));
    expect(tokenCall?.body.repositories).toEqual(["demo"]);
    // The installation token renewed (once, on the first request that asked
    // for it) is what git pushed with, and both are masked.
    expect(minted).toEqual([TOKEN, RENEWED]);
    expect(firstRanOut).toBe(true);
    const pushes = world.git.requests.filter((r) => r.path.endsWith("/git-receive-pack"));
    expect(pushes.length).toBeGreaterThan(0);
    expect(pushes.every((r) => r.authorized)).toBe(true);
    expect(world.git.requests.filter((r) => !r.authorized)).toEqual([]);
    expect(run.log).toContain(`::add-mask::${TOKEN}`);
    expect(run.log).toContain(`::add-mask::${RENEWED}`);
    // The runner masks line by line: every line of the key is registered, and none is printed otherwise.
    const keyLines = PRIVATE_KEY.trim().split("\n");
    for (const line of keyLines) expect(run.log).toContain(`::add-mask::${line}`);
    const printed = run.log
      .split("\n")
      .filter((line) => !line.startsWith("::add-mask::"))
      .join("\n");
    for (const line of keyLines) expect(printed).not.toContain(line);
  }, 120_000);
});
