import { describe, expect, it, vi } from "vitest";
import type { JobQueue } from "../../src/queue/types.js";
import { killWorkerMidJob } from "./kill-worker.js";
import { job, manualHandler, retryingHandler } from "./queue-fixtures.js";
import { idOf, useRedisQueues } from "./redis-fixtures.js";

/**
 * Attempts on a real redis-server, counted as runs started: BullMQ counts
 * failures and stalls (a worker killed with SIGKILL) apart, and a job whose
 * crashes and failures add up must still be reported once it is out of
 * attempts, at once, again if its reporter dies, and must wait before a
 * retry as long as its tracking comment says.
 */

const redis = useRedisQueues();
const open = redis.open.bind(redis);
let names = 0;

/** Until the job is marked failed, after its report: two attempts, and what failed last. */
async function failedAfterTwo(queue: JobQueue, id: string, message: string): Promise<void> {
  await vi.waitFor(async () =>
    expect(await queue.get(id)).toMatchObject({
      state: "failed",
      attempts: 2,
      outcome: { conclusion: "failure", message },
    }),
  );
}

const RETRYING = { conclusion: "retrying", message: "GitHub answered 502" };

describe("attempts on the Redis queue", () => {
  it("reports, without running it, a job whose failures and crashes used up its attempts", async () => {
    const name = `t${++names}`;
    const queue = await open(name, { maxAttempts: 2, retryBaseMs: 1_500 });
    const failing = queue.startWorker(retryingHandler().handler, { concurrency: 1 });
    const id = idOf(await queue.submit(job("o/r#4")));
    // Attempt 1 fails (a retry BullMQ counts); this worker leaves before the retry is due.
    await vi.waitFor(async () => expect((await queue.get(id))?.outcome).toEqual(RETRYING));
    await failing.stop(0);
    // Attempt 2, the last, is killed: a stall, which BullMQ counts apart from failures.
    await killWorkerMidJob(redis.url, name, 2);
    const survivor = manualHandler();
    queue.startWorker(survivor.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(survivor.gaveUp).toHaveLength(1), { timeout: 15_000 });
    expect(survivor.reasons).toEqual(["it was tried 2 times"]);
    // What failed last (attempt 1; attempt 2 was killed), for the report to quote.
    expect(survivor.gaveUp[0]).toMatchObject({
      id,
      state: "failed",
      attempts: 2,
      outcome: RETRYING,
    });
    expect(survivor.started).toHaveLength(0);
    await failedAfterTwo(queue, id, "GitHub answered 502");
  }, 30_000);

  it("reports at once a job whose crash took its first attempt and whose last asks for a retry", async () => {
    const name = `t${++names}`;
    // A retry would come in ten minutes: a report that waited for it would not come in this test.
    const queue = await open(name, { maxAttempts: 2, retryBaseMs: 600_000 });
    const id = idOf(await queue.submit(job("o/r#5")));
    await killWorkerMidJob(redis.url, name, 2);
    const survivor = retryingHandler();
    queue.startWorker(survivor.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(survivor.gaveUp).toHaveLength(1), { timeout: 15_000 });
    expect(survivor.runs.map((r) => r.attempts)).toEqual([2]);
    expect(survivor.reasons).toEqual(["it was tried 2 times"]);
    expect(survivor.gaveUp[0]?.outcome).toEqual(RETRYING);
    await failedAfterTwo(queue, id, "GitHub answered 502");
  }, 30_000);

  it("waits before a retry as long as the job's attempts say, also when a crash took one", async () => {
    const name = `t${++names}`;
    const queue = await open(name, { maxAttempts: 3, retryBaseMs: 60_000 });
    const id = idOf(await queue.submit(job("o/r#7")));
    await killWorkerMidJob(redis.url, name, 3);
    const survivor = retryingHandler();
    queue.startWorker(survivor.handler, { concurrency: 1 });
    await vi.waitFor(
      async () =>
        expect(await queue.get(id)).toMatchObject({
          state: "queued",
          attempts: 2,
          outcome: RETRYING,
        }),
      { timeout: 15_000 },
    );
    expect(survivor.runs.map((r) => r.attempts)).toEqual([2]);
    // Attempt 2's retry: retryDelayMs(2), what the tracking comment announces; BullMQ's
    // backoff, counting failures only, would have waited retryDelayMs(1).
    // BullMQ takes its own clock's now from the time asked for: a millisecond may go.
    const delay = Number(await redis.raw.hget(`bull:${name}:${id}`, "delay"));
    expect(delay).toBeGreaterThan(119_000);
    expect(delay).toBeLessThanOrEqual(120_000);
  }, 30_000);

  it("reports a job again when its worker is killed while reporting it out of attempts", async () => {
    const name = `t${++names}`;
    const queue = await open(name, { maxAttempts: 2 });
    const id = idOf(await queue.submit(job("o/r#6")));
    // Both attempts ask for a retry; the report after the last never ends: SIGKILL.
    await killWorkerMidJob(redis.url, name, 2, "report");
    const survivor = manualHandler();
    queue.startWorker(survivor.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(survivor.gaveUp).toHaveLength(1), { timeout: 15_000 });
    expect(survivor.started).toHaveLength(0);
    expect(survivor.reasons).toEqual(["it was tried 2 times"]);
    expect(survivor.gaveUp[0]?.outcome).toEqual(RETRYING);
    await failedAfterTwo(queue, id, "GitHub answered 502");
  }, 30_000);
});
