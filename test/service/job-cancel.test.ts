import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import { jobInputSchemas, type ServiceQueue } from "../../src/service/job-kinds/inputs.js";
import { createJobsView } from "../../src/service/jobs-view/index.js";
import type { ViewEvent } from "../../src/service/jobs-view/types.js";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";
import { createGatedModel } from "../helpers/gated-model.js";

/**
 * A real request job, cancelled from the jobs view while the agent works:
 * it stops at its next safe point like a shutdown (its work is on its
 * checkpoint), its comment says who cancelled it instead of "paused", it is
 * not queued again, and its transcript holds what the agent did, redacted.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe("cancelling a running request", () => {
  it("stops it, says who cancelled it, and keeps its transcript", async () => {
    let queue: ServiceQueue | undefined;
    // Turn 1 reads add(), turn 2 fixes it, turn 3 is held until the test lets go.
    const model = createGatedModel(fixAddSteps(), 3);
    harness = await startHarness({
      steps: [],
      scripts: [model],
      queue: async (env) => {
        queue = await createLocalQueue({
          kinds: jobInputSchemas,
          dir: join(env.PATCHWRIGHT_CACHE_DIR ?? "", "jobs"),
        });
        return queue;
      },
    });
    const h = harness;
    if (!queue) throw new Error("no queue");
    const view = createJobsView({ queue });
    await h.probot.receive({
      id: "d-1",
      name: "issue_comment",
      payload: issueComment(h, "@agent fix add"),
    } as never);
    await model.held;
    const [job] = await view.list();
    if (!job) throw new Error("no job");
    expect(job).toMatchObject({ state: "running", requester: "octocat" });
    expect(await view.cancel(job.id, "maintainer")).toBe("stopping");
    await until(async () => (await view.get(job.id))?.state === "failed", "the job to end");
    const ended = await view.get(job.id);
    expect(ended).toMatchObject({
      cancelledBy: "maintainer",
      outcome: { conclusion: "cancelled" },
    });
    expect(ended?.turns).toBeGreaterThanOrEqual(2);
    expect(ended?.links.comment).toBeTypeOf("string");
    const bodies = (h.github.comments.get(7) ?? []).map((c) => c.body);
    expect(bodies.at(-1)).toContain("Cancelled by @maintainer");
    expect(bodies.join("\n")).not.toContain("Paused");
    expect(h.github.pulls).toHaveLength(0);
    const { events } = await view.events(job.id);
    const types = new Set(events.map((e: ViewEvent) => e.type));
    for (const type of ["state", "step", "tool_call", "tool_result", "usage", "report"])
      expect(types).toContain(type);
    expect(events.at(-1)).toMatchObject({ type: "state", state: "failed", by: "maintainer" });
    expect(JSON.stringify(events)).not.toContain("sk-ant-test-0123456789abcdef");
  });
});
