import { parseServiceEnv, ServiceEnvError, type ServiceSettings } from "../service/env.js";
import { requireCacheFolder, requireRedis } from "../service/open-queue.js";

/**
 * The App's settings from its environment, or a refusal that names the
 * setting. `ownQueue`: the caller brings the queue (tests), so a missing
 * REDIS_URL leaves no job unrun.
 */
export function appServiceSettings(
  env: Record<string, string | undefined>,
  ownQueue = false,
): ServiceSettings {
  const service = parseServiceEnv(env);
  // The embedded store lives in this process's cache: with no worker here,
  // nothing anywhere would ever run the jobs the webhooks store.
  if (!service.inProcessWorker && !service.redisUrl && !ownQueue) {
    throw new ServiceEnvError(
      "bad environment: PATCHWRIGHT_WORKER=off needs REDIS_URL, so that `patchwright worker` processes can run the jobs; without Redis only this process's own worker could reach them",
    );
  }
  return service;
}

/**
 * What `npm start` checks before Probot starts: the settings, the cache
 * folder (when this process runs jobs) and Redis (when set). Probot opens
 * its own connection to REDIS_URL and logs every failed attempt with a
 * stack, so a bad one is caught here first.
 */
export async function checkAppCanStart(env: Record<string, string | undefined>): Promise<void> {
  const service = appServiceSettings(env);
  if (service.inProcessWorker) await requireCacheFolder(service.cacheDir);
  if (service.redisUrl) await requireRedis(service.redisUrl);
}
