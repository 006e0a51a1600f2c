import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  commentPayload,
  DEMO_FILES,
  eventPayload,
  HOLD_MS,
  holdUntilAsked,
  ROOT,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
  watchBubblewrap,
} from "./harness.js";

const bundle = useBundle();

let world: ActionWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const FIX_STEPS = [
  callTool("read_file", { file_path: "src/add.js" }),
  callTool(
    "edit_file",
    { file_path: "src/add.js", old_string: "a - b", new_string: "a + b" },
    { say: "Fix add." },
  ),
  reply("Fixed add(): it subtracted instead of adding."),
];

/** "@agent tidy up" from a writer, answered with no change: the run must succeed. */
async function tidyUp(w: ActionWorld): Promise<void> {
  const run = await runAction(bundle.entry, w, {
    event: "issue_comment",
    payload: commentPayload(w, "octocat", "@agent tidy up"),
    inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
  });
  expect(run.code, run.log).toBe(0);
}

describe("the bundled Action on issue_comment", () => {
  it("fixes the issue, pushes a branch, opens the PR and reports through outputs and the summary", async () => {
    world = await startWorld({ steps: FIX_STEPS });
    const bwrap = watchBubblewrap(world);
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "@agent fix it"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, verify_command: "npm test" },
      env: bwrap.env,
    });

    expect(run.code, run.log).toBe(0);
    // Probed once the job opened its sandbox, and used for the agent's commands.
    expect(bwrap.starts()[0]).toBe("--help");
    expect(bwrap.starts().length).toBeGreaterThan(2);
    const [pull] = world.github.pulls;
    expect(pull?.head.ref).toBe("agent/issue-7-add-returns-the-wrong-sum");
    expect(pull?.body).toContain("Closes #7");
    expect(world.repo.show("agent/issue-7-add-returns-the-wrong-sum", "src/add.js")).toContain(
      "a + b",
    );
    expect(
      world.git.requests.some((r) => r.path.endsWith("/git-receive-pack") && r.authorized),
    ).toBe(true);

    expect(run.outputs).toMatchObject({
      conclusion: "success",
      branch: "agent/issue-7-add-returns-the-wrong-sum",
      pr_number: String(pull?.number),
      pr_url: pull?.html_url,
      turns: "3",
    });
    expect(Number(run.outputs.cost_usd)).toBeGreaterThanOrEqual(0);
    expect(run.summary).toContain(`[#${pull?.number}](${pull?.html_url})`);
    expect(run.summary).toMatch(/\| Verify \| ✅ `npm test` passed \|/);
    expect(run.summary).toMatch(/\| Files \| 1 file \(\+1 −1\) \|/);

    // The transcript is a JSONL file under RUNNER_TEMP, without the secrets.
    const transcriptPath = run.outputs.transcript_path ?? "";
    expect(transcriptPath.startsWith(run.runnerTemp)).toBe(true);
    expect(existsSync(transcriptPath)).toBe(true);
    const transcript = readFileSync(transcriptPath, "utf8");
    const types = transcript
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).type);
    expect(types).toContain("tool_call");
    expect(types.at(-1)).toBe("run_end");
    expect(transcript).not.toContain(TOKEN);
    expect(transcript).not.toContain(API_KEY);

    // The job's page as one HTML file (no artifact service outside a runner): named by the summary.
    const page = /The job's page: `([^`]+\.html)`/.exec(run.summary)?.[1] ?? "";
    expect(page.startsWith(run.runnerTemp)).toBe(true);
    const html = readFileSync(page, "utf8");
    expect(html).toContain('class="ev ev-tool_call"');
    expect(html).toContain("edit_file");
    expect(html).toContain("Opened pull request");
    expect(html).not.toContain("<script");
    expect(html).not.toContain(TOKEN);
    expect(html).not.toContain(API_KEY);

    // Same gate and status as the App: 👀 on the comment and one tracking comment, edited in place.
    expect(world.github.reactions.map((r) => r.content)).toEqual(
      expect.arrayContaining(["eyes", "rocket"]),
    );
    const tracking = world.github.comments.get(7) ?? [];
    expect(tracking).toHaveLength(1);
    expect(tracking[0]?.body).toContain(`#${pull?.number}`);
    expect(tracking[0]?.body).toContain("https://github.com/octo-org/demo/actions/runs/9001");

    // Secrets are masked in the log and never printed.
    expect(run.log).toContain(`::add-mask::${API_KEY}`);
    expect(run.log).toContain(`::add-mask::${TOKEN}`);
    expect(run.log.replaceAll(`::add-mask::${API_KEY}`, "")).not.toContain(API_KEY);
  }, 120_000);

  it("starts the yarn release the repository keeps in the agent's shell and verify, with no yarn on the runner's PATH", async () => {
    const release = ".yarn/releases/yarn-4.18.1.cjs";
    world = await startWorld({
      steps: [callTool("run_shell", { command: "yarn --version" }), ...FIX_STEPS],
      files: {
        ...DEMO_FILES,
        ".yarnrc.yml": `yarnPath: ${release}\n`,
        "yarn.lock": "__metadata:\n  version: 8\n  cacheKey: 10c0\n",
        [release]: readFileSync(join(ROOT, "node_modules/@yarnpkg/cli-dist/bin/yarn.js"), "utf8"),
      },
    });
    const path = (process.env.PATH ?? "").split(":").filter((d) => !d.includes("node_modules"));
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "@agent fix it"),
      inputs: {
        anthropic_api_key: API_KEY,
        github_token: TOKEN,
        verify_command: "yarn --version",
      },
      env: { PATH: path.join(":") },
    });
    expect(run.code, run.log).toBe(0);
    // The agent's own `yarn --version`, as the model was sent it.
    expect(JSON.stringify(world.model.requests[1]?.body)).toContain("4.18.1");
    expect(run.summary).toMatch(/\| Verify \| ✅ `yarn --version` passed \|/);
  }, 120_000);

  it("says what went wrong without stopping the job in the run's annotations and the thread", async () => {
    world = await startWorld({
      steps: [reply("Nothing to change.")],
      files: {
        ...DEMO_FILES,
        "package.json": JSON.stringify({
          name: "demo",
          private: true,
          packageManager: "pnpm@10.0.0",
        }),
      },
    });
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "@agent look"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      // Where corepack would fetch pnpm, nothing answers.
      env: { COREPACK_NPM_REGISTRY: "http://127.0.0.1:9" },
    });
    expect(run.code, run.log).toBe(0);
    expect(run.log).toMatch(/::warning::pnpm@10\.0\.0 through corepack could not be fetched/);
    const [tracking] = world.github.comments.get(7) ?? [];
    expect(tracking?.body).toMatch(/\*\*Warnings\*\*\n\n```text\npnpm@10\.0\.0 through corepack/);
  }, 120_000);

  it("keeps the runner's secrets and files out of the agent's commands", async () => {
    world = await startWorld({
      steps: [
        // base64, so that redaction of the result cannot be what hides a key.
        callTool("run_shell", {
          command: "cat /proc/[0-9]*/environ 2>/dev/null | base64 -w0; echo; ls / ..",
        }),
        reply("Looked."),
      ],
    });
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "@agent look around"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, policy: "trusted" },
    });
    expect(run.code, run.log).toBe(0);
    const result = JSON.stringify(world.model.requests[1]?.body);
    const encoded = /stdout:\\n([A-Za-z0-9+/=]+)/.exec(result)?.[1] ?? "";
    const environments = Buffer.from(encoded, "base64").toString("latin1");
    expect(environments).toContain("PATH=");
    for (const secret of [API_KEY, TOKEN, "INPUT_", "GITHUB_EVENT_PATH", "RUNNER_TEMP"]) {
      expect(environments).not.toContain(secret);
    }
    // The runner's files (the event, the outputs, RUNNER_TEMP) are not there to list.
    expect(result).not.toContain("event.json");
  }, 120_000);

  it("reads the thread while GitHub makes the tracking comment and the 👀", async () => {
    const { held, holdAnswer } = holdUntilAsked(
      (method, path) => method === "GET" && path === "/repos/octo-org/demo/issues/7/comments",
      (method, path) => method === "POST" && /\/(issues\/7\/comments|reactions)$/.test(path),
    );
    world = await startWorld({ steps: [reply("Nothing to change.")], github: { holdAnswer } });
    const started = performance.now();
    await tidyUp(world);
    expect(held).toContain("/repos/octo-org/demo/issues/comments/555/reactions");
    expect(held).toContain("/repos/octo-org/demo/issues/7/comments");
    // Nothing waited for the hold to run out.
    expect(performance.now() - started).toBeLessThan(HOLD_MS);
    expect(world.github.reactions.map((r) => r.content)).toContain("eyes");
  }, 60_000);

  it("sends the agent's first request while GitHub makes the tracking comment", async () => {
    // The tracking comment is answered only once the model has been asked.
    let modelAsked: () => void = () => {};
    const asked = new Promise<void>((done) => {
      modelAsked = done;
    });
    let heldComment = false;
    world = await startWorld({
      steps: [reply("Nothing to change.")],
      onModelRequest: () => modelAsked(),
      github: {
        holdAnswer: (method, path) => {
          if (method !== "POST" || path !== "/repos/octo-org/demo/issues/7/comments")
            return undefined;
          heldComment = true;
          return Promise.race([asked, new Promise<void>((done) => setTimeout(done, HOLD_MS))]);
        },
      },
    });
    const started = performance.now();
    await tidyUp(world);
    expect(heldComment).toBe(true);
    expect(performance.now() - started).toBeLessThan(HOLD_MS);
    expect(world.model.requests).toHaveLength(1);
    // Still one tracking comment, edited to the final answer.
    const comments = world.github.comments.get(7) ?? [];
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain("Nothing to change.");
  }, 60_000);

  it("reads the thread beside the permission check, once", async () => {
    // The permission is answered only once the thread has been asked for.
    const { holdAnswer } = holdUntilAsked(
      (method, path) => method === "GET" && /\/issues\/7\/comments$/.test(path),
      (method, path) => method === "GET" && path.endsWith("/collaborators/octocat/permission"),
    );
    world = await startWorld({ steps: [reply("Nothing to change.")], github: { holdAnswer } });
    const started = performance.now();
    await tidyUp(world);
    expect(performance.now() - started).toBeLessThan(HOLD_MS);
    const gets = (pattern: RegExp) =>
      world?.github.calls.filter((call) => call.method === "GET" && pattern.test(call.path));
    // Read ahead and taken by the plan: not read a second time.
    expect(gets(/\/issues\/7\/comments$/)).toHaveLength(1);
    expect(gets(/\/pulls$/)).toHaveLength(1);
  }, 60_000);

  it("fails with a clear message when the sender has no write access", async () => {
    world = await startWorld();
    const bwrap = watchBubblewrap(world);
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "reader", "@agent fix it"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
      env: bwrap.env,
    });

    expect(run.code).toBe(1);
    expect(run.log).toContain(
      "::error::@reader cannot start a job: only people with write access to octo-org/demo can ask patchwright for changes",
    );
    expect(run.outputs.conclusion).toBe("failure");
    expect(run.summary).toContain("@reader cannot start a job");
    expect(world.model.requests).toHaveLength(0);
    expect(world.github.pulls).toHaveLength(0);
    // The App's polite answer on the thread, no 👀.
    expect(world.github.comments.get(7)?.[0]?.body).toMatch(/write access/);
    expect(world.github.reactions).toHaveLength(0);
    // No job, so no sandbox: the probe waits until a job opens one.
    expect(bwrap.starts()).toEqual([]);
  }, 60_000);

  it("skips, without failing, a comment that is not for the bot", async () => {
    world = await startWorld();
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "octocat", "thanks, looks good"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
    });

    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("skipped");
    expect(world.github.comments.get(7) ?? []).toHaveLength(0);
    expect(world.model.requests).toHaveLength(0);
  }, 60_000);
});

describe("the bundled Action on issues.opened", () => {
  it("fixes a new issue whose description names the bot, and opens the PR", async () => {
    world = await startWorld({ steps: FIX_STEPS });
    const payload = eventPayload(world, "issues", "opened", "octocat");
    Object.assign(payload.issue, {
      number: 7,
      title: "add() returns the wrong sum",
      body: "2 + 3 gives -1.\n\n@agent fix it",
      state: "open",
      locked: false,
    });
    const run = await runAction(bundle.entry, world, {
      event: "issues",
      payload,
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN },
    });
    expect(run.code, run.log).toBe(0);
    const [pull] = world.github.pulls;
    expect(pull?.head.ref).toBe("agent/issue-7-add-returns-the-wrong-sum");
    expect(pull?.body).toContain("Closes #7");
    expect(world.github.reactions[0]).toEqual({ on: "issues/7", content: "eyes" });
    const task = JSON.stringify(world.model.requests[0]?.body);
    expect(task).toContain(
      "@octocat opened this issue for you: resolve what its title and description ask.",
    );
    expect(task).toContain("2 + 3 gives -1.");
    expect((world.github.comments.get(7) ?? [])[0]?.body).toContain(`#${pull?.number}`);
  }, 120_000);
});
