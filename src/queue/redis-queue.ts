import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { stateEntry } from "./event-log.js";
import { parseNewJob, queueOf, readRecord } from "./job-inputs.js";
import { createKeyLock } from "./key-lock.js";
import { createRedisEventLog } from "./redis-event-log.js";
import { createRedisIntake } from "./redis-intake.js";
import { createJobIndex } from "./redis-job-index.js";
import { createLoadCounter } from "./redis-load.js";
import { REDIS_READY, whenReady } from "./redis-ready.js";
import { type JobData, recordState, toRecord } from "./redis-record.js";
import { startRedisWorker } from "./redis-worker.js";
import {
  DEFAULT_MAX_ATTEMPTS,
  type JobHandler,
  type JobInputSchemas,
  type JobQueue,
  type JobRecord,
  type JobWorker,
  type NewJob,
  retryDelayMs,
  type SubmitResult,
  type WorkerOptions,
} from "./types.js";

/**
 * The queue when REDIS_URL is set: BullMQ, so any number of `patchwright
 * worker` processes on any machines share the jobs. BullMQ brings durable
 * jobs, delays and stalled-job recovery (a worker killed mid-job: another
 * takes the job up again). What open-source BullMQ lacks is added with
 * plain Redis keys: one job at a time per issue (a lock per key, see
 * key-lock.ts; a job whose key is taken is delayed and tried again),
 * deduplication on the delivery id and the triggering comment, and
 * coalescing of rapid requests on one issue (inputs wait in a list per key;
 * the job that starts takes them all), see redis-intake.ts; a fair share
 * between installations (redis-load.ts); the jobs' listing and who
 * cancelled them (redis-job-index.ts). Runs, attempts and reports:
 * redis-worker.ts. A Redis that cannot be reached when the
 * queue opens is refused (redis-ready.ts), not waited for forever.
 */

export interface RedisQueueOptions<S extends JobInputSchemas> {
  url: string;
  /** The input schema of each kind of job this queue holds. */
  kinds: S;
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
  /** How long opening the queue waits for Redis before it refuses (default 5 s; see redis-ready.ts). */
  readyTimeoutMs?: number;
}

const SEEN_TTL_SECONDS = 7 * 24 * 3600;

export async function createRedisQueue<S extends JobInputSchemas>(
  options: RedisQueueOptions<S>,
): Promise<JobQueue<S>> {
  const { kinds } = options;
  const name = options.name ?? "patchwright";
  const clock = options.clock ?? Date;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  // Workers block on Redis: BullMQ needs retries unbounded on their connection.
  const redis = new Redis(options.url, { maxRetriesPerRequest: null });
  // Reported once per outage (ioredis retries and would print every attempt
  // itself); while the queue opens, whenReady says what failed.
  let down = true;
  redis.on("error", (error) => {
    if (!down) options.onError?.(error, undefined);
    down = true;
  });
  redis.on("ready", () => {
    down = false;
  });
  try {
    await whenReady(redis, {
      ...REDIS_READY,
      ...(options.readyTimeoutMs ? { timeoutMs: options.readyTimeoutMs } : {}),
    });
  } catch (error) {
    redis.disconnect();
    throw error;
  }
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
  const index = createJobIndex({ redis, queue, name, retainSeconds: SEEN_TTL_SECONDS });
  const load = createLoadCounter(redis, name);
  /** The channel every worker hears cancellations on. */
  const cancels = `${name}:cancels`;
  const log = createRedisEventLog({ redis, connection, name });
  const { cancellation } = index;

  async function submit(submitted: NewJob): Promise<SubmitResult> {
    // What is stored, and what the intake compares when it withdraws: the parsed input.
    const job = parseNewJob(kinds, submitted);
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
    // Logged before a worker can take it up (and write "running"); side by
    // side with the priority: each delivery waits on its round trips to Redis.
    try {
      const [, priority] = await Promise.all([
        log
          .append(id, stateEntry(data.createdAt, "queued"))
          .catch((error: unknown) => options.onError?.(error, undefined)),
        load.priorityFor(job.installationId),
      ]);
      await queue.add(job.kind, data, {
        jobId: id,
        priority,
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
    const reportError = (error: unknown) => options.onError?.(error, undefined);
    await Promise.all([
      // Listed from now on.
      index.add(id, data.createdAt, data.installationId, clock.now()).catch(reportError),
      // The job is stored; an unconfirmed claim only expires sooner (a minute).
      intake.confirm(job, id).catch(reportError),
    ]);
    return { status: "queued", id };
  }

  function startWorker(handler: JobHandler, workerOptions: WorkerOptions): JobWorker {
    const worker = startRedisWorker(
      {
        name,
        connection,
        maxAttempts,
        clock,
        kinds,
        locks,
        intake,
        left: load.left,
        options,
        log,
        cancellation,
        cancelChannel: cancels,
      },
      handler,
      workerOptions,
    );
    workers.push(worker);
    return worker;
  }

  const jobs: JobQueue = {
    submit,
    startWorker,
    // A record its kind cannot read is returned as stored: it fails when it runs.
    async get(id) {
      const job = await queue.getJob(id);
      if (!job) return undefined;
      const state = recordState(await job.getState());
      const record = toRecord(job, state, clock.now(), await cancellation(id));
      const read = readRecord(kinds, record);
      return read.ok ? read.record : record;
    },
    list: (filter = {}) => index.list(filter, clock.now()),
    queuedIds: (installationId) => index.queuedIds(installationId),
    async cancel(id, by) {
      const job = await queue.getJob(id);
      if (!job) return "not_found";
      const bull = await job.getState();
      const state = recordState(bull);
      if (state === "done" || state === "failed") return "finished";
      const running = state === "running";
      if (await cancellation(id)) return running ? "stopping" : "finished";
      const at = clock.now();
      await index.cancel(id, { by, at });
      // Every worker hears it; the one running the job aborts it.
      await redis.publish(cancels, JSON.stringify({ id, by }));
      if (running) return "stopping";
      // It ends now for everyone who looks; a worker that takes it up fails
      // it without running it (a waiting retry is made due, so that is soon).
      if (bull === "delayed") await job.promote().catch(() => {});
      await log
        .append(id, stateEntry(at, "failed", { by, message: `cancelled by @${by}` }))
        .catch((error: unknown) => options.onError?.(error, undefined));
      return "cancelled";
    },
    async retry(id, by) {
      const job = await queue.getJob(id);
      if (!job) return "not_found";
      const state = recordState(await job.getState());
      const cancelled = await cancellation(id);
      const requeued = async () => {
        await log
          .append(id, stateEntry(clock.now(), "queued", { by, message: `retried by @${by}` }))
          .catch((error: unknown) => options.onError?.(error, undefined));
        return "queued" as const;
      };
      // Cancelled before a worker took it up: it only has to not be cancelled.
      if (state === "queued" && cancelled) {
        await index.uncancel(id);
        return requeued();
      }
      if (state !== "failed") return "not_failed";
      await index.uncancel(id);
      const { lastFailure: _last, ...data } = job.data;
      await job.updateData({ ...data, interruptions: 0 });
      // A new attempt of the same job: its attempts start over, its checkpoint and comment are kept.
      await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
      return requeued();
    },
    log,
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
      await log.close();
      for (const open of connections) open.disconnect();
    },
  };
  return queueOf(jobs, kinds);
}
