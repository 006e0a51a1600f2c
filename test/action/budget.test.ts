import { afterEach, describe, expect, it } from "vitest";
import type { ServerStep } from "../helpers/fake-anthropic-server.js";
import { reply, toolUse, turn } from "../helpers/model-script.js";
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
 * A budget named in a comment, in the bundled Action: the `max_cost_usd`
 * input is the usual cap, `max_cost_per_request_usd` in the config the
 * ceiling of a budget, as in the App.
 */

const bundle = useBundle();

let world: ActionWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

// 300,000 input tokens at claude-sonnet-5-5's $2 per million: about $0.60 a turn.
const STEPS: ServerStep[] = [
  ...[1, 2, 3, 4].map((n) =>
    turn(
      [toolUse("write_file", { file_path: `notes-${n}.md`, content: `note ${n}\n` })],
      undefined,
      { inputTokens: 300_000 },
    ),
  ),
  reply("Wrote the notes."),
];

function commentPayload(w: ActionWorld, body: string): Payload {
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
  Object.assign(payload.comment, { id: 555, body });
  return payload;
}

describe("the bundled Action with a budget in the comment", () => {
  it("raises the max_cost_usd input's cap up to max_cost_per_request_usd, and says so", async () => {
    world = await startWorld({
      steps: STEPS,
      github: { configYaml: "max_cost_per_request_usd: 1\n" },
    });
    const run = await runAction(bundle.entry, world, {
      event: "issue_comment",
      payload: commentPayload(world, "@agent add the notes, budget $5"),
      inputs: { anthropic_api_key: API_KEY, github_token: TOKEN, max_cost_usd: "0.5" },
    });

    expect(run.code, run.log).toBe(1);
    // $0.50 (the input) would stop after one turn, $5 after none: capped at $1, two.
    expect(world.model.requests).toHaveLength(2);
    const branch = "agent/issue-7-add-returns-the-wrong-sum";
    expect(world.repo.show(branch, "notes-2.md")).toContain("note 2");
    const tracking = (world.github.comments.get(7) ?? []).map((c) => c.body).join("\n");
    expect(tracking).toContain("Requested budget $5.00 capped at $1.00 (max_cost_per_request_usd)");
    expect(tracking).toContain("Stopped at the cost limit");
    expect(tracking).toContain("of $1.00 budget");
  }, 60_000);
});
