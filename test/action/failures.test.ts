import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reply } from "../helpers/model-script.js";
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

let world: ActionWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** `::error::` messages, decoded the way the runner shows them. */
function errors(log: string): string[] {
  return log
    .split("\n")
    .filter((line) => line.startsWith("::error::"))
    .map((line) =>
      line
        .slice("::error::".length)
        .replaceAll("%0A", "\n")
        .replaceAll("%0D", "")
        .replaceAll("%25", "%"),
    );
}

async function dispatch(inputs: Record<string, string>) {
  world = await startWorld();
  return runAction(bundle.entry, world, {
    event: "workflow_dispatch",
    payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
    inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up", ...inputs },
  });
}

describe("the bundled Action fails with a message that says what to fix", () => {
  it("names every bad input, with the value it got", async () => {
    const run = await dispatch({ max_turns: "many", max_cost_usd: "0", policy: "yolo" });

    expect(run.code).toBe(1);
    expect(errors(run.log)).toEqual([
      [
        'input max_turns: expected a whole number above 0, such as 30 (got "many")',
        'input max_cost_usd: expected a number of US dollars above 0, such as 2.5 (got "0")',
        'input policy: expected one of read-only, default, trusted (got "yolo")',
      ].join("\n"),
    ]);
    expect(run.outputs.conclusion).toBe("failure");
    expect(run.summary).toContain("input max_turns");
    // Nothing written on GitHub; the one read is the entry's early config read
    // (early-reads.ts), sent before the inputs are parsed, its answer unused.
    expect(world?.github.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      "GET /repos/octo-org/demo/contents/.github%2Fpatchwright.yml",
    ]);
    expect(world?.model.requests).toHaveLength(0);
  }, 60_000);

  it("asks for the missing half of the App credentials", async () => {
    const run = await dispatch({ app_id: "12345", private_key: "", github_token: TOKEN });

    expect(run.code).toBe(1);
    expect(errors(run.log)).toEqual(["input private_key: required when app_id is given"]);
  }, 60_000);

  it("runs the dependency job for mode: deps and says when there is nothing to bump", async () => {
    const run = await dispatch({ mode: "deps", prompt: "" });

    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("no_changes");
    expect(run.log).toContain("No updates to propose.");
    expect(world?.github.pulls).toHaveLength(0);
    expect(world?.model.requests).toHaveLength(0);
  }, 60_000);

  it("needs a prompt on workflow_dispatch", async () => {
    const run = await dispatch({ prompt: "" });

    expect(run.code).toBe(1);
    expect(errors(run.log)).toEqual([
      "input prompt: required for workflow_dispatch events (the instruction the agent carries out)",
    ]);
  }, 60_000);

  it("needs the Anthropic API key", async () => {
    const run = await dispatch({ anthropic_api_key: "" });

    expect(run.code).toBe(1);
    expect(errors(run.log)[0]).toMatch(
      /^input anthropic_api_key: required; store your Anthropic API key/,
    );
  }, 60_000);

  it("refuses events it cannot serve", async () => {
    world = await startWorld();
    const run = await runAction(bundle.entry, world, {
      event: "push",
      payload: eventPayload(world, "push", undefined, "octocat"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
    });

    expect(run.code).toBe(1);
    expect(errors(run.log)[0]).toMatch(
      /^patchwright does not run on push events; trigger the workflow on issue_comment/,
    );
  }, 60_000);

  it("names the GitHub call that failed: method, endpoint and status", async () => {
    world = await startWorld();
    // More failures than the client's retries: the read fails for good.
    world.github.inject({
      method: "GET",
      path: /\/contents\//,
      times: 10,
      status: 503,
      body: { message: "Service Unavailable", documentation_url: "https://docs.github.com/rest" },
    });
    const run = await runAction(bundle.entry, world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up" },
    });
    expect(run.code).toBe(1);
    const [message] = errors(run.log);
    expect(message).toMatch(/GET \/repos\/octo-org\/demo\/contents\/\S+/);
    expect(message).toMatch(/\b503\b/);
    expect(world.model.requests).toHaveLength(0);
  }, 60_000);

  it("reports an invalid config file by name", async () => {
    world = await startWorld({
      github: { configYaml: "max_turns: lots\n", configPath: ".github/bot.yml" },
    });
    const run = await runAction(bundle.entry, world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: {
        anthropic_api_key: API_KEY,
        github_token: TOKEN,
        prompt: "Tidy up",
        config_path: ".github/bot.yml",
      },
    });

    expect(run.code).toBe(1);
    expect(errors(run.log)[0]).toMatch(
      /^the config file \.github\/bot\.yml on main is invalid, so no job was started: .*whole number/,
    );
    expect(world.model.requests).toHaveLength(0);
  }, 60_000);

  it("finishes the job and warns when its transcript cannot be written", async () => {
    world = await startWorld({ steps: [reply("Nothing to change.")] });
    // The transcript's path (RUNNER_TEMP/patchwright/transcript-<run>-<attempt>.jsonl)
    // leads to /dev/full, which takes the open and fails every write, as a full disk would.
    const temp = join(world.tmp.path, "full-temp");
    mkdirSync(join(temp, "patchwright"), { recursive: true });
    symlinkSync("/dev/full", join(temp, "patchwright", "transcript-9001-1.jsonl"));
    const run = await runAction(bundle.entry, world, {
      event: "workflow_dispatch",
      payload: eventPayload(world, "workflow_dispatch", undefined, "octocat"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Tidy up" },
      env: { RUNNER_TEMP: temp },
    });

    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("no_changes");
    expect(run.log).toMatch(
      /::warning::the transcript \S+transcript-9001-1\.jsonl is incomplete: ENOSPC/,
    );
  }, 60_000);
});
