import { Job, type JobJson, type Queue } from "bullmq";
import type { Redis } from "ioredis";
import { type Cancellation, type JobData, toRecord } from "./redis-record.js";
import { luaScript } from "./redis-script.js";
import type { ListFilter, StoredJobRecord } from "./types.js";

// One command on the webhook's answer path.
// KEYS: the index, the installation's  ARGV: created at, id, expired before
const LIST_JOB = `
for i = 1, #KEYS do
  redis.call("ZADD", KEYS[i], ARGV[1], ARGV[2])
  redis.call("ZREMRANGEBYSCORE", KEYS[i], "-inf", ARGV[3])
end
return 0
`;

/**
 * What the Redis queue lists, beside BullMQ's own keys: every job's id by
 * when it was created (all of them, and per installation), and who
 * cancelled which job. A list walks the index newest first and reads only
 * the hashes of the jobs that may match; ids of jobs BullMQ no longer keeps
 * are dropped from it as they are met, and the oldest as new ones come.
 */
export function createJobIndex(options: {
  redis: Redis;
  queue: Queue<JobData>;
  name: string;
  /** How long a job is kept (BullMQ's removeOnComplete/removeOnFail) and its cancellation. */
  retainSeconds: number;
}) {
  const { redis, queue, name, retainSeconds } = options;
  const k = {
    /** Every job's id by when it was created: what `list` walks, newest first. */
    index: `${name}:jobs`,
    /** The same, per installation: a queue position needs no job's hash. */
    byInstallation: (installation: number | undefined) => `${name}:jobs:${installation ?? "-"}`,
    /** Who cancelled a job and when (JSON), for as long as the job is kept. */
    cancel: (id: string) => `${name}:cancel:${id}`,
    /** The ids that have a `cancel` key: a list reads the set, not every key. */
    cancelled: `${name}:cancelled`,
  };
  const listJob = luaScript(redis, "patchwrightListJob", LIST_JOB);

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

  return {
    /** Lists a stored job from now on. */
    add(id: string, createdAt: number, installationId: number | undefined, now: number) {
      const expired = now - 2 * retainSeconds * 1000;
      return listJob([k.index, k.byInstallation(installationId)], createdAt, id, expired);
    },

    async cancellation(id: string): Promise<Cancellation | undefined> {
      return parseCancellation(await redis.get(k.cancel(id)));
    },
    async cancel(id: string, cancellation: Cancellation): Promise<void> {
      await redis.set(k.cancel(id), JSON.stringify(cancellation), "EX", retainSeconds);
      await redis.sadd(k.cancelled, id);
    },
    async uncancel(id: string): Promise<void> {
      await redis.del(k.cancel(id));
      await redis.srem(k.cancelled, id);
    },

    /**
     * Walks the index newest first, a batch at a time. Each job's state
     * comes from BullMQ's sets, read whole once per call, so only jobs that
     * may match a state filter have their hash read (one round trip per
     * batch); stops once `limit` match.
     */
    async list(filter: ListFilter, now: number): Promise<StoredJobRecord[]> {
      const limit = filter.limit ?? Number.POSITIVE_INFINITY;
      const found: StoredJobRecord[] = [];
      const { bullState, cancelledIds } = await states();
      // A cancelled job that no worker has ended yet is queued for BullMQ, failed for us.
      const mayMatch = (id: string, state: StoredJobRecord["state"]) =>
        !filter.state ||
        state === filter.state ||
        (filter.state === "failed" && state === "queued" && cancelledIds.has(id));
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

    async queuedIds(installationId: number | undefined): Promise<string[]> {
      const [ids, { bullState, cancelledIds }] = await Promise.all([
        redis.zrange(k.byInstallation(installationId), 0, -1),
        states(),
      ]);
      return ids.filter((id) => bullState(id) === "queued" && !cancelledIds.has(id));
    },
  };
}

function parseCancellation(raw: string | null | undefined): Cancellation | undefined {
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Cancellation;
    return typeof parsed.by === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}
