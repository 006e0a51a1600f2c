import { afterEach, describe, expect, it } from "vitest";
import { callTool, reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  eventPayload,
  HOLD_MS,
  holdUntilAsked,
  OWNER,
  type Payload,
  REPO,
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

const BRANCH = "feature/docs";

/** A real `pull_request.<action>` payload for PR #12 from `headRepo`'s branch into main. */
function pullRequestPayload(w: ActionWorld, action: string, headRepo: string): Payload {
  const payload = eventPayload(w, "pull_request", action, "octocat");
  const headSha = w.repo.sha(BRANCH) ?? "0".repeat(40);
  Object.assign(payload.pull_request, {
    number: 12,
    title: "Document add()",
    body: "Adds docs.",
    state: "open",
    locked: false,
    html_url: `https://github.com/${OWNER}/${REPO}/pull/12`,
  });
  payload.pull_request.head = {
    ...payload.pull_request.head,
    ref: BRANCH,
    sha: headSha,
    label: `${headRepo.split("/")[0]}:${BRANCH}`,
    repo: {
      ...payload.pull_request.head.repo,
      full_name: headRepo,
      clone_url: `https://github.com/${headRepo}.git`,
    },
  };
  payload.pull_request.base = {
    ...payload.pull_request.base,
    ref: "main",
    repo: { ...payload.pull_request.base.repo, full_name: `${OWNER}/${REPO}` },
  };
  return payload;
}

describe("the bundled Action on pull_request", () => {
  it("runs the prompt on the pull request's own branch and pushes there", async () => {
    // The thread's comments are answered only once its reviews were asked for too.
    const { holdAnswer } = holdUntilAsked(
      (method, path) => method === "GET" && path === "/repos/octo-org/demo/pulls/12/reviews",
      (method, path) => method === "GET" && path === "/repos/octo-org/demo/issues/12/comments",
    );
    const started = performance.now();
    world = await startWorld({
      github: { holdAnswer },
      steps: [
        callTool("read_file", { file_path: "src/add.js" }),
        callTool(
          "edit_file",
          {
            file_path: "src/add.js",
            old_string: "module.exports",
            new_string: "/** Adds two numbers. */\nmodule.exports",
          },
          { say: "Document add()." },
        ),
        reply("Documented add()."),
      ],
    });
    world.repo.push({ branch: BRANCH, files: { "docs.md": "# Docs\n" }, message: "docs" });
    const before = world.repo.sha(BRANCH);

    const run = await runAction(bundle.entry, world, {
      event: "pull_request",
      payload: pullRequestPayload(world, "opened", `${OWNER}/${REPO}`),
      inputs: {
        anthropic_api_key: API_KEY,
        github_token: TOKEN,
        prompt: "Add a doc comment to every exported function.",
      },
    });

    expect(run.code, run.log).toBe(0);
    // The thread's lists were read side by side: nothing waited for the hold to run out.
    expect(performance.now() - started).toBeLessThan(HOLD_MS);
    expect(world.repo.sha(BRANCH)).not.toBe(before);
    expect(world.repo.show(BRANCH, "src/add.js")).toContain("/** Adds two numbers. */");
    expect(world.github.pulls).toHaveLength(0);
    expect(run.outputs).toMatchObject({
      conclusion: "success",
      branch: BRANCH,
      pr_number: "12",
      pr_url: `https://github.com/${OWNER}/${REPO}/pull/12`,
    });
    // The pull request is the thread: its tracking comment and its changed files as context.
    expect(world.github.comments.get(12)?.[0]?.body).toContain(`Pushed 1 commit to`);
    expect(JSON.stringify(world.model.requests[0]?.body)).toContain(
      "Add a doc comment to every exported function.",
    );
  }, 120_000);

  it("leaves a pull request from a fork alone, and says why in the log and the summary", async () => {
    world = await startWorld();
    const run = await runAction(bundle.entry, world, {
      event: "pull_request",
      payload: pullRequestPayload(world, "synchronize", "someone/demo"),
      // As a fork's run gets them: no secrets, whatever the workflow asks for.
      inputs: {
        anthropic_api_key: "",
        github_token: TOKEN,
        app_id: "12345",
        private_key: "",
        prompt: "Review",
      },
    });

    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("skipped");
    expect(run.log).toContain("comes from someone/demo, a fork");
    expect(run.summary).toContain("comes from someone/demo, a fork");
    expect(run.summary).toContain("Nothing was changed or pushed");
    expect(world.github.calls).toHaveLength(0);
    expect(world.git.requests).toHaveLength(0);
    expect(world.model.requests).toHaveLength(0);
  }, 60_000);

  it("ignores pull_request actions other than opened, synchronize and ready_for_review", async () => {
    world = await startWorld();
    const run = await runAction(bundle.entry, world, {
      event: "pull_request",
      payload: pullRequestPayload(world, "closed", `${OWNER}/${REPO}`),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, prompt: "Review" },
    });

    expect(run.code, run.log).toBe(0);
    expect(run.outputs.conclusion).toBe("skipped");
    expect(run.summary).toContain('action "closed" start no job');
    expect(world.github.calls).toHaveLength(0);
  }, 60_000);
});
