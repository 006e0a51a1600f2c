import { describe, expect, it, vi } from "vitest";
import {
  cancelledBy,
  type JobHandler,
  type JobQueue,
  type JobRecord,
  type JobResult,
  type RunningJob,
} from "../../src/queue/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { job, TEST_KINDS, useLocalQueues } from "./queue-fixtures.js";
import { idOf, useRedisQueues } from "./redis-fixtures.js";

/**
 * What the job pages do with a queue, the same on both back ends: list the
 * jobs newest first with filters, cancel a queued job (it never starts) or
 * a running one (its signal says who; it ends cancelled, not queued again),
 * retry a failed one, and each state change in the job's log.
 */

const redis = useRedisQueues();
const createLocalQueue = useLocalQueues();
let names = 0;

interface Backend {
  /** A queue; `again` opens another instance on the same store (Redis: another process). */
  open(): Promise<JobQueue>;
  again?: () => Promise<JobQueue>;
}

async function embedded(): Promise<Backend> {
  const dir = await makeTempDir();
  return { open: () => createLocalQueue({ kinds: TEST_KINDS, dir, retainMs: 3_600_000 }) };
}

async function bullmq(): Promise<Backend> {
  const name = `control${++names}`;
  const open = () => redis.open(name, { retryBaseMs: 600_000 });
  return { open, again: open };
}

/** Runs the test finishes by hand; a run that is aborted returns "interrupted" (as a job does). */
function handRun() {
  const started: Array<{ job: RunningJob; finish(result: JobResult): void }> = [];
  const handler: JobHandler = {
    run: (running) =>
      new Promise<JobResult>((finish) => {
        started.push({ job: running, finish });
        running.signal.addEventListener("abort", () => finish({ status: "interrupted" }));
      }),
    giveUp: async () => {},
  };
  return { handler, started };
}

async function stateOf(queue: JobQueue, id: string): Promise<JobRecord | undefined> {
  return queue.get(id);
}

async function statesLogged(queue: JobQueue, id: string): Promise<string[]> {
  const { entries } = await queue.log.read(id);
  return entries.map((e) => {
    const entry = e.entry as { state: string; by?: string };
    return entry.by ? `${entry.state} by ${entry.by}` : entry.state;
  });
}

describe.each([
  { name: "embedded", backend: embedded },
  { name: "Redis", backend: bullmq },
])("controls on the $name queue", ({ backend }) => {
  it("lists jobs newest first, filtered by state, installation and any test", async () => {
    const queue = await (await backend()).open();
    const a = idOf(await queue.submit(job("o/a#1", { installationId: 1 })));
    await new Promise((done) => setTimeout(done, 5));
    const b = idOf(await queue.submit(job("o/b#1", { installationId: 2 })));
    await new Promise((done) => setTimeout(done, 5));
    const c = idOf(await queue.submit(job("o/a#2", { installationId: 1 })));
    expect((await queue.list()).map((r) => r.id)).toEqual([c, b, a]);
    expect((await queue.list({ limit: 2 })).map((r) => r.id)).toEqual([c, b]);
    expect((await queue.list({ installationId: 1 })).map((r) => r.id)).toEqual([c, a]);
    expect((await queue.list({ where: (r) => r.key.startsWith("o/b") })).map((r) => r.id)).toEqual([
      b,
    ]);
    expect(await queue.list({ state: "running" })).toEqual([]);
    // The line each installation's queued jobs wait in, oldest first.
    expect(await queue.queuedIds(1)).toEqual([a, c]);
    expect(await queue.queuedIds(2)).toEqual([b]);
    expect(await queue.queuedIds(3)).toEqual([]);
    expect((await queue.list({ state: "queued" })).map((r) => r.state)).toEqual([
      "queued",
      "queued",
      "queued",
    ]);
  });

  it("cancels a queued job: it ends at once and never starts", async () => {
    const queue = await (await backend()).open();
    const run = handRun();
    queue.startWorker(run.handler, { concurrency: 1 });
    const first = idOf(await queue.submit(job("o/r#1")));
    await vi.waitFor(() => expect(run.started).toHaveLength(1));
    const second = idOf(await queue.submit(job("o/r#2")));
    expect(await queue.cancel(second, "mona")).toBe("cancelled");
    expect(await stateOf(queue, second)).toMatchObject({
      state: "failed",
      outcome: { conclusion: "cancelled", message: "cancelled by @mona", by: "mona" },
    });
    expect((await queue.list({ state: "failed" })).map((r) => r.id)).toEqual([second]);
    run.started[0]?.finish({ status: "done", conclusion: "success" });
    await vi.waitFor(async () => expect((await stateOf(queue, first))?.state).toBe("done"));
    await queue.onIdle();
    await new Promise((done) => setTimeout(done, 200));
    expect(run.started).toHaveLength(1);
    expect((await stateOf(queue, second))?.outcome?.conclusion).toBe("cancelled");
    expect(await statesLogged(queue, second)).toEqual(["queued", "failed by mona"]);
    expect(await statesLogged(queue, first)).toEqual(["queued", "running", "done"]);
    expect(await queue.cancel(first, "mona")).toBe("finished");
    expect(await queue.cancel("no-such-job", "mona")).toBe("not_found");
  });

  it("stops a running job through its signal, and ends it cancelled, not queued again", async () => {
    const queue = await (await backend()).open();
    const run = handRun();
    queue.startWorker(run.handler, { concurrency: 1 });
    const id = idOf(await queue.submit(job("o/r#1")));
    await vi.waitFor(() => expect(run.started).toHaveLength(1));
    expect((await queue.list({ state: "running" })).map((r) => r.id)).toEqual([id]);
    expect(await queue.cancel(id, "hubot")).toBe("stopping");
    const signal = run.started[0]?.job.signal;
    await vi.waitFor(() => expect(signal?.aborted).toBe(true));
    expect(signal && cancelledBy(signal)).toBe("hubot");
    await vi.waitFor(async () =>
      expect(await stateOf(queue, id)).toMatchObject({
        state: "failed",
        outcome: { conclusion: "cancelled", by: "hubot" },
      }),
    );
    await new Promise((done) => setTimeout(done, 200));
    expect(run.started).toHaveLength(1);
    expect(await statesLogged(queue, id)).toEqual(["queued", "running", "failed by hubot"]);
  });

  it("retries a failed job as a new attempt of the same record", async () => {
    const queue = await (await backend()).open();
    const results: JobResult[] = [
      { status: "failed", message: "the config is invalid" },
      { status: "done", conclusion: "success" },
    ];
    const runs: JobRecord[] = [];
    queue.startWorker(
      {
        run: async (running) => {
          runs.push(running.record);
          return results[runs.length - 1] ?? { status: "failed", message: "unexpected" };
        },
        giveUp: async () => {},
      },
      { concurrency: 1 },
    );
    const id = idOf(await queue.submit(job("o/r#1")));
    await vi.waitFor(async () => expect((await stateOf(queue, id))?.state).toBe("failed"));
    expect(await queue.retry(id, "mona")).toBe("queued");
    await vi.waitFor(async () =>
      expect(await stateOf(queue, id)).toMatchObject({
        state: "done",
        attempts: 1,
        outcome: { conclusion: "success" },
      }),
    );
    expect(runs.map((r) => r.attempts)).toEqual([1, 1]);
    expect(await queue.retry(id, "mona")).toBe("not_failed");
    expect(await queue.retry("no-such-job", "mona")).toBe("not_found");
    expect(await statesLogged(queue, id)).toEqual([
      "queued",
      "running",
      "failed",
      "queued by mona",
      "running",
      "done",
    ]);
  });

  it("keeps the job's stats recorded by its run", async () => {
    const queue = await (await backend()).open();
    queue.startWorker(
      {
        run: async (running) => {
          await running.update({ stats: { turns: 3, tokens: 1200, costUsd: 0.25 } });
          return { status: "done", conclusion: "success" };
        },
        giveUp: async () => {},
      },
      { concurrency: 1 },
    );
    const id = idOf(await queue.submit(job("o/r#1")));
    await vi.waitFor(async () => expect((await stateOf(queue, id))?.state).toBe("done"));
    expect((await queue.list())[0]?.stats).toEqual({ turns: 3, tokens: 1200, costUsd: 0.25 });
  });
});

describe("a cancel on Redis", () => {
  it("reaches the worker running the job from another queue instance", async () => {
    const b = await bullmq();
    const workers = await b.open();
    const run = handRun();
    workers.startWorker(run.handler, { concurrency: 1 });
    const id = idOf(await workers.submit(job("o/r#1")));
    await vi.waitFor(() => expect(run.started).toHaveLength(1));
    const pages = await b.again?.();
    if (!pages) throw new Error("no second instance");
    const heard: unknown[] = [];
    pages.log.subscribe(id, (entry) => heard.push(entry), 0);
    expect(await pages.cancel(id, "octocat")).toBe("stopping");
    await vi.waitFor(async () =>
      expect(await pages.get(id)).toMatchObject({
        state: "failed",
        outcome: { conclusion: "cancelled", by: "octocat" },
      }),
    );
    expect(run.started).toHaveLength(1);
    // The page's instance heard the state changes the worker's wrote.
    await vi.waitFor(() =>
      expect(heard).toContainEqual(expect.objectContaining({ state: "failed", by: "octocat" })),
    );
  });
});
