import { describe, expect, it, vi } from "vitest";
import type { JobHandler, JobQueue } from "../../src/queue/types.js";
import { job, manualHandler } from "./queue-fixtures.js";
import { idOf, useRedisQueues } from "./redis-fixtures.js";

/**
 * Requests folded into a waiting job on a real redis-server: a folded
 * request delivered again is refused, also concurrently and from another
 * process, and a request that lands while the job on its issue starts is
 * never left behind.
 */

const redis = useRedisQueues();
const open = redis.open.bind(redis);
let names = 0;

describe("folding requests into a waiting job on Redis", () => {
  it("refuses a folded request delivered again, or asked again under a new delivery id, before and after its job starts", async () => {
    const name = `c${++names}`;
    const [a, b] = [await open(name), await open(name)];
    const { handler, started } = manualHandler();
    a.startWorker(handler, { concurrency: 2 });
    await a.submit(job("o/r#1", { coalesce: true, input: "one" }));
    await vi.waitFor(() => expect(started).toHaveLength(1));
    const queued = await a.submit(job("o/r#1", { coalesce: true, input: "two" }));
    const third = job("o/r#1", { coalesce: true, input: "three" });
    expect(await a.submit(third)).toEqual({ status: "coalesced", id: idOf(queued) });
    // Redelivered, to this process or another; the same comment under a new delivery id.
    expect(await a.submit({ ...third })).toEqual({ status: "duplicate" });
    expect(await b.submit({ ...third })).toEqual({ status: "duplicate" });
    expect(await b.submit({ ...third, deliveryId: "redelivered-3" })).toEqual({
      status: "duplicate",
    });
    started[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(() => expect(started).toHaveLength(2), { timeout: 10_000 });
    expect(started[1]?.job.record.inputs).toEqual(["two", "three"]);
    // Once the follow-up has taken it, it is still that job's request.
    expect(await b.submit({ ...third })).toEqual({ status: "duplicate" });
    expect(await b.submit({ ...third, deliveryId: "redelivered-3b" })).toEqual({
      status: "duplicate",
    });
    started[1]?.finish({ status: "done", conclusion: "success" });
    await a.onIdle();
    expect(started).toHaveLength(2);
  });

  it("accepts a folded request once when two processes get it at the same moment", async () => {
    const name = `c${++names}`;
    const [a, b] = [await open(name), await open(name)];
    let twice = 0;
    for (let i = 0; i < 20; i++) {
      const request = job(`o/r#${i}`, { coalesce: true });
      const results = await Promise.all([a.submit(request), b.submit({ ...request })]);
      if (results.filter((r) => r.status !== "duplicate").length !== 1) twice += 1;
    }
    expect(twice).toBe(0);
  });

  it("folds requests that arrive together into one job", async () => {
    const name = `c${++names}`;
    const [a, b] = [await open(name), await open(name)];
    const results = await Promise.all(
      ["one", "two", "three", "four", "five", "six"].map((input, i) =>
        (i % 2 ? b : a).submit(job("o/r#together", { coalesce: true, input })),
      ),
    );
    expect(results.filter((r) => r.status === "queued")).toHaveLength(1);
    expect(new Set(results.map(idOf)).size).toBe(1);
    const { handler, started } = manualHandler();
    a.startWorker(handler, { concurrency: 1 });
    await vi.waitFor(() => expect(started).toHaveLength(1));
    expect([...(started[0]?.job.record.inputs ?? [])].sort()).toEqual([
      "five",
      "four",
      "one",
      "six",
      "three",
      "two",
    ]);
  });

  it("runs every folded request when requests land while the job on their issue starts", async () => {
    const name = `c${++names}`;
    const [a, b] = [await open(name), await open(name)];
    const ran: unknown[] = [];
    const handler: JobHandler = {
      run: async (running) => {
        ran.push(...running.record.inputs);
        return { status: "done", conclusion: "success" };
      },
      giveUp: async () => {},
    };
    a.startWorker(handler, { concurrency: 4 });
    b.startWorker(handler, { concurrency: 4 });
    // Per issue, a request, then three at once right behind it: they land as
    // the first one's job starts and takes what waits for it. A few issues at
    // a time, so each job starts as soon as it is stored. (With separate
    // steps for the take and for the fold, about 1 request in 20 never ran.)
    const ISSUES = 96;
    const accepted: unknown[] = [];
    const submit = async (queue: JobQueue, key: string, input: string) => {
      const result = await queue.submit(job(key, { coalesce: true, input }));
      if (result.status !== "duplicate") accepted.push(input);
    };
    for (let batch = 0; batch < ISSUES; batch += 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, n) => {
          const key = `o/r#race-${batch + n}`;
          await submit(a, key, `${batch + n}-first`);
          await Promise.all([1, 2, 3].map((m) => submit(m % 2 ? b : a, key, `${batch + n}-${m}`)));
        }),
      );
    }
    expect(accepted).toHaveLength(ISSUES * 4);
    await vi.waitFor(() => expect(ran).toHaveLength(ISSUES * 4), { timeout: 15_000 });
    expect([...ran].sort()).toEqual([...accepted].sort());
  }, 30_000);
});
