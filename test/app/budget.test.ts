import { afterEach, describe, expect, it } from "vitest";
import type { ScriptStep } from "../../src/agent/model/scripted.js";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { reply, toolUse, turn } from "../helpers/model-script.js";

/**
 * A budget named in the request ("@agent …, budget $1") through the whole
 * App: webhook, admission, the job, the agent loop's cost cap, the push, the
 * pull request and the tracking comment.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

// 200,000 input tokens at the scripted model's price ($3 per million): about $0.60 a turn.
const PRICEY = { inputTokens: 200_000 };

/** Four turns of about $0.60, each writing one file, then a reply: about $2.40 in all. */
function noteSteps(): ScriptStep[] {
  return [
    ...[1, 2, 3, 4].map((n) =>
      turn(
        [toolUse("write_file", { file_path: `notes-${n}.md`, content: `note ${n}\n` })],
        undefined,
        PRICEY,
      ),
    ),
    reply("Wrote the notes."),
  ];
}

async function ask(h: Harness, body: string): Promise<void> {
  await h.probot.receive({
    id: "d-budget",
    name: "issue_comment",
    payload: issueComment(h, body),
  } as never);
  await h.idle();
}

/** The tracking comment as it ended. */
const finalComment = (h: Harness) => (h.github.comments.get(7) ?? []).map((c) => c.body).join("\n");

/** Every body the tracking comment had: as created, then each edit. */
function trackingBodies(h: Harness): string[] {
  return h.github.calls
    .filter(
      (c) =>
        (c.method === "POST" && c.path.endsWith("/issues/7/comments")) ||
        (c.method === "PATCH" && /\/issues\/comments\/\d+$/.test(c.path)),
    )
    .map((c) => String(c.body.body));
}

const BRANCH = "agent/issue-7-add-returns-the-wrong-sum";

/** Which of the four notes the branch holds. */
function notesOnBranch(h: Harness): number[] {
  return [1, 2, 3, 4].filter((n) => {
    try {
      return h.repo.show(BRANCH, `notes-${n}.md`).includes(`note ${n}`);
    } catch {
      return false;
    }
  });
}

/** What the model was asked to do (the first request's first message). */
const firstPrompt = (h: Harness) => JSON.stringify(h.models[0]?.requests[0]?.messages[0]);

describe("a budget named in the request, through the App", () => {
  it("lowers the cap: the agent is stopped at it, and what it did is pushed and opened as a draft", async () => {
    harness = await startHarness({ steps: noteSteps() });
    await ask(harness, "@agent add the notes, budget $1");

    // $0.60, then $1.20: the loop stops before a third turn (the usual $5 would allow all four).
    expect(harness.models[0]?.requests).toHaveLength(2);
    expect(notesOnBranch(harness)).toEqual([1, 2]);
    const [pull] = harness.github.pulls;
    expect(pull?.head.ref).toBe(BRANCH);
    expect(pull?.draft).toBe(true);
    expect(pull?.body).toContain("of $1.00 budget");

    const report = finalComment(harness);
    expect(report).toContain("Stopped at the cost limit");
    expect(report).toContain("cost limit of $1.00");
    expect(report).toContain("The work done so far (2 commits) was pushed");
    expect(report).toContain("Budget $1.00, as requested");
    // The steps under the report: the agent's spend against the budget.
    expect(report).toMatch(
      /Agent at work · turn 2 · \$1\.\d+ of \$1\.00 budget \(stopped at the cost limit\)/,
    );
    // Said from the first body of the tracking comment on.
    expect(trackingBodies(harness)[0]).toContain("💰 Budget $1.00, as requested");

    // The budget is not part of the task the agent reads.
    expect(firstPrompt(harness)).toContain("add the notes");
    expect(firstPrompt(harness)).not.toContain("budget $1");
  });

  it("caps a budget above max_cost_per_request_usd, and says so", async () => {
    harness = await startHarness({
      steps: noteSteps(),
      github: { configYaml: "max_cost_usd: 0.5\nmax_cost_per_request_usd: 1\n" },
    });
    await ask(harness, "@agent $500 max: add the notes");

    // Capped at $1 (two turns); $0.50 would have stopped after one, $500 after none.
    expect(harness.models[0]?.requests).toHaveLength(2);
    expect(notesOnBranch(harness)).toEqual([1, 2]);
    const report = finalComment(harness);
    expect(report).toContain("Requested budget $500.00 capped at $1.00 (max_cost_per_request_usd)");
    expect(report).toContain("of $1.00 budget");
    expect(trackingBodies(harness)[0]).toContain(
      "Requested budget $500.00 capped at $1.00 (max_cost_per_request_usd)",
    );
  });

  it("keeps a budget within the operator's ceiling, whatever max_cost_per_request_usd says", async () => {
    harness = await startHarness({
      steps: noteSteps(),
      github: { configYaml: "max_cost_per_request_usd: 50\n" },
      env: { PATCHWRIGHT_MAX_COST_USD: "1" },
    });
    await ask(harness, "@agent add the notes. Budget: $20");

    expect(harness.models[0]?.requests).toHaveLength(2);
    const report = finalComment(harness);
    expect(report).toContain("Requested budget $20.00 capped at $1.00 (max_cost_per_request_usd)");
    expect(report).toContain(
      "max_cost_per_request_usd: capped at $1 by the operator (the repository asked for $50)",
    );
  });

  it("refuses $0 as a budget and ignores one in a quoted earlier comment: the usual cap holds", async () => {
    harness = await startHarness({
      steps: noteSteps(),
      github: { configYaml: "max_cost_usd: 1\nmax_cost_per_request_usd: 100\n" },
    });
    await ask(
      harness,
      "> @agent add the notes, budget $100\n\n@agent do what they asked, budget $0. Not `max $50` either.",
    );

    // Neither $0 nor the quoted $100 nor the code span's $50: the usual $1.
    expect(harness.models[0]?.requests).toHaveLength(2);
    expect(notesOnBranch(harness)).toEqual([1, 2]);
    const report = finalComment(harness);
    expect(report).toContain("`budget $0` was not allowed as a budget");
    expect(report).toContain("usual cap of $1.00 (max_cost_usd)");
    expect(report).toContain("of $1.00 budget");
    expect(report).not.toContain("as requested");
    expect(report).not.toContain("capped at");
    expect(firstPrompt(harness)).not.toContain("budget $0");
  });

  it("leaves a request without a budget at the usual cap, with no budget note", async () => {
    harness = await startHarness({
      steps: noteSteps(),
      github: { configYaml: "max_cost_usd: 1\n" },
    });
    await ask(harness, "@agent add the notes on the budget, max 3 of them, the $2 maxi price too");

    expect(harness.models[0]?.requests).toHaveLength(2);
    const report = finalComment(harness);
    expect(report).not.toContain("💰");
    expect(report).toContain("of $1.00 budget");
  });
});
