import { describe, expect, it, vi } from "vitest";
import type { JobRecord, JobResult } from "../../src/queue/types.js";
import { killWorkerMidJob } from "./kill-worker.js";
import { job, manualHandler } from "./queue-fixtures.js";
import { idOf, useRedisQueues } from "./redis-fixtures.js";

/**
 * Runs that end badly on a real redis-server: a job whose worker is killed
 * with SIGKILL until it is out of attempts is reported once, and a run that
 * lost its job to another worker cannot free the issue under the new run.
 */

const redis = useRedisQueues();
const open = redis.open.bind(redis);
let names = 0;

describe("the Redis queue when runs end badly", () => {
  it("reports a job whose worker is killed until it is out of attempts, once", async () => {
    const name = `t${++names}`;
    const queue = await open(name, { maxAttempts: 2 });
    const id = idOf(await queue.submit(job("o/r#1", { input: "fix it" })));
    // Killed on its first and on its second (last) attempt.
    await killWorkerMidJob(redis.url, name, 2);
    await killWorkerMidJob(redis.url, name, 2);
    const survivor = manualHandler();
    queue.startWorker(survivor.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(survivor.gaveUp).toHaveLength(1), { timeout: 15_000 });
    expect(survivor.gaveUp[0]).toMatchObject({
      id,
      key: "o/r#1",
      state: "failed",
      inputs: ["fix it"],
    });
    expect(survivor.reasons).toEqual(["it was tried 2 times"]);
    expect(survivor.started).toHaveLength(0);
    await vi.waitFor(async () =>
      expect(await queue.get(id)).toMatchObject({ state: "failed", attempts: 2 }),
    );
    // Another stalled check passes: nothing reports it again.
    await new Promise((done) => setTimeout(done, 1_500));
    expect(survivor.gaveUp).toHaveLength(1);
  }, 30_000);

  it("does not report a job whose handler reported its own failure", async () => {
    const name = `t${++names}`;
    const queue = await open(name);
    const gaveUp: string[] = [];
    let ran = 0;
    queue.startWorker(
      {
        run: async () => {
          ran += 1;
          return { status: "failed", message: "the config is invalid" };
        },
        giveUp: async (_record, reason) => {
          gaveUp.push(reason);
        },
      },
      { concurrency: 1 },
    );
    const submitted = await queue.submit(job("o/r#2"));
    const id = submitted.status === "queued" ? submitted.id : "";
    await vi.waitFor(async () => expect((await queue.get(id))?.state).toBe("failed"));
    expect(ran).toBe(1);
    expect(gaveUp).toEqual([]);
  });

  it("keeps the issue locked for the run that took a job over, when the run it replaced ends late", async () => {
    const name = `t${++names}`;
    const errors: unknown[] = [];
    const a = await open(name, { onError: (error) => errors.push(error) });
    const b = await open(name);
    // Worker a's runs ignore the abort (as a process stuck in a long call would) and end by hand.
    const runsOnA: Array<{ record: JobRecord; finish(result: JobResult): void }> = [];
    a.startWorker(
      {
        run: (running) => new Promise((finish) => runsOnA.push({ record: running.record, finish })),
        giveUp: async () => {},
      },
      { concurrency: 1 },
    );
    const first = await a.submit(job("o/r#3"));
    const firstId = first.status === "queued" ? first.id : "";
    await vi.waitFor(() => expect(runsOnA).toHaveLength(1));
    // As if a's process had stalled past the lock's duration: the stalled check hands the job to b.
    await redis.raw.del(`bull:${name}:${firstId}:lock`);
    const onB = manualHandler();
    b.startWorker(onB.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(onB.started).toHaveLength(1), { timeout: 10_000 });
    expect(onB.started[0]?.job.record.id).toBe(firstId);
    // a's run ends now; its worker can no longer complete the job (BullMQ reports that).
    runsOnA[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0));
    // Another request on the issue: a's free worker tries it and must find the issue locked.
    const second = await a.submit(job("o/r#3"));
    const secondId = second.status === "queued" ? second.id : "";
    await vi.waitFor(
      async () => {
        const data = await redis.raw.hget(`bull:${name}:${secondId}`, "data");
        expect(JSON.parse(data ?? "{}").interruptions).toBeGreaterThanOrEqual(1);
      },
      { timeout: 10_000 },
    );
    expect(runsOnA).toHaveLength(1);
    expect(onB.started).toHaveLength(1);
    // Once b's run ends, the issue is free and the second job runs.
    onB.started[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(
      () =>
        expect([
          ...runsOnA.map((r) => r.record.id),
          ...onB.started.map((s) => s.job.record.id),
        ]).toContain(secondId),
      { timeout: 10_000 },
    );
    // a's runs ignore the abort on close: end them here.
    for (const run of runsOnA) run.finish({ status: "done", conclusion: "success" });
  }, 30_000);
});
