import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { makeTempDir } from "../helpers/temp-dir.js";
import { fakeTime, job, manualHandler, TEST_KINDS, useLocalQueues } from "./queue-fixtures.js";

// Each queue closed after its test: the ones a test abandons (a crash) too.
const createLocalQueue = useLocalQueues();

/** Until the handler has been asked to run `count` jobs (records are written to disk first). */
const startedCount = (started: unknown[], count: number) =>
  vi.waitFor(() => expect(started).toHaveLength(count));

describe("the embedded job queue", () => {
  it("stores a job durably before submit resolves, and a new process finds it", async () => {
    const dir = await makeTempDir();
    const first = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const result = await first.submit(job("o/r#1"));
    expect(result.status).toBe("queued");
    const id = result.status === "queued" ? result.id : "";
    // No close(), no stop(): as after kill -9.
    const second = await createLocalQueue({ kinds: TEST_KINDS, dir });
    expect(await second.get(id)).toMatchObject({ state: "queued", key: "o/r#1", attempts: 0 });
  });

  it("refuses a delivery seen before, and the same comment under a fresh delivery id, across restarts", async () => {
    const dir = await makeTempDir();
    const original = job("o/r#1");
    await (await createLocalQueue({ kinds: TEST_KINDS, dir })).submit(original);
    const restarted = await createLocalQueue({ kinds: TEST_KINDS, dir });
    expect(await restarted.submit({ ...original })).toEqual({ status: "duplicate" });
    expect(await restarted.submit({ ...original, deliveryId: "fresh-id" })).toEqual({
      status: "duplicate",
    });
    expect((await restarted.submit(job("o/r#1"))).status).toBe("queued");
  });

  it("replays the journal over record files a crash left missing, old or cut", async () => {
    const dir = await makeTempDir();
    const first = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const ids: string[] = [];
    const submitted = ["o/r#2", "o/r#3", "o/r#4"].map((key) => job(key));
    for (const one of submitted) {
      const result = await first.submit(one);
      ids.push(result.status === "queued" ? result.id : "");
    }
    // The record files are written after the answer, without a sync of their own.
    await vi.waitFor(() => expect(readdirSync(join(dir, "records"))).toHaveLength(3));
    const [cut, missing] = ids;
    writeFileSync(join(dir, "records", `${cut}.json`), '{"id": "cut by the cra');
    rmSync(join(dir, "records", `${missing}.json`));
    // A line the crash cut in the middle is skipped; the lines before it are kept.
    const [journal] = readdirSync(dir).filter((name) => name.startsWith("journal-"));
    writeFileSync(join(dir, journal ?? "missing"), '{"id":"half', { flag: "a" });
    // No close(), no stop(): as after kill -9.
    const second = await createLocalQueue({ kinds: TEST_KINDS, dir });
    for (const id of ids) expect(await second.get(id)).toMatchObject({ id, state: "queued" });
    // What each replayed record claimed is still claimed.
    for (const again of submitted)
      expect(await second.submit({ ...again })).toEqual({ status: "duplicate" });
    expect(await second.submit(job("o/r#2"))).toMatchObject({ status: "queued" });
    // The replayed records are files again, synced, and the journals are gone.
    await second.close();
    expect(readdirSync(join(dir, "records")).filter((n) => n.endsWith(".json"))).toHaveLength(4);
    expect(readdirSync(dir).filter((name) => name.startsWith("journal-"))).toEqual([]);
  });

  it("syncs a burst of submits with a few journal writes, not one sync each", async () => {
    const dir = await makeTempDir();
    const queue = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const probe = await open(join(dir, "probe"), "w");
    const FileHandle = Object.getPrototypeOf(probe);
    await probe.close();
    const datasync = vi.spyOn(FileHandle, "datasync");
    const sync = vi.spyOn(FileHandle, "sync");
    const jobs = Array.from({ length: 50 }, (_, i) => job(`o/r#${200 + i}`));
    const results = await Promise.all(jobs.map((j) => queue.submit(j)));
    expect(results.every((r) => r.status === "queued")).toBe(true);
    expect(datasync.mock.calls.length).toBeGreaterThan(0);
    expect(datasync.mock.calls.length).toBeLessThanOrEqual(5);
    expect(sync).not.toHaveBeenCalled();
    datasync.mockRestore();
    sync.mockRestore();
    await queue.close();
  });

  it("runs one job per key at a time, up to the concurrency, the least busy installation first", async () => {
    const dir = await makeTempDir();
    const queue = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const { handler, started } = manualHandler();
    await queue.submit(job("o/r#1", { installationId: 1 }));
    await queue.submit(job("o/r#1", { installationId: 1 }));
    await queue.submit(job("o/r#2", { installationId: 1 }));
    await queue.submit(job("x/y#9", { installationId: 2 }));
    queue.startWorker(handler, { concurrency: 2 });
    await startedCount(started, 2);
    // Installation 1's oldest job and installation 2's: not two of installation 1's.
    expect(started.map((s) => s.job.record.key).sort()).toEqual(["o/r#1", "x/y#9"]);
    started
      .find((s) => s.job.record.key === "o/r#1")
      ?.finish({
        status: "done",
        conclusion: "success",
      });
    await startedCount(started, 3);
    // The second request on o/r#1 waited for the first, not for o/r#2.
    expect(started[2]?.job.record.key).toBe("o/r#1");
    const first = started.find((s) => s.job.record.key === "o/r#1");
    expect(await queue.get(first?.job.record.id ?? "")).toMatchObject({
      state: "done",
      outcome: { conclusion: "success" },
    });
  });

  it("runs a job the last process was running when it died, then gives up once it is out of attempts", async () => {
    const dir = await makeTempDir();
    const submitted = await (await createLocalQueue({ kinds: TEST_KINDS, dir })).submit(
      job("o/r#3"),
    );
    const id = submitted.status === "queued" ? submitted.id : "";
    for (let life = 1; life <= 3; life++) {
      const queue = await createLocalQueue({ kinds: TEST_KINDS, dir, maxAttempts: 3 });
      const { handler, started } = manualHandler();
      queue.startWorker(handler, { concurrency: 1 });
      await startedCount(started, 1);
      expect(started[0]?.job.record.attempts).toBe(life);
      // Killed here, mid-job.
    }
    const last = await createLocalQueue({ kinds: TEST_KINDS, dir, maxAttempts: 3 });
    const { handler, started, gaveUp } = manualHandler();
    last.startWorker(handler, { concurrency: 1 });
    await last.onIdle();
    expect(started).toHaveLength(0);
    expect(gaveUp.map((r) => r.id)).toEqual([id]);
    expect(await last.get(id)).toMatchObject({ state: "failed" });
  });

  it("retries a transient failure after a backoff, counting the attempt", async () => {
    const dir = await makeTempDir();
    const time = fakeTime();
    const queue = await createLocalQueue({
      kinds: TEST_KINDS,
      dir,
      clock: time.clock,
      setTimer: time.setTimer,
    });
    const { handler, started } = manualHandler();
    queue.startWorker(handler, { concurrency: 1 });
    await queue.submit(job("o/r#4"));
    await startedCount(started, 1);
    started[0]?.finish({ status: "retry", message: "GitHub answered 502" });
    // Idle: nothing runs, and the retry is not due yet.
    await queue.onIdle();
    time.advance(4_999);
    await queue.onIdle();
    expect(started).toHaveLength(1);
    time.advance(1);
    await startedCount(started, 2);
    expect(started[1]?.job.record.attempts).toBe(2);
  });

  it("on stop, lets running jobs finish within the grace period, then hands the rest back uncounted", async () => {
    const dir = await makeTempDir();
    const time = fakeTime();
    const queue = await createLocalQueue({
      kinds: TEST_KINDS,
      dir,
      clock: time.clock,
      setTimer: time.setTimer,
    });
    const { handler, started } = manualHandler();
    const worker = queue.startWorker(handler, { concurrency: 2 });
    await queue.submit(job("o/r#5"));
    await queue.submit(job("o/r#6"));
    await startedCount(started, 2);
    const stopped = worker.stop(60_000);
    started[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(async () =>
      expect(await queue.get(started[0]?.job.record.id ?? "")).toMatchObject({ state: "done" }),
    );
    time.advance(60_000);
    await stopped;
    const [finished, cut] = started.map((s) => s.job.record.id);
    expect(await queue.get(finished ?? "")).toMatchObject({ state: "done" });
    expect(await queue.get(cut ?? "")).toMatchObject({ state: "queued", attempts: 0 });
    // Nothing new starts after stop.
    await queue.submit(job("o/r#7"));
    await new Promise((done) => setTimeout(done, 50));
    expect(started).toHaveLength(2);
  });

  it("coalesces rapid requests on one issue into the job waiting behind the running one", async () => {
    const dir = await makeTempDir();
    const queue = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const { handler, started } = manualHandler();
    queue.startWorker(handler, { concurrency: 2 });
    await queue.submit(job("o/r#8", { coalesce: true }));
    await startedCount(started, 1);
    const second = await queue.submit(job("o/r#8", { coalesce: true, input: "second" }));
    const third = await queue.submit(job("o/r#8", { coalesce: true, input: "third" }));
    expect(second.status).toBe("queued");
    expect(third).toEqual({ status: "coalesced", id: second.status === "queued" ? second.id : "" });
    // Two requests wait, folded into one job.
    expect(await started[0]?.job.waitingBehind()).toBe(2);
    started[0]?.finish({ status: "done", conclusion: "success" });
    await startedCount(started, 2);
    expect(started[1]?.job.record.inputs).toEqual(["second", "third"]);
    await queue.close();
    expect(readdirSync(join(dir, "records"))).toHaveLength(2);
  });

  it("still refuses every delivery a job stands for when a crash took the unsynced markers", async () => {
    const dir = await makeTempDir();
    const queue = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const first = job("o/r#9", { coalesce: true });
    const folded = job("o/r#9", { coalesce: true, input: "more" });
    await queue.submit(first);
    expect((await queue.submit(folded)).status).toBe("coalesced");
    await queue.close();
    // Markers are written without a sync: the crash lost them all.
    rmSync(join(dir, "seen"), { recursive: true, force: true });
    const restarted = await createLocalQueue({ kinds: TEST_KINDS, dir });
    for (const again of [first, folded, { ...folded, deliveryId: "redelivered" }])
      expect(await restarted.submit({ ...again })).toEqual({ status: "duplicate" });
  });

  it("stores a burst of submits for different issues side by side, each one once", async () => {
    const dir = await makeTempDir();
    const queue = await createLocalQueue({ kinds: TEST_KINDS, dir });
    const jobs = Array.from({ length: 40 }, (_, i) => job(`o/r#${100 + (i % 20)}`));
    const results = await Promise.all([...jobs, ...jobs].map((j) => queue.submit({ ...j })));
    expect(results.filter((r) => r.status === "queued")).toHaveLength(40);
    expect(results.filter((r) => r.status === "duplicate")).toHaveLength(40);
    await queue.close();
    expect(readdirSync(join(dir, "records"))).toHaveLength(40);
  });
});

describe("the embedded queue giving up on a job", () => {
  it("reports the last attempt's failure at once, asking for no retry timer", async () => {
    const dir = await makeTempDir();
    const time = fakeTime();
    const queue = await createLocalQueue({
      kinds: TEST_KINDS,
      dir,
      maxAttempts: 1,
      clock: time.clock,
      setTimer: time.setTimer,
    });
    const { handler, started, gaveUp } = manualHandler();
    queue.startWorker(handler, { concurrency: 1 });
    await queue.submit(job("o/r#20"));
    await startedCount(started, 1);
    started[0]?.finish({ status: "retry", message: "GitHub answered 502" });
    await vi.waitFor(() => expect(gaveUp).toHaveLength(1));
    // The report quotes what failed last; no wait of retryDelayMs was ever asked for.
    expect(gaveUp[0]?.outcome).toEqual({ conclusion: "retrying", message: "GitHub answered 502" });
    expect(time.delays).toEqual([]);
  });

  it("after a crash while reporting the last attempt, reports the same failure after the restart", async () => {
    const dir = await makeTempDir();
    const first = await createLocalQueue({ kinds: TEST_KINDS, dir, maxAttempts: 1 });
    const runs = manualHandler();
    first.startWorker(
      // The process dies while the report is being written.
      { run: runs.handler.run, giveUp: () => new Promise(() => {}) },
      { concurrency: 1 },
    );
    const submitted = await first.submit(job("o/r#21"));
    await startedCount(runs.started, 1);
    runs.started[0]?.finish({ status: "retry", message: "GitHub answered 502" });
    await vi.waitFor(async () =>
      expect((await first.get(runs.started[0]?.job.record.id ?? ""))?.outcome?.conclusion).toBe(
        "retrying",
      ),
    );
    const restarted = await createLocalQueue({ kinds: TEST_KINDS, dir, maxAttempts: 1 });
    const after = manualHandler();
    restarted.startWorker(after.handler, { concurrency: 1 });
    await restarted.onIdle();
    expect(after.started).toHaveLength(0);
    expect(after.gaveUp).toHaveLength(1);
    expect(after.gaveUp[0]).toMatchObject({
      id: submitted.status === "queued" ? submitted.id : "",
      outcome: { conclusion: "retrying", message: "GitHub answered 502" },
    });
  });

  it("records the job failed even when its report throws, instead of leaving it running", async () => {
    const dir = await makeTempDir();
    const errors: unknown[] = [];
    const queue = await createLocalQueue({
      kinds: TEST_KINDS,
      dir,
      maxAttempts: 1,
      onError: (error) => errors.push(error),
    });
    const runs = manualHandler();
    queue.startWorker(
      {
        run: runs.handler.run,
        giveUp: async () => {
          throw new Error("GitHub is down");
        },
      },
      { concurrency: 1 },
    );
    const submitted = await queue.submit(job("o/r#22"));
    const id = submitted.status === "queued" ? submitted.id : "";
    await startedCount(runs.started, 1);
    runs.started[0]?.finish({ status: "retry", message: "GitHub answered 502" });
    await vi.waitFor(async () => expect((await queue.get(id))?.state).toBe("failed"));
    expect(await queue.get(id)).toMatchObject({
      outcome: { conclusion: "failure", message: "GitHub answered 502" },
    });
    expect(String(errors[0])).toContain("GitHub is down");
    // And on disk: a restart does not run it or report it again.
    const restarted = await createLocalQueue({ kinds: TEST_KINDS, dir, maxAttempts: 1 });
    const after = manualHandler();
    restarted.startWorker(after.handler, { concurrency: 1 });
    await restarted.onIdle();
    expect(after.started).toHaveLength(0);
    expect(after.gaveUp).toHaveLength(0);
  });
});
