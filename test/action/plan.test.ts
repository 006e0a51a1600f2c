import { afterEach, describe, expect, it } from "vitest";
import { readPlanMarker } from "../../src/thread/kinds/plan-output.js";
import { callTool, reply } from "../helpers/model-script.js";
import {
  type ActionWorld,
  API_KEY,
  eventPayload,
  type Payload,
  runAction,
  startWorld,
  TOKEN,
  useBundle,
} from "./harness.js";

/**
 * A plan before code in the bundled Action: `@agent plan` posts the plan
 * from a read-only run, and a later run on `@agent go, but …` carries it
 * out. (A 👍 is the App's alone: no event reaches a workflow for it.)
 */

const bundle = useBundle();

let world: ActionWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function commentPayload(w: ActionWorld, id: number, body: string): Payload {
  const payload = eventPayload(
    w,
    "issue_comment",
    "created",
    "octocat",
    (p: Payload) => !p.issue.pull_request,
  );
  Object.assign(payload.issue, {
    number: 7,
    title: "add() returns the wrong sum",
    state: "open",
    locked: false,
  });
  Object.assign(payload.comment, { id, body });
  return payload;
}

const PLAN = [
  "Fix the operator in add().",
  "```plan-json",
  JSON.stringify({ files: [{ path: "src/add.js", change: "a + b" }], complexity: "small" }),
  "```",
].join("\n");

describe("the bundled Action with a plan", () => {
  it("posts a plan on `@agent plan`, pushing nothing, and carries it out on `@agent go, but …`", async () => {
    world = await startWorld({
      steps: [
        callTool("edit_file", {
          file_path: "src/add.js",
          old_string: "a - b",
          new_string: "a + b",
        }),
        reply(PLAN),
        callTool("read_file", { file_path: "src/add.js" }),
        callTool(
          "edit_file",
          { file_path: "src/add.js", old_string: "a - b", new_string: "a + b" },
          { say: "Fix add." },
        ),
        reply("Fixed add()."),
      ],
      // The workflow's token comments as github-actions[bot], the login the Action knows itself by.
      github: { botSlug: "github-actions" },
    });
    const inputs = { anthropic_api_key: API_KEY, github_token: TOKEN };
    const planned = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, 555, "@agent plan fix add()"),
      inputs,
    });
    expect(planned.code, planned.log).toBe(0);
    expect(planned.outputs.conclusion).toBe("no_changes");
    expect(world.github.pulls).toHaveLength(0);
    const [plan] = world.github.comments.get(7) ?? [];
    expect(readPlanMarker(plan?.body ?? "")).toMatchObject({
      task: "fix add()",
      files: ["src/add.js"],
    });
    expect(plan?.body).toContain("- [ ] `src/add.js`: a + b");
    expect(JSON.stringify(world.model.requests[1]?.body)).toContain(
      "the read-only preset does not allow changing files",
    );

    const went = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, 556, "@agent go, but keep the old API"),
      inputs,
    });
    expect(went.code, went.log).toBe(0);
    const goPrompt = JSON.stringify(world.model.requests[2]?.body);
    expect(goPrompt).toContain("Carry out the plan below");
    expect(goPrompt).toContain("but keep the old API");
    const [pull] = world.github.pulls;
    expect(pull?.body).toContain("### Plan");
    expect(pull?.body).toContain("The files changed are the ones the plan named.");
    expect(world.repo.show(pull?.head.ref ?? "", "src/add.js")).toContain("a + b");
  }, 180_000);
});
