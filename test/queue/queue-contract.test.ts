import { describe, expect, it, vi } from "vitest";
import type { JobHandler, JobQueue, JobRecord, JobResult } from "../../src/queue/types.js";
import { makeTempDir } from "../helpers/temp-dir.js";
import { fakeTime, job, TEST_KINDS, useLocalQueues } from "./queue-fixtures.js";
import { idOf, useRedisQueues } from "./redis-fixtures.js";

/**
 * One JobQueue interface, two back ends: the same life cycle gives the same
 * record on the embedded queue (files on disk, a clock the test moves) and
 * on BullMQ (a real redis-server). A record tells when its last attempt
 * started, when the job ended and how, and, while a retry waits, what
 * failed; a job out of attempts is reported at once, not after a retry
 * delay that leads nowhere.
 */

interface Backend {
  /** `retryMs`: the first retry's delay. Redis waits it for real; the embedded queue's clock stands still. */
  open(options: { maxAttempts: number; retryMs: number }): Promise<JobQueue>;
  /** Until the retry that is waiting is due. */
  passRetryDelay(): Promise<void>;
}

const redis = useRedisQueues();
const createLocalQueue = useLocalQueues();
let names = 0;

function embedded(): Backend {
  const time = fakeTime();
  return {
    open: async ({ maxAttempts }) =>
      createLocalQueue({
        kinds: TEST_KINDS,
        dir: await makeTempDir(),
        maxAttempts,
        clock: time.clock,
        setTimer: time.setTimer,
      }),
    // Once the worker has set its timer for the retry, to the moment it is due.
    passRetryDelay: async () => {
      const at = await vi.waitFor(() => time.nextAt() ?? expect.fail("no retry is waiting"));
      time.advance(at - time.clock.now());
    },
  };
}

function bullmq(): Backend {
  return {
    open: ({ maxAttempts, retryMs }) =>
      redis.open(`contract${++names}`, { maxAttempts, retryBaseMs: retryMs }),
    // Real time: the short retries pass on their own.
    passRetryDelay: async () => {},
  };
}

/** A handler that answers each run with the next of `results` (a function may throw). */
function scripted(results: Array<JobResult | (() => JobResult)>) {
  const runs: JobRecord[] = [];
  const gaveUp: Array<{ record: JobRecord; reason: string }> = [];
  const handler: JobHandler = {
    run: async (running) => {
      runs.push(running.record);
      const next = results[runs.length - 1];
      if (!next) throw new Error(`unexpected run ${runs.length}`);
      return typeof next === "function" ? next() : next;
    },
    giveUp: async (record, reason) => {
      gaveUp.push({ record, reason });
    },
  };
  return { handler, runs, gaveUp };
}

// Long enough that no retry comes during a test, on either back end.
const NEVER_MS = 600_000;
const PULL = { number: 12, url: "https://github.com/o/r/pull/12" };

describe.each([
  { name: "embedded", backend: embedded },
  { name: "Redis", backend: bullmq },
])("the job record on the $name queue", ({ backend }) => {
  async function runOne(
    results: Array<JobResult | (() => JobResult)>,
    options = { maxAttempts: 3, retryMs: NEVER_MS },
  ) {
    const b = backend();
    const queue = await b.open(options);
    const script = scripted(results);
    queue.startWorker(script.handler, { concurrency: 1 });
    const id = idOf(await queue.submit(job("o/r#1")));
    const settled = async (state: JobRecord["state"], timeout = 10_000) => {
      await vi.waitFor(async () => expect((await queue.get(id))?.state).toBe(state), { timeout });
      const record = await queue.get(id);
      if (!record) throw new Error(`job ${id} is gone`);
      return record;
    };
    return { queue, id, ...script, settled, passRetryDelay: b.passRetryDelay };
  }

  it("records a finished job's start, end and outcome, its pull request included", async () => {
    const { settled } = await runOne([
      { status: "done", conclusion: "success", message: "opened #12", pullRequest: PULL },
    ]);
    const record = await settled("done");
    expect(record).toMatchObject({
      attempts: 1,
      outcome: { conclusion: "success", message: "opened #12", pullRequest: PULL },
    });
    expect(record.startedAt).toBeGreaterThanOrEqual(record.createdAt);
    expect(record.finishedAt).toBeGreaterThanOrEqual(record.startedAt ?? Number.POSITIVE_INFINITY);
  });

  it("records a job its handler failed as a failure with the handler's message, unreported", async () => {
    const { settled, gaveUp } = await runOne([
      { status: "failed", message: "the config is invalid" },
    ]);
    const record = await settled("failed");
    expect(record.outcome).toEqual({ conclusion: "failure", message: "the config is invalid" });
    expect(record.startedAt).toBeTypeOf("number");
    expect(record.finishedAt).toBeGreaterThanOrEqual(record.startedAt ?? Number.POSITIVE_INFINITY);
    // The handler told the requester itself.
    expect(gaveUp).toEqual([]);
  });

  it("keeps a job whose retry waits queued, unfinished, saying what failed", async () => {
    const { queue, id, runs } = await runOne([{ status: "retry", message: "GitHub answered 502" }]);
    await vi.waitFor(async () =>
      expect(await queue.get(id)).toMatchObject({
        state: "queued",
        attempts: 1,
        outcome: { conclusion: "retrying", message: "GitHub answered 502" },
      }),
    );
    const record = await queue.get(id);
    expect(record?.startedAt).toBeTypeOf("number");
    expect(record?.finishedAt).toBeUndefined();
    expect(runs).toHaveLength(1);
  });

  it("gives up at once when the last attempt asks for a retry, without the retry's delay", async () => {
    const { settled, runs, gaveUp } = await runOne(
      [{ status: "retry", message: "GitHub answered 502" }],
      // Retries are due in ten minutes: a give-up that waited for one would not come in this test.
      { maxAttempts: 1, retryMs: NEVER_MS },
    );
    const record = await settled("failed");
    expect(record.outcome).toEqual({ conclusion: "failure", message: "GitHub answered 502" });
    expect(record.finishedAt).toBeTypeOf("number");
    expect(runs).toHaveLength(1);
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]?.record).toMatchObject({ id: record.id, state: "failed" });
    // The same report from either queue: how often it ran, and what failed last.
    expect(gaveUp[0]?.reason).toBe("it was tried 1 time");
    expect(gaveUp[0]?.record.outcome).toEqual({
      conclusion: "retrying",
      message: "GitHub answered 502",
    });
  });

  it("gives up at once when the handler throws on its last attempt", async () => {
    const { settled, runs, gaveUp } = await runOne(
      [
        () => {
          throw new Error("git server down");
        },
      ],
      { maxAttempts: 1, retryMs: NEVER_MS },
    );
    const record = await settled("failed");
    expect(record.outcome).toEqual({ conclusion: "failure", message: "git server down" });
    expect(runs).toHaveLength(1);
    expect(gaveUp).toHaveLength(1);
  });

  it("retries while attempts are left, then reports the last failure without another wait", async () => {
    const { settled, runs, gaveUp, passRetryDelay } = await runOne(
      [
        { status: "retry", message: "GitHub answered 502" },
        { status: "retry", message: "GitHub answered 503" },
      ],
      { maxAttempts: 2, retryMs: 50 },
    );
    await passRetryDelay();
    // No time passes after the second run: its failure is final at once.
    const record = await settled("failed");
    expect(runs.map((r) => r.attempts)).toEqual([1, 2]);
    // The second run saw what failed before it.
    expect(runs[1]?.outcome).toEqual({ conclusion: "retrying", message: "GitHub answered 502" });
    expect(record).toMatchObject({
      attempts: 2,
      outcome: { conclusion: "failure", message: "GitHub answered 503" },
    });
    expect(gaveUp.map((g) => [g.record.id, g.reason, g.record.outcome?.message])).toEqual([
      [record.id, "it was tried 2 times", "GitHub answered 503"],
    ]);
  });
  it("runs a job that asks to look again later once more when due, counting no attempt", async () => {
    const { settled, runs, gaveUp, passRetryDelay } = await runOne(
      [
        { status: "later", delayMs: 50, message: "no 👍 on the plan yet" },
        { status: "later", delayMs: 50, message: "no 👍 on the plan yet" },
        { status: "done", conclusion: "success" },
      ],
      // One attempt only: a look that counted one would be given up on instead of run again.
      { maxAttempts: 1, retryMs: NEVER_MS },
    );
    await passRetryDelay();
    await passRetryDelay();
    const record = await settled("done");
    expect(runs.map((r) => r.attempts)).toEqual([1, 1, 1]);
    expect(record).toMatchObject({ attempts: 1, outcome: { conclusion: "success" } });
    expect(gaveUp).toEqual([]);
  });
});
