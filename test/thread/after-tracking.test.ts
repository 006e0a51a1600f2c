import { describe, expect, it } from "vitest";
import { fanOut } from "../../src/kernel/events.js";
import { afterTracking } from "../../src/thread/after-tracking.js";

/**
 * The work starts before the tracking comment is there (run-job.ts); what
 * a job record keeps (the pushed branch, checkpoints) still reaches its
 * listeners only after the comment did, so the record never holds a
 * checkpoint without its comment and its writes never race.
 */
describe("afterTracking", () => {
  it("holds the pushed branch and checkpoints until the tracking comment is told, and nothing else", async () => {
    const told: string[] = [];
    let made: () => void = () => {};
    const tracking = new Promise<void>((done) => {
      made = done;
    }).then(() => {
      told.push("tracking");
    });
    const events = afterTracking(
      fanOut({
        step: (text) => told.push(`step ${text}`),
        agent: (event) => told.push(`agent ${event.type}`),
        checkpoint: async (sha) => {
          told.push(`checkpoint ${sha}`);
        },
        pushed: async (branch) => {
          told.push(`pushed ${branch}`);
        },
      }),
      tracking,
    );
    events.step("Preparing the workspace");
    events.agent({ type: "turn_start", turn: 1 });
    const checkpoint = events.checkpoint("abc123");
    const pushed = events.pushed("patchwright/fix");
    await new Promise((wait) => setTimeout(wait, 20));
    expect(told).toEqual(["step Preparing the workspace", "agent turn_start"]);
    made();
    await Promise.all([checkpoint, pushed]);
    expect(told).toEqual([
      "step Preparing the workspace",
      "agent turn_start",
      "tracking",
      "checkpoint abc123",
      "pushed patchwright/fix",
    ]);
  });

  it("fails what it held when the tracking comment failed", async () => {
    const tracking = Promise.reject(new Error("the job record could not be written"));
    tracking.catch(() => {});
    const kept: string[] = [];
    const events = afterTracking(fanOut({ checkpoint: (sha) => void kept.push(sha) }), tracking);
    await expect(events.checkpoint("abc123")).rejects.toThrow("could not be written");
    expect(kept).toEqual([]);
  });
});
