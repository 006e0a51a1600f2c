import { join } from "node:path";
import { createLocalQueue } from "../queue/local-queue.js";
import { createRedisQueue } from "../queue/redis-queue.js";
import type { JobQueue, JobRecord } from "../queue/types.js";
import type { ServiceSettings } from "./env.js";

/**
 * The job queue the settings ask for: BullMQ on REDIS_URL when it is set
 * (any number of processes share it), otherwise the embedded one on disk in
 * the cache directory (one process: `npm start` with nothing else).
 */
export function openJobQueue(
  settings: Pick<ServiceSettings, "redisUrl" | "cacheDir" | "maxAttempts" | "jobLockMs">,
  options: {
    clock?: { now(): number };
    onError?: (error: unknown, record: JobRecord | undefined) => void;
  } = {},
): Promise<JobQueue> {
  const common = {
    maxAttempts: settings.maxAttempts,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  };
  if (settings.redisUrl) {
    return createRedisQueue({
      url: settings.redisUrl,
      lockDurationMs: settings.jobLockMs,
      stalledIntervalMs: settings.jobLockMs,
      ...common,
    });
  }
  return createLocalQueue({ dir: join(settings.cacheDir, "jobs"), ...common });
}
