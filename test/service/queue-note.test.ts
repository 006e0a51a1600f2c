import { describe, expect, it } from "vitest";
import { queueNote, watchQueue } from "../../src/service/queue-note.js";

describe("the queue note on a running job's comment", () => {
  it("counts requests, and says nothing when none wait", () => {
    expect(queueNote(0)).toBeUndefined();
    expect(queueNote(1)).toContain("1 more request on this thread is queued");
    expect(queueNote(3)).toContain("3 more requests on this thread are queued");
  });

  it("shows each new count once, and stops polling when stopped", async () => {
    const timers: Array<() => void> = [];
    const setTimer = (fn: () => void) => {
      timers.push(fn);
      return { cancel: () => {} };
    };
    const counts = [0, 2, 2, 3, 0];
    const shown: number[] = [];
    const watcher = watchQueue(
      { waitingBehind: async () => counts.shift() ?? 0 },
      (n) => shown.push(n),
      setTimer,
    );
    for (let i = 0; i < 5; i++) {
      timers.shift()?.();
      await new Promise((done) => setImmediate(done));
    }
    expect(shown).toEqual([2, 3, 0]);
    watcher.stop();
    timers.shift()?.();
    await new Promise((done) => setImmediate(done));
    expect(timers).toHaveLength(0);
  });
});
