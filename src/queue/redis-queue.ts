import { randomUUID } from "node:crypto";
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { errorMessage } from "../error-message.js";
import { createKeyLock, type KeyLock } from "./key-lock.js";
import { createRedisIntake } from "./redis-intake.js";
import { attemptsOf, type JobData, lastFailureOf, recordState, toRecord } from "./redis-record.js";
import {
  DEFAULT_MAX_ATTEMPTS,
  type JobHandler,
  type JobQueue,
  type JobRecord,
  type JobResult,
  type JobWorker,
  type NewJob,
  outOfAttempts,
  retryDelayMs,
  type SubmitResult,
  type WorkerOptions,
} from "./types.js";

/**
 * The queue when REDIS_URL is set: BullMQ, so any number of `patchwright
 * worker` processes on any machines share the jobs. BullMQ brings durable
 * jobs, delays and stalled-job recovery (a worker killed mid-job: another
 * takes the job up again). Attempts are counted here, as runs started
 * (BullMQ counts failures and stalls apart), so a retry waits, and a job
 * out of attempts is reported, as on the embedded queue. What open-source
 * BullMQ lacks is added with plain Redis keys: one job at a time per issue (a lock
 * per key, see key-lock.ts; a job whose key is taken is delayed and tried
 * again), deduplication on the delivery id and the triggering comment, and
 * coalescing of rapid requests on one issue (inputs wait in a list per key;
 * the job that starts takes them all), see redis-intake.ts.
 */

export interface RedisQueueOptions {
  url: string;
  /** Queue and key prefix, so several deployments can share one Redis. */
  name?: string;
  maxAttempts?: number;
  clock?: { now(): number };
  onError?: (error: unknown, record: JobRecord | undefined) => void;
  /**
   * How long a worker's hold on a job lasts without renewal, and how often
   * workers look for jobs whose worker died (BullMQ's defaults: 30 s). A
   * killed worker's job is taken up again within about the sum.
   */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** The first retry's delay; later ones double (default retryDelayMs(1), 5 s). Tests shorten it. */
  retryBaseMs?: number;
}

const SEEN_TTL_SECONDS = 7 * 24 * 3600;
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

export async function createRedisQueue(options: RedisQueueOptions): Promise<JobQueue> {
  const name = options.name ?? "patchwright";
  const clock = options.clock ?? Date;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  // Workers block on Redis: BullMQ needs retries unbounded on their connection.
  const redis = new Redis(options.url, { maxRetriesPerRequest: null });
  // BullMQ leaves a connection it was handed open: each one is ours to close.
  const connections: Redis[] = [redis];
  const connection = () => {
    const copy = redis.duplicate();
    connections.push(copy);
    return copy;
  };
  const queue = new Queue<JobData>(name, { connection: connection() });
  const locks = createKeyLock(redis, `${name}:lock:`);
  const intake = createRedisIntake(redis, {
    name,
    jobKeyPrefix: queue.toKey(""),
    retainSeconds: SEEN_TTL_SECONDS,
  });
  const workers: JobWorker[] = [];
  const k = {
    load: (installation: number | undefined) => `${name}:load:${installation ?? "-"}`,
  };

  /**
   * A fair share between installations: a job's priority is how many jobs
   * its installation already has in the queue (BullMQ runs lower numbers
   * first), so one organization's hundred jobs do not hold back another's
   * first. The count goes down as jobs leave for good; a count left high by
   * a crash only costs fairness, and runs out after a day.
   */
  async function priorityFor(installation: number | undefined): Promise<number> {
    const load = await redis.incr(k.load(installation));
    await redis.expire(k.load(installation), 86_400);
    return Math.min(load, 2_000_000);
  }

  async function left(job: Job<JobData> | undefined): Promise<void> {
    if (!job) return;
    const key = k.load(job.data.installationId);
    if ((await redis.decr(key)) < 0) await redis.set(key, 0);
  }

  async function submit(job: NewJob): Promise<SubmitResult> {
    const id = randomUUID();
    const admitted = await intake.admit(job, id);
    if (admitted.status !== "queued") return admitted;
    const data: JobData = {
      kind: job.kind,
      key: job.key,
      deliveryId: job.deliveryId,
      ...(job.triggerId ? { triggerId: job.triggerId } : {}),
      ...(job.installationId !== undefined ? { installationId: job.installationId } : {}),
      inputs: job.coalesce ? [] : [job.input],
      coalesce: job.coalesce === true,
      interruptions: 0,
      createdAt: clock.now(),
    };
    try {
      await queue.add(job.kind, data, {
        jobId: id,
        priority: await priorityFor(job.installationId),
        attempts: maxAttempts,
        // For failures outside the handler (Redis errors); the handler's retries are settle()'s.
        backoff: { type: "exponential", delay: options.retryBaseMs ?? retryDelayMs(1) },
        removeOnComplete: { age: SEEN_TTL_SECONDS },
        removeOnFail: { age: SEEN_TTL_SECONDS },
      });
    } catch (error) {
      // An answer lost after the job was stored: it is queued all the same.
      const stored = await queue.getJob(id).catch(() => undefined);
      if (!stored) {
        // The webhook answers 5xx and GitHub may redeliver: leave nothing that refuses it.
        await intake.withdraw(job, id).catch(() => {});
        throw error;
      }
    }
    // The job is stored; an unconfirmed claim only expires sooner (a minute).
    await intake.confirm(job, id).catch((error: unknown) => options.onError?.(error, undefined));
    return { status: "queued", id };
  }

  function startWorker(handler: JobHandler, workerOptions: WorkerOptions): JobWorker {
    const running = new Map<string, AbortController>();
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
        connection: connection(),
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
    workers.push(stoppable);
    return stoppable;
  }

  async function process(
    job: Job<JobData>,
    token: string | undefined,
    handler: JobHandler,
    signal: AbortSignal,
  ): Promise<unknown> {
    // BullMQ's token (the worker's id and a counter) differs between two runs that
    // overlap, so it tells this run from one it replaced.
    const run = token ?? randomUUID();
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
      const record = toRecord(job, "running", clock.now());
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
    const record = reportedRecord(job, failure);
    await handler
      .giveUp(record, outOfAttempts(tried))
      .catch((error: unknown) => options.onError?.(error, record));
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
    const record = reportedRecord(job, job.data.lastFailure);
    await handler
      .giveUp(record, reason ?? outOfAttempts(attemptsOf(job)))
      .catch((failure: unknown) => options.onError?.(failure, record));
  }

  /** The record a report gets: failed, with what failed last as a retry's outcome, as on disk. */
  function reportedRecord(job: Job<JobData>, lastFailure: string | undefined): JobRecord {
    const { outcome: _outcome, ...record } = toRecord(job, "failed", clock.now());
    return {
      ...record,
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
        return result;
      case "failed":
        throw new ReportedFailure(result.message);
      case "retry":
        // Delayed here rather than by BullMQ's backoff, which counts failures
        // only: after a crash that would be sooner than the tracking comment
        // says (retryDelayMs of the job's attempts, as on the embedded queue).
        await job.updateData({ ...job.data, lastFailure: result.message });
        await job.moveToDelayed(
          clock.now() + retryDelayMs(attempts, options.retryBaseMs ?? retryDelayMs(1)),
          token,
        );
        throw new DelayedError();
      case "interrupted":
        await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
        await job.moveToDelayed(clock.now(), token);
        throw new DelayedError();
    }
  }

  return {
    submit,
    startWorker,
    async get(id) {
      const job = await queue.getJob(id);
      if (!job) return undefined;
      return toRecord(job, recordState(await job.getState()), clock.now());
    },
    async onIdle() {
      for (;;) {
        const counts = await queue.getJobCounts("active", "waiting", "prioritized");
        if ((counts.active ?? 0) + (counts.waiting ?? 0) + (counts.prioritized ?? 0) === 0) return;
        await new Promise((done) => setTimeout(done, 50));
      }
    },
    async close() {
      // Whatever still runs here goes back to the queue for another worker.
      await Promise.all(workers.map((w) => w.stop(0)));
      await queue.close();
      for (const open of connections) open.disconnect();
    },
  };
}
