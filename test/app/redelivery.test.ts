import { afterEach, describe, expect, it } from "vitest";
import { type Harness, issueComment, startHarness, stopHarness } from "../helpers/app-harness.js";
import { fixAddSteps } from "../helpers/demo-repo.js";

/**
 * A mention made while the App was down (a deploy): GitHub's delivery
 * failed and GitHub never sends it again by itself. The App, once up, reads
 * its deliveries, asks for that one again, and the job runs.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await stopHarness(harness);
  harness = undefined;
});

describe("a webhook GitHub could not deliver", () => {
  it("is asked for again once the App is up, and its mention answered with a pull request", async () => {
    let redelivered: (id: number) => void = () => {};
    const asked = new Promise<number>((resolve) => {
      redelivered = resolve;
    });
    const now = Date.now();
    harness = await startHarness({
      steps: fixAddSteps(),
      redelivery: { firstAfterMs: 0, everyMs: 60_000 },
      github: {
        deliveries: [
          // Newest first: this morning's mention hit the App mid-deploy (no answer).
          {
            id: 7001,
            guid: "lost-in-deploy",
            delivered_at: new Date(now - 60_000).toISOString(),
            status_code: 0,
            event: "issue_comment",
          },
          {
            id: 7000,
            guid: "answered",
            delivered_at: new Date(now - 120_000).toISOString(),
            status_code: 202,
            event: "issue_comment",
          },
        ],
        onRedeliver: (id) => redelivered(id),
      },
    });
    const running = harness;
    expect(await asked).toBe(7001);
    // What GitHub then sends: the same payload, under the same delivery GUID.
    await running.probot.receive({
      id: "lost-in-deploy",
      name: "issue_comment",
      payload: issueComment(running, "@agent please fix this"),
    } as never);
    await running.idle();

    const [pull] = running.github.pulls;
    expect(pull?.head.ref).toBe("agent/issue-7-add-returns-the-wrong-sum");
    expect(running.repo.show(pull?.head.ref ?? "", "src/add.js")).toContain("a + b");
    const redeliveries = running.github.calls.filter((c) => /\/attempts$/.test(c.path));
    expect(redeliveries.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST /app/hook/deliveries/7001/attempts",
    ]);
  });
});
