import { randomUUID } from "node:crypto";
import { Job, type JobJson, Queue } from "bullmq";
import { Redis } from "ioredis";
import { stateEntry } from "./event-log.js";
import { parseNewJob, queueOf, readRecord } from "./job-inputs.js";
import { createKeyLock } from "./key-lock.js";
import { createRedisEventLog } from "./redis-event-log.js";
import { createRedisIntake } from "./redis-intake.js";
import { REDIS_READY, whenReady } from "./redis-ready.js";
import { type Cancellation, type JobData, recordState, toRecord } from "./redis-record.js";
import { luaScript } from "./redis-script.js";
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
  type StoredJobRecord,
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
 * the job that starts takes them all), see redis-intake.ts. Runs, attempts
 * and reports: redis-worker.ts. A Redis that cannot be reached when the
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

// One command each on the webhook's answer path, where every command to
// Redis is a write and a reply to parse. KEYS: the counter  ARGV: ttl s
const BUMP_LOAD = `
local load = redis.call("INCR", KEYS[1])
redis.call("EXPIRE", KEYS[1], ARGV[1])
return load
`;
// KEYS: the index, the installation's  ARGV: created at, id, expired before
const LIST_JOB = `
for i = 1, #KEYS do
  redis.call("ZADD", KEYS[i], ARGV[1], ARGV[2])
  redis.call("ZREMRANGEBYSCORE", KEYS[i], "-inf", ARGV[3])
end
return 0
`;

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
  const k = {
    load: (installation: number | undefined) => `${name}:load:${installation ?? "-"}`,
    /** Every job's id by when it was created: what `list` walks, newest first. */
    index: `${name}:jobs`,
    /** The same, per installation: a queue position needs no job's hash. */
    byInstallation: (installation: number | undefined) => `${name}:jobs:${installation ?? "-"}`,
    /** Who cancelled a job and when (JSON), for as long as the job is kept. */
    cancel: (id: string) => `${name}:cancel:${id}`,
    /** The ids that have a `cancel` key: a list reads the set, not every key. */
    cancelled: `${name}:cancelled`,
    cancels: `${name}:cancels`,
  };
  const log = createRedisEventLog({ redis, connection, name });
  const bumpLoad = luaScript(redis, "patchwrightBumpLoad", BUMP_LOAD);
  const listJob = luaScript(redis, "patchwrightListJob", LIST_JOB);

  function parseCancellation(raw: string | null | undefined): Cancellation | undefined {
    if (!raw) return undefined;
    try {
      const parsed = JSON.parse(raw) as Cancellation;
      return typeof parsed.by === "string" ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Every job's state as BullMQ's sets say (read whole: ids only), and the
   * cancelled ones: a list reads the hashes of the jobs that may match only.
   */
  async function states() {
    const [completed, failed, active, cancelledIds] = await Promise.all([
      redis.zrange(queue.toKey("completed"), 0, -1).then((ids) => new Set(ids)),
      redis.zrange(queue.toKey("failed"), 0, -1).then((ids) => new Set(ids)),
      redis.lrange(queue.toKey("active"), 0, -1).then((ids) => new Set(ids)),
      redis.smembers(k.cancelled).then((ids) => new Set(ids)),
    ]);
    const bullState = (id: string): StoredJobRecord["state"] =>
      completed.has(id)
        ? "done"
        : failed.has(id)
          ? "failed"
          : active.has(id)
            ? "running"
            : "queued";
    return { bullState, cancelledIds };
  }

  async function cancellation(id: string): Promise<Cancellation | undefined> {
    return parseCancellation(await redis.get(k.cancel(id)));
  }

  /**
   * A fair share between installations: a job's priority is how many jobs
   * its installation already has in the queue (BullMQ runs lower numbers
   * first), so one organization's hundred jobs do not hold back another's
   * first. The count goes down as jobs leave for good; a count left high by
   * a crash only costs fairness, and runs out after a day.
   */
  async function priorityFor(installation: number | undefined): Promise<number> {
    const load = Number(await bumpLoad([k.load(installation)], 86_400));
    return Math.min(load, 2_000_000);
  }

  async function left(job: Job<JobData> | undefined): Promise<void> {
    if (!job) return;
    const key = k.load(job.data.installationId);
    if ((await redis.decr(key)) < 0) await redis.set(key, 0);
  }

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
        priorityFor(job.installationId),
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
    // Listed from now on; ids older than the jobs BullMQ keeps are dropped as they go.
    const expired = clock.now() - 2 * SEEN_TTL_SECONDS * 1000;
    const reportError = (error: unknown) => options.onError?.(error, undefined);
    await Promise.all([
      listJob([k.index, k.byInstallation(data.installationId)], data.createdAt, id, expired).catch(
        reportError,
      ),
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
        left,
        options,
        log,
        cancellation,
        cancelChannel: k.cancels,
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
    /**
     * Walks the index newest first, a batch at a time. Each job's state
     * comes from BullMQ's sets, read whole once per call, so only jobs that
     * may match a state filter have their hash read (one round trip per
     * batch); stops once `limit` match.
     */
    async list(filter = {}) {
      const limit = filter.limit ?? Number.POSITIVE_INFINITY;
      const found: StoredJobRecord[] = [];
      const { bullState, cancelledIds } = await states();
      // A cancelled job that no worker has ended yet is queued for BullMQ, failed for us.
      const mayMatch = (id: string, state: StoredJobRecord["state"]) =>
        !filter.state ||
        state === filter.state ||
        (filter.state === "failed" && state === "queued" && cancelledIds.has(id));
      const now = clock.now();
      const BATCH = 250;
      for (let start = 0; found.length < limit; ) {
        const ids = await redis.zrevrange(k.index, start, start + BATCH - 1);
        if (ids.length === 0) break;
        start += ids.length;
        const candidates = ids.filter((id) => mayMatch(id, bullState(id)));
        if (candidates.length === 0) continue;
        const batch = redis.pipeline();
        for (const id of candidates) {
          batch.hgetall(queue.toKey(id));
          batch.get(k.cancel(id));
        }
        const replies = (await batch.exec()) ?? [];
        const value = (i: number) => (replies[i]?.[0] ? undefined : replies[i]?.[1]);
        const gone: string[] = [];
        for (const [n, id] of candidates.entries()) {
          const hash = value(n * 2) as Record<string, string> | undefined;
          if (!hash || Object.keys(hash).length === 0) {
            gone.push(id);
            continue;
          }
          const job = Job.fromJSON<JobData>(queue, hash as unknown as JobJson, id);
          const cancelled = parseCancellation(value(n * 2 + 1) as string | null);
          const record = toRecord(job, bullState(id), now, cancelled);
          if (filter.state && record.state !== filter.state) continue;
          if (
            filter.installationId !== undefined &&
            record.installationId !== filter.installationId
          )
            continue;
          if (filter.where && !filter.where(record)) continue;
          found.push(record);
          if (found.length >= limit) break;
        }
        // Removed by BullMQ (kept as long as their records): out of the index too.
        if (gone.length > 0) {
          await redis.zrem(k.index, ...gone);
          await redis.srem(k.cancelled, ...gone);
          start -= gone.length;
        }
      }
      return found;
    },
    async queuedIds(installationId) {
      const [ids, { bullState, cancelledIds }] = await Promise.all([
        redis.zrange(k.byInstallation(installationId), 0, -1),
        states(),
      ]);
      return ids.filter((id) => bullState(id) === "queued" && !cancelledIds.has(id));
    },
    async cancel(id, by) {
      const job = await queue.getJob(id);
      if (!job) return "not_found";
      const bull = await job.getState();
      const state = recordState(bull);
      if (state === "done" || state === "failed") return "finished";
      const running = state === "running";
      if (await cancellation(id)) return running ? "stopping" : "finished";
      const at = clock.now();
      await redis.set(k.cancel(id), JSON.stringify({ by, at }), "EX", SEEN_TTL_SECONDS);
      await redis.sadd(k.cancelled, id);
      // Every worker hears it; the one running the job aborts it.
      await redis.publish(k.cancels, JSON.stringify({ id, by }));
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
        await redis.del(k.cancel(id));
        await redis.srem(k.cancelled, id);
        return requeued();
      }
      if (state !== "failed") return "not_failed";
      await redis.del(k.cancel(id));
      await redis.srem(k.cancelled, id);
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
