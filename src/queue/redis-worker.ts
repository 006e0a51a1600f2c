import { randomUUID } from "node:crypto";
import { DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { errorMessage } from "../error-message.js";
import { type JobEventLog, type StateEntry, stateEntry } from "./event-log.js";
import { readRecord } from "./job-inputs.js";
import type { createKeyLock, KeyLock } from "./key-lock.js";
import type { RedisIntake } from "./redis-intake.js";
import {
  attemptsOf,
  type Cancellation,
  type JobData,
  lastFailureOf,
  toRecord,
} from "./redis-record.js";
import {
  cancelledBy,
  JobCancelled,
  type JobHandler,
  type JobInputSchemas,
  type JobRecord,
  type JobResult,
  type JobWorker,
  outOfAttempts,
  retryDelayMs,
  type WorkerOptions,
} from "./types.js";

/**
 * A BullMQ worker that runs job records: one job per issue (the key lock;
 * a job whose issue is busy waits without counting an attempt), the
 * folded requests taken when the job starts, and how each run ends. The
 * attempts are counted here, as runs started (BullMQ counts failures and
 * stalls apart), so a retry waits as long as its tracking comment says and
 * a job out of attempts is reported, as on the embedded queue.
 */

export interface RedisWorkerContext {
  name: string;
  /** A new connection, closed with the queue. */
  connection: () => Redis;
  maxAttempts: number;
  clock: { now(): number };
  /** Each record's inputs are read with its kind's schema before it runs or is reported. */
  kinds: JobInputSchemas;
  locks: ReturnType<typeof createKeyLock>;
  intake: RedisIntake;
  /** A job left the queue for good (the installations' fair share). */
  left(job: Job<JobData>): Promise<void>;
  /** The jobs' logs: each change of state is written there. */
  log: JobEventLog;
  /** Who cancelled the job, if anyone did (redis-queue.ts cancel). */
  cancellation(id: string): Promise<Cancellation | undefined>;
  /** Where a cancel is published to every worker: `{ id, by }`. */
  cancelChannel: string;
  options: {
    onError?: ((error: unknown, record: JobRecord | undefined) => void) | undefined;
    lockDurationMs?: number | undefined;
    stalledIntervalMs?: number | undefined;
    retryBaseMs?: number | undefined;
  };
}

const RETRY_LATER_MS = 2_000;

/**
 * The handler's own "failed" result: it has told the requester already, so
 * this failure is not reported again, unlike BullMQ's own unrecoverable
 * ones (a job that stalled more often than allowed).
 */
class ReportedFailure extends UnrecoverableError {
  constructor(message: string) {
    super(message);
    this.name = "UnrecoverableError";
  }
}

export function startRedisWorker(
  ctx: RedisWorkerContext,
  handler: JobHandler,
  workerOptions: WorkerOptions,
): JobWorker {
  const { name, clock, maxAttempts, kinds, locks, intake, left, options } = ctx;
  const running = new Map<string, AbortController>();
  const note = (
    job: Job<JobData>,
    state: StateEntry["state"],
    extra: { by?: string | undefined; message?: string | undefined } = {},
  ) =>
    ctx.log
      .append(job.id ?? "", stateEntry(clock.now(), state, extra))
      .catch((error: unknown) => options.onError?.(error, undefined));
  // A cancel reaches every worker; the one running the job aborts it.
  const cancels = ctx.connection();
  cancels.on("message", (_channel: string, message: string) => {
    try {
      const { id, by } = JSON.parse(message) as { id: string; by: string };
      const controller = running.get(id);
      if (controller && !controller.signal.aborted) controller.abort(new JobCancelled(by));
    } catch {
      // Not a cancel this version can read.
    }
  });
  void cancels
    .subscribe(ctx.cancelChannel)
    .catch((error: unknown) => options.onError?.(error, undefined));
  const worker = new Worker<JobData>(
    name,
    async (job, token) => {
      const controller = new AbortController();
      running.set(job.id ?? "", controller);
      try {
        return await process(job, token, handler, controller.signal);
      } finally {
        running.delete(job.id ?? "");
      }
    },
    {
      connection: ctx.connection(),
      concurrency: workerOptions.concurrency,
      maxStalledCount: maxAttempts - 1,
      ...(options.lockDurationMs ? { lockDuration: options.lockDurationMs } : {}),
      ...(options.stalledIntervalMs ? { stalledInterval: options.stalledIntervalMs } : {}),
    },
  );
  worker.on("completed", (job) => void left(job).catch(() => {}));
  worker.on("failed", (job, error) => {
    if (!job || error instanceof DelayedError) return;
    // BullMQ's own unrecoverable failure is a job that stalled (its worker
    // killed) more often than allowed: it is out of attempts too.
    const unrecoverable =
      error instanceof UnrecoverableError || error.name === "UnrecoverableError";
    if (!unrecoverable && job.attemptsMade < maxAttempts) return;
    void left(job).catch(() => {});
    if (error instanceof ReportedFailure) return;
    void reportFailed(job, handler, unrecoverable ? undefined : errorMessage(error));
  });
  worker.on("error", (error) => options.onError?.(error, undefined));
  // A worker that could not renew its hold (its process stalled past the
  // lock's duration, or Redis lost the key) no longer owns the job: the
  // stalled check hands it to another worker, which may take the issue's
  // lock back at once. Stop this run so the two do not work side by side.
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const id of jobIds) running.get(id)?.abort(new Error("lost its hold on the job"));
  });
  const stoppable: JobWorker = {
    async stop(graceMs) {
      const closed = worker.close();
      const grace = new Promise((done) => setTimeout(done, graceMs).unref());
      await Promise.race([closed, grace]);
      for (const controller of running.values()) controller.abort(new Error("shutting down"));
      await closed;
    },
  };
  return stoppable;

  async function process(
    job: Job<JobData>,
    token: string | undefined,
    handler: JobHandler,
    signal: AbortSignal,
  ): Promise<unknown> {
    // BullMQ's token (the worker's id and a counter) differs between two runs that
    // overlap, so it tells this run from one it replaced.
    const run = token ?? randomUUID();
    // Cancelled while it waited (the cancel said so in its log), or while a
    // worker that died was running it: it ends here without running.
    const cancelled = await ctx.cancellation(job.id ?? "");
    if (cancelled) throw new ReportedFailure(`cancelled by @${cancelled.by}`);
    // BullMQ counts failures and stalls apart, so a job whose runs were cut
    // short by crashes and failed in turn can start again past its last
    // attempt: like the embedded queue, report it instead of running it.
    if (attemptsOf(job) > maxAttempts) {
      // This start only reports: it is not one of the job's attempts.
      await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
      return giveUpNow(job, handler, attemptsOf(job));
    }
    const lock: KeyLock | null = await locks.acquire(job.data.key, job.id ?? "", run);
    if (!lock) {
      // Another job on this issue is running: try again shortly, without counting an attempt.
      await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
      await job.moveToDelayed(clock.now() + RETRY_LATER_MS, token);
      throw new DelayedError();
    }
    try {
      // A run taken up again after a crash gets the same inputs (taken once, kept).
      if (job.data.coalesce && job.data.inputs.length === 0) {
        const inputs = await intake.take(job.data.key, job.id ?? "");
        if (inputs.length === 0) return { conclusion: "coalesced" };
        await job.updateData({ ...job.data, inputs });
      }
      const stored = toRecord(job, "running", clock.now());
      const read = readRecord(kinds, stored);
      if (!read.ok) {
        // Of a kind this version does not run, or an input its schema refuses
        // (written by another version): this job fails, the worker goes on.
        options.onError?.(read.error, stored);
        throw new ReportedFailure(read.error.message);
      }
      const { record } = read;
      await note(job, "running");
      const result = await handler
        .run({
          record,
          signal,
          update: async (progress) => {
            await job.updateData({ ...job.data, ...progress });
          },
          waitingBehind: () => intake.waiting(job.data.key),
        })
        .catch((error: unknown): JobResult => ({ status: "retry", message: errorMessage(error) }));
      // However the run ended, a cancelled job is not queued again.
      const by = cancelledBy(signal);
      if (by !== undefined) {
        const message = `cancelled by @${by}`;
        await note(job, "failed", { by, message });
        throw new ReportedFailure(message);
      }
      // The last attempt asks for a retry: it ends now and is reported, whatever BullMQ's count says.
      if (result.status === "retry" && record.attempts >= maxAttempts) {
        await job.updateData({ ...job.data, lastFailure: result.message });
        return await giveUpNow(job, handler, record.attempts);
      }
      return await settle(job, token, result, record.attempts);
    } finally {
      await lock.release();
    }
  }

  /**
   * Reports a job out of attempts from inside its run, before BullMQ marks
   * it failed: a worker killed while reporting leaves the job stalled, and
   * the worker that takes it up reports it again (as the embedded queue
   * does after a restart). The record handed over says what failed last.
   */
  async function giveUpNow(job: Job<JobData>, handler: JobHandler, tried: number): Promise<never> {
    const failure = lastFailureOf(job);
    await note(job, "failed", { message: failure ?? outOfAttempts(tried) });
    const record = reportedRecord(job, failure);
    if (record) {
      await handler
        .giveUp(record, outOfAttempts(tried))
        .catch((error: unknown) => options.onError?.(error, record));
    }
    throw new ReportedFailure(failure ?? outOfAttempts(tried));
  }

  /**
   * Reports a job BullMQ failed itself: one that stalled more often than
   * allowed (`reason` unset), or a failure outside the handler. Reported as
   * the embedded queue reports a job its crashes used up: how often it ran
   * and what failed last, not BullMQ's wording.
   */
  async function reportFailed(
    job: Job<JobData>,
    handler: JobHandler,
    reason: string | undefined,
  ): Promise<void> {
    // BullMQ fails a job that stalled too often when a worker next picks it
    // up; that start ran nothing, so it is no attempt.
    if (job.deferredFailure) {
      await job
        .updateData({ ...job.data, interruptions: job.data.interruptions + 1 })
        .catch(() => {});
    }
    await note(job, "failed", { message: reason ?? outOfAttempts(attemptsOf(job)) });
    const record = reportedRecord(job, job.data.lastFailure);
    if (!record) return;
    await handler
      .giveUp(record, reason ?? outOfAttempts(attemptsOf(job)))
      .catch((failure: unknown) => options.onError?.(failure, record));
  }

  /**
   * The record a report gets: failed, with what failed last as a retry's
   * outcome, as on disk. None for a record its kind cannot read: that is
   * logged, and nobody can be told from it.
   */
  function reportedRecord(
    job: Job<JobData>,
    lastFailure: string | undefined,
  ): JobRecord | undefined {
    const { outcome: _outcome, ...stored } = toRecord(job, "failed", clock.now());
    const read = readRecord(kinds, stored);
    if (!read.ok) {
      options.onError?.(read.error, stored);
      return undefined;
    }
    return {
      ...read.record,
      ...(lastFailure ? { outcome: { conclusion: "retrying", message: lastFailure } } : {}),
    };
  }

  async function settle(
    job: Job<JobData>,
    token: string | undefined,
    result: JobResult,
    attempts: number,
  ) {
    switch (result.status) {
      case "done":
        await note(job, "done", { message: result.message ?? result.conclusion });
        return result;
      case "failed":
        await note(job, "failed", { message: result.message });
        throw new ReportedFailure(result.message);
      case "retry":
        // Delayed here rather than by BullMQ's backoff, which counts failures
        // only: after a crash that would be sooner than the tracking comment
        // says (retryDelayMs of the job's attempts, as on the embedded queue).
        await job.updateData({ ...job.data, lastFailure: result.message });
        await note(job, "queued", { message: `retrying: ${result.message}` });
        await job.moveToDelayed(
          clock.now() + retryDelayMs(attempts, options.retryBaseMs ?? retryDelayMs(1)),
          token,
        );
        throw new DelayedError();
      case "later":
        // Like an interruption, no attempt: the job only waits to look again.
        await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
        await note(job, "queued", { message: result.message ?? "waiting to look again" });
        await job.moveToDelayed(clock.now() + Math.max(0, result.delayMs), token);
        throw new DelayedError();
      case "interrupted":
        await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
        await note(job, "queued", { message: "paused: the worker is shutting down" });
        await job.moveToDelayed(clock.now(), token);
        throw new DelayedError();
    }
  }
}
