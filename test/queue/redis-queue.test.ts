import { Redis } from "ioredis";
import { describe, expect, it, vi } from "vitest";
import { killWorkerMidJob } from "./kill-worker.js";
import { job, manualHandler } from "./queue-fixtures.js";
import { idOf, useRedisQueues } from "./redis-fixtures.js";

/**
 * The distributed queue against a real redis-server: duplicates across
 * restarts, one job per issue across workers, coalescing, a worker killed
 * with SIGKILL mid-job, and a graceful stop.
 */

const redis = useRedisQueues();
const open = redis.open.bind(redis);
let names = 0;

describe("the Redis (BullMQ) job queue", () => {
  it("refuses a delivery, or a comment, seen before, also from another process", async () => {
    const name = `q${++names}`;
    const original = job("o/r#1");
    expect((await (await open(name)).submit(original)).status).toBe("queued");
    const other = await open(name);
    expect(await other.submit({ ...original })).toEqual({ status: "duplicate" });
    expect(await other.submit({ ...original, deliveryId: "fresh" })).toEqual({
      status: "duplicate",
    });
  });

  it("still refuses, folds and logs after Redis forgot its scripts (a restart, SCRIPT FLUSH)", async () => {
    const name = `q${++names}`;
    const queue = await open(name);
    const first = await queue.submit(job("o/r#7", { coalesce: true, input: "one" }));
    // The scripts are called by their SHA; Redis no longer has them.
    expect(await redis.raw.script("FLUSH")).toBe("OK");
    const second = job("o/r#7", { coalesce: true, input: "two" });
    expect(await queue.submit(second)).toEqual({ status: "coalesced", id: idOf(first) });
    expect(await queue.submit({ ...second })).toEqual({ status: "duplicate" });
    await redis.raw.script("FLUSH");
    const other = await queue.submit(job("o/r#8"));
    const { entries } = await queue.log.read(idOf(other));
    expect(entries.map((e) => (e.entry as { state?: string }).state)).toEqual(["queued"]);
  });

  it("runs one job per issue at a time across two workers, and coalesces the requests waiting", async () => {
    const name = `q${++names}`;
    const [a, b] = [await open(name), await open(name)];
    // One handler for both workers, so its list is in the order the runs started.
    const { handler, started } = manualHandler();
    a.startWorker(handler, { concurrency: 2 });
    b.startWorker(handler, { concurrency: 2 });
    await a.submit(job("o/r#2", { coalesce: true, input: "one" }));
    await vi.waitFor(() => expect(started).toHaveLength(1));
    const queued = await a.submit(job("o/r#2", { coalesce: true, input: "two" }));
    const merged = await b.submit(job("o/r#2", { coalesce: true, input: "three" }));
    expect(queued.status).toBe("queued");
    expect(merged).toEqual({
      status: "coalesced",
      id: queued.status === "queued" ? queued.id : "",
    });
    // The follow-up waits for the key, whichever worker picks it.
    await new Promise((done) => setTimeout(done, 1_500));
    expect(started).toHaveLength(1);
    started[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(() => expect(started).toHaveLength(2), { timeout: 10_000 });
    expect(started[1]?.job.record.inputs).toEqual(["two", "three"]);
  });

  it("takes a job up again on another worker when the one running it is killed", async () => {
    const name = `q${++names}`;
    const queue = await open(name);
    const submitted = await queue.submit(job("o/r#3"));
    const id = submitted.status === "queued" ? submitted.id : "";
    // A worker in its own process that picks the job and is then killed with SIGKILL.
    await killWorkerMidJob(redis.url, name, 3);
    const survivor = manualHandler();
    queue.startWorker(survivor.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(survivor.started).toHaveLength(1), { timeout: 15_000 });
    expect(survivor.started[0]?.job.record.id).toBe(id);
    expect(survivor.started[0]?.job.record.attempts).toBe(2);
    survivor.started[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(async () => expect((await queue.get(id))?.state).toBe("done"));
  }, 30_000);

  it("on stop, hands a running job back without counting it, and it runs again later", async () => {
    const name = `q${++names}`;
    const queue = await open(name);
    const before = manualHandler();
    const worker = queue.startWorker(before.handler, { concurrency: 1 });
    const submitted = await queue.submit(job("o/r#4"));
    await vi.waitFor(() => expect(before.started).toHaveLength(1));
    await worker.stop(100);
    const after = manualHandler();
    queue.startWorker(after.handler, { concurrency: 1 });
    await vi.waitFor(() => expect(after.started).toHaveLength(1), { timeout: 10_000 });
    expect(after.started[0]?.job.record.id).toBe(submitted.status === "queued" ? submitted.id : "");
    expect(after.started[0]?.job.record.attempts).toBe(1);
  }, 20_000);

  it("stops a run whose worker lost its hold on the job, before another worker takes it up", async () => {
    const name = `q${++names}`;
    const queue = await open(name);
    const handler = manualHandler();
    queue.startWorker(handler.handler, { concurrency: 1 });
    const submitted = await queue.submit(job("o/r#6"));
    await vi.waitFor(() => expect(handler.started).toHaveLength(1));
    const running = handler.started[0]?.job;
    expect(running?.signal.aborted).toBe(false);
    // As if this process had stalled past the lock's duration: BullMQ's hold is gone.
    const raw = new Redis(redis.url);
    await raw.del(`bull:${name}:${submitted.status === "queued" ? submitted.id : ""}:lock`);
    raw.disconnect();
    await vi.waitFor(() => expect(running?.signal.aborted).toBe(true), { timeout: 10_000 });
    expect(String(running?.signal.reason)).toContain("lost its hold");
  }, 20_000);

  it("gives up on a job that keeps failing, and reports it", async () => {
    const name = `q${++names}`;
    const queue = await open(name, { maxAttempts: 2 });
    const gaveUp: string[] = [];
    queue.startWorker(
      {
        run: async () => ({ status: "retry", message: "GitHub answered 502" }),
        giveUp: async (record, reason) => {
          gaveUp.push(`${record.key}: ${reason}; last: ${record.outcome?.message}`);
        },
      },
      { concurrency: 1 },
    );
    await queue.submit(job("o/r#5"));
    await vi.waitFor(
      () => expect(gaveUp).toEqual(["o/r#5: it was tried 2 times; last: GitHub answered 502"]),
      {
        timeout: 20_000,
      },
    );
  }, 30_000);

  it("gives a second installation's job a turn before the first installation's backlog", async () => {
    const name = `q${++names}`;
    const queue = await open(name);
    for (let i = 0; i < 5; i++) await queue.submit(job(`busy/r#${i}`, { installationId: 1 }));
    await queue.submit(job("quiet/r#1", { installationId: 2 }));
    const ran: string[] = [];
    queue.startWorker(
      {
        run: async (running) => {
          ran.push(running.record.key);
          return { status: "done", conclusion: "success" };
        },
        giveUp: async () => {},
      },
      { concurrency: 1 },
    );
    await vi.waitFor(() => expect(ran).toHaveLength(6), { timeout: 10_000 });
    // FIFO would run it last; its installation had nothing queued, so it goes with the first.
    expect(ran.indexOf("quiet/r#1")).toBeLessThanOrEqual(1);
  });
});
