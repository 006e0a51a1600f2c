import { join } from "node:path";
import { createLocalQueue } from "../queue/local-queue.js";
import { RedisUnavailableError } from "../queue/redis-unavailable.js";
import type { StoredJobRecord } from "../queue/types.js";
import { type ServiceSettings, withoutCredentials } from "./env.js";
import { jobInputSchemas, type ServiceQueue } from "./job-kinds/inputs.js";
import { folderProblem, requireWritableFolder, StartupRefusal } from "./startup-refusal.js";

/**
 * The job queue the settings ask for: BullMQ on REDIS_URL when it is set
 * (any number of processes share it), otherwise the embedded one on disk in
 * the cache directory (one process: `npm start` with nothing else). A store
 * that cannot be used (a Redis that does not answer, a folder that cannot
 * be written) is a StartupRefusal naming the setting. The queue brings its
 * jobs' event log on the same store (`queue.log`: JSONL files beside the
 * records, or Redis streams), which the workers record into and
 * jobs-view/ (`createJobsView({ queue })`) reads.
 *
 * BullMQ and ioredis load only when REDIS_URL is set: the embedded store
 * needs neither, and they were about a third of the App's module loading
 * (measured on the 2-core VM, Node 20: 0.2 s of 0.7 s).
 */
export async function openJobQueue(
  settings: Pick<ServiceSettings, "redisUrl" | "cacheDir" | "maxAttempts" | "jobLockMs">,
  options: {
    clock?: { now(): number };
    onError?: (error: unknown, record: StoredJobRecord | undefined) => void;
  } = {},
): Promise<ServiceQueue> {
  const common = {
    kinds: jobInputSchemas,
    maxAttempts: settings.maxAttempts,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  };
  if (settings.redisUrl) {
    const { createRedisQueue } = await import("../queue/redis-queue.js");
    try {
      return await createRedisQueue({
        url: settings.redisUrl,
        lockDurationMs: settings.jobLockMs,
        stalledIntervalMs: settings.jobLockMs,
        ...common,
      });
    } catch (error) {
      throw redisRefusal(error, settings.redisUrl);
    }
  }
  await requireCacheFolder(settings.cacheDir);
  const dir = join(settings.cacheDir, "jobs");
  try {
    return await createLocalQueue({ dir, ...common });
  } catch (error) {
    const path = (error as NodeJS.ErrnoException | null)?.path;
    if (!path) throw error;
    throw new StartupRefusal(
      `the job store ${dir} cannot be used: ${await folderProblem(path, error)}. It lives in PATCHWRIGHT_CACHE_DIR: set that to a folder this process can write.`,
    );
  }
}

/**
 * Whether Redis answers at REDIS_URL, before anything else connects to it
 * (`npm start` checks before Probot, which connects to it too, starts).
 */
export async function requireRedis(url: string): Promise<void> {
  const { probeRedis, REDIS_READY } = await import("../queue/redis-ready.js");
  await probeRedis(url, REDIS_READY).catch((error: unknown) => {
    throw redisRefusal(error, url);
  });
}

function redisRefusal(error: unknown, url: string): unknown {
  if (!(error instanceof RedisUnavailableError)) return error;
  return new StartupRefusal(
    `the job queue's ${error.message}. Check REDIS_URL (now ${withoutCredentials(url)}) and that Redis runs there.`,
  );
}

/** Mirrors, worktrees and the embedded job store live here: a worker cannot run without it. */
export function requireCacheFolder(cacheDir: string): Promise<void> {
  return requireWritableFolder(
    cacheDir,
    "the cache folder",
    "Set PATCHWRIGHT_CACHE_DIR to a folder this process can write.",
  );
}
