import { randomUUID } from "node:crypto";
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { errorMessage } from "../error-message.js";
import { createKeyLock, type KeyLock } from "./key-lock.js";
import {
  DEFAULT_MAX_ATTEMPTS,
  type JobHandler,
  type JobQueue,
  type JobRecord,
  type JobResult,
  type JobWorker,
  type NewJob,
  retryDelayMs,
  type SubmitResult,
  type WorkerOptions,
} from "./types.js";

/**
 * The queue when REDIS_URL is set: BullMQ, so any number of `patchwright
 * worker` processes on any machines share the jobs. BullMQ brings durable
 * jobs, retries with backoff and stalled-job recovery (a worker killed
 * mid-job: another takes the job up again). What open-source BullMQ lacks
 * is added here with plain Redis keys: one job at a time per issue (a lock
 * per key, see key-lock.ts; a job whose key is taken is delayed and tried
 * again), deduplication on the delivery id and the triggering comment, and
 * coalescing of rapid requests on one issue (inputs wait in a list per key;
 * the job that starts takes them all).
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
  /** The first retry's delay; later ones double (default retryDelayMs(1), 5 s). */
  retryBaseMs?: number;
}

/** What BullMQ stores as the job's data: the record without its state. */
type JobData = Omit<JobRecord, "id" | "state" | "attempts" | "updatedAt"> & {
  /** Inputs wait in the key's list until the job starts. */
  coalesce: boolean;
  /** Starts cut short by a shutdown: they do not count as attempts. */
  interruptions: number;
};

const SEEN_TTL_SECONDS = 7 * 24 * 3600;
const RETRY_LATER_MS = 2_000;

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
  const workers: JobWorker[] = [];
  const k = {
    seen: (id: string) => `${name}:seen:${id}`,
    pending: (key: string) => `${name}:pending:${key}`,
    pendingJob: (key: string) => `${name}:pending-job:${key}`,
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

  /** Claims a dedupe key; a claim whose job was never stored is taken over. */
  async function claim(id: string, jobId: string): Promise<boolean> {
    if (await redis.set(k.seen(id), jobId, "EX", SEEN_TTL_SECONDS, "NX")) return true;
    const owner = await redis.get(k.seen(id));
    if (owner && owner !== jobId && (await queue.getJob(owner))) return false;
    await redis.set(k.seen(id), jobId, "EX", SEEN_TTL_SECONDS);
    return true;
  }

  async function submit(job: NewJob): Promise<SubmitResult> {
    const id = randomUUID();
    for (const key of [job.deliveryId, ...(job.triggerId ? [job.triggerId] : [])]) {
      if (!(await claim(key, id))) return { status: "duplicate" };
    }
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
    if (job.coalesce) {
      await redis.rpush(k.pending(job.key), JSON.stringify(job.input));
      const waiting = await redis.get(k.pendingJob(job.key));
      if (waiting && (await queue.getJob(waiting))) return { status: "coalesced", id: waiting };
      await redis.set(k.pendingJob(job.key), id);
    }
    await queue.add(job.kind, data, {
      jobId: id,
      priority: await priorityFor(job.installationId),
      attempts: maxAttempts,
      backoff: { type: "exponential", delay: options.retryBaseMs ?? retryDelayMs(1) },
      removeOnComplete: { age: SEEN_TTL_SECONDS },
      removeOnFail: { age: SEEN_TTL_SECONDS },
    });
    return { status: "queued", id };
  }

  /** Takes every input waiting for the key (atomically), for the job that starts now. */
  async function takePending(job: Job<JobData>): Promise<unknown[]> {
    const result = await redis
      .multi()
      .lrange(k.pending(job.data.key), 0, -1)
      .del(k.pending(job.data.key))
      .exec();
    // Only this job's own marker: a newer one belongs to a job queued behind it.
    if ((await redis.get(k.pendingJob(job.data.key))) === job.id) {
      await redis.del(k.pendingJob(job.data.key));
    }
    const items = (result?.[0]?.[1] as string[] | undefined) ?? [];
    return items.map((item) => JSON.parse(item) as unknown);
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
      const unrecoverable =
        error instanceof UnrecoverableError || error.name === "UnrecoverableError";
      const exhausted = job.attemptsMade >= maxAttempts || /stalled/i.test(error.message);
      if (unrecoverable || exhausted) void left(job).catch(() => {});
      if (!unrecoverable && exhausted)
        void handler.giveUp(toRecord(job, "failed"), errorMessage(error));
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
    const lock: KeyLock | null = await locks.acquire(job.data.key, job.id ?? "");
    if (!lock) {
      // Another job on this issue is running: try again shortly, without counting an attempt.
      await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
      await job.moveToDelayed(clock.now() + RETRY_LATER_MS, token);
      throw new DelayedError();
    }
    try {
      if (job.data.coalesce && job.attemptsStarted <= 1 + job.data.interruptions) {
        const inputs = [...job.data.inputs, ...(await takePending(job))];
        if (inputs.length === 0) return { conclusion: "coalesced" };
        await job.updateData({ ...job.data, inputs });
      }
      const record = toRecord(job, "running");
      const result = await handler.run({
        record,
        signal,
        update: async (progress) => {
          await job.updateData({ ...job.data, ...progress });
        },
        waitingBehind: async () => redis.llen(k.pending(job.data.key)),
      });
      return await settle(job, token, result);
    } finally {
      await lock.release();
    }
  }

  async function settle(job: Job<JobData>, token: string | undefined, result: JobResult) {
    switch (result.status) {
      case "done":
        return result;
      case "failed":
        throw new UnrecoverableError(result.message);
      case "retry":
        throw new Error(result.message);
      case "interrupted":
        await job.updateData({ ...job.data, interruptions: job.data.interruptions + 1 });
        await job.moveToDelayed(clock.now(), token);
        throw new DelayedError();
    }
  }

  function toRecord(job: Job<JobData>, state: JobRecord["state"]): JobRecord {
    const { coalesce: _coalesce, interruptions, ...data } = job.data;
    return {
      ...data,
      id: job.id ?? "",
      inputs: data.inputs.length > 0 ? data.inputs : [null],
      state,
      attempts: Math.max(0, job.attemptsStarted - interruptions),
      updatedAt: clock.now(),
    };
  }

  return {
    submit,
    startWorker,
    async get(id) {
      const job = await queue.getJob(id);
      if (!job) return undefined;
      const state = await job.getState();
      const mapped: JobRecord["state"] =
        state === "completed"
          ? "done"
          : state === "failed"
            ? "failed"
            : state === "active"
              ? "running"
              : "queued";
      return toRecord(job, mapped);
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
