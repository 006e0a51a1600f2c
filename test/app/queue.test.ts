import { describe, expect, it, vi } from "vitest";
import { createInProcessQueue, type QueueJob } from "../../src/app/queue.js";

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets queued continuations (promise callbacks) run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A job that records when it starts and finishes only when told to. */
function controlledJob(key: string, deliveryId: string, log: string[]) {
  const gate = deferred();
  const job: QueueJob = {
    key,
    deliveryId,
    run: async () => {
      log.push(`start ${deliveryId}`);
      await gate.promise;
      log.push(`end ${deliveryId}`);
    },
  };
  return { job, finish: gate.resolve, fail: gate.reject };
}

describe("createInProcessQueue", () => {
  it("never runs more jobs at once than the concurrency limit", async () => {
    const log: string[] = [];
    const queue = createInProcessQueue({ concurrency: 2 });
    const jobs = ["a", "b", "c", "d"].map((key, i) => controlledJob(key, `d${i}`, log));

    const results = [];
    for (const { job } of jobs) results.push(await queue.enqueue(job));
    expect(results).toEqual([
      { status: "started", waitingAhead: 0 },
      { status: "started", waitingAhead: 0 },
      { status: "queued", waitingAhead: 0 },
      { status: "queued", waitingAhead: 1 },
    ]);
    expect(log).toEqual(["start d0", "start d1"]);
    expect(queue.pending).toBe(2);
    expect(queue.size).toBe(2);

    jobs[1]?.finish();
    await flush();
    expect(log).toEqual(["start d0", "start d1", "end d1", "start d2"]);
    expect(queue.pending).toBe(2);

    for (const { finish } of jobs) finish();
    await queue.onIdle();
    expect(log.filter((line) => line.startsWith("end"))).toHaveLength(4);
    expect(queue.pending).toBe(0);
    expect(queue.size).toBe(0);
  });

  it("runs one job at a time per key, in order, and reports how many are ahead", async () => {
    const log: string[] = [];
    const queue = createInProcessQueue({ concurrency: 4 });
    const first = controlledJob("o/r#1", "d1", log);
    const second = controlledJob("o/r#1", "d2", log);
    const third = controlledJob("o/r#1", "d3", log);

    expect(await queue.enqueue(first.job)).toEqual({ status: "started", waitingAhead: 0 });
    expect(await queue.enqueue(second.job)).toEqual({ status: "queued", waitingAhead: 1 });
    expect(await queue.enqueue(third.job)).toEqual({ status: "queued", waitingAhead: 2 });
    await flush();
    expect(log).toEqual(["start d1"]);
    expect(queue.size).toBe(2);

    // Finishing a later job's gate early must not let it overtake the running one.
    third.finish();
    second.finish();
    await flush();
    expect(log).toEqual(["start d1"]);

    first.finish();
    await queue.onIdle();
    expect(log).toEqual(["start d1", "end d1", "start d2", "end d2", "start d3", "end d3"]);
  });

  it("runs different keys in parallel", async () => {
    const log: string[] = [];
    const queue = createInProcessQueue({ concurrency: 2 });
    const a = controlledJob("o/r#1", "d1", log);
    const b = controlledJob("o/r#2", "d2", log);
    await queue.enqueue(a.job);
    expect(await queue.enqueue(b.job)).toEqual({ status: "started", waitingAhead: 0 });
    expect(log).toEqual(["start d1", "start d2"]);
    b.finish();
    a.finish();
    await queue.onIdle();
    expect(log).toEqual(["start d1", "start d2", "end d2", "end d1"]);
  });

  it("lets a job that waited for its key go before later requests for other keys", async () => {
    const log: string[] = [];
    const queue = createInProcessQueue({ concurrency: 1 });
    const first = controlledJob("k1", "d1", log);
    const sameKey = controlledJob("k1", "d2", log);
    const otherKey = controlledJob("k2", "d3", log);
    await queue.enqueue(first.job);
    await queue.enqueue(sameKey.job);
    await queue.enqueue(otherKey.job);
    sameKey.finish();
    otherKey.finish();
    first.finish();
    await queue.onIdle();
    expect(log.filter((line) => line.startsWith("start"))).toEqual([
      "start d1",
      "start d2",
      "start d3",
    ]);
  });

  it("ignores a repeated delivery, even after the first run finished", async () => {
    const run = vi.fn(async () => {});
    const queue = createInProcessQueue();
    expect(await queue.enqueue({ key: "k", deliveryId: "same", run })).toMatchObject({
      status: "started",
    });
    expect(await queue.enqueue({ key: "k", deliveryId: "same", run })).toEqual({
      status: "duplicate",
      waitingAhead: 0,
    });
    await queue.onIdle();
    expect(await queue.enqueue({ key: "other", deliveryId: "same", run })).toMatchObject({
      status: "duplicate",
    });
    await queue.onIdle();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("remembers only the last dedupeWindow delivery ids", async () => {
    const run = vi.fn(async () => {});
    const queue = createInProcessQueue({ dedupeWindow: 2 });
    for (const id of ["d1", "d2", "d3"]) await queue.enqueue({ key: id, deliveryId: id, run });
    await queue.onIdle();
    expect((await queue.enqueue({ key: "x", deliveryId: "d3", run })).status).toBe("duplicate");
    expect((await queue.enqueue({ key: "x", deliveryId: "d2", run })).status).toBe("duplicate");
    // d1 was forgotten when d3 arrived, so it runs again.
    expect((await queue.enqueue({ key: "x", deliveryId: "d1", run })).status).not.toBe("duplicate");
    await queue.onIdle();
    expect(run).toHaveBeenCalledTimes(4);
  });

  it("reports a failing job to onError and keeps running the next ones", async () => {
    const log: string[] = [];
    const onError = vi.fn();
    const queue = createInProcessQueue({ concurrency: 1, onError });
    const failing = controlledJob("k", "d1", log);
    const next = controlledJob("k", "d2", log);
    const throwsSync: QueueJob = {
      key: "k2",
      deliveryId: "d3",
      run: () => {
        throw new Error("sync boom");
      },
    };
    const after = controlledJob("k2", "d4", log);

    await queue.enqueue(failing.job);
    await queue.enqueue(next.job);
    await queue.enqueue(throwsSync);
    await queue.enqueue(after.job);
    const error = new Error("model unavailable");
    failing.fail(error);
    next.finish();
    after.finish();
    await queue.onIdle();

    expect(onError).toHaveBeenCalledTimes(2);
    expect(onError).toHaveBeenNthCalledWith(1, error, failing.job);
    expect(onError.mock.calls[1]?.[0]).toMatchObject({ message: "sync boom" });
    expect(onError.mock.calls[1]?.[1]).toBe(throwsSync);
    expect(log).toEqual(["start d1", "start d2", "end d2", "start d4", "end d4"]);
  });

  it("survives an onError callback that throws", async () => {
    const run = vi.fn(async () => {});
    const queue = createInProcessQueue({
      onError: () => {
        throw new Error("reporter down");
      },
    });
    await queue.enqueue({ key: "k", deliveryId: "d1", run: () => Promise.reject(new Error("x")) });
    await queue.enqueue({ key: "k", deliveryId: "d2", run });
    await queue.onIdle();
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("resolves onIdle at once when empty and rejects a bad concurrency", async () => {
    await expect(createInProcessQueue().onIdle()).resolves.toBeUndefined();
    expect(() => createInProcessQueue({ concurrency: 0 })).toThrow(RangeError);
  });
});
