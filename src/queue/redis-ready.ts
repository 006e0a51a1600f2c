import { Redis } from "ioredis";
import { errorMessage } from "../error-message.js";
import { RedisUnavailableError } from "./redis-unavailable.js";

/**
 * How long opening a queue waits for Redis: a few seconds, and three failed
 * connection attempts in a row (a refused port or an unknown host fail at
 * once; a Redis still starting gets a moment).
 */
export const REDIS_READY = { timeoutMs: 5_000, failures: 3 };

/** Where the connection goes, without its credentials. */
function addressOf(redis: Redis): string {
  const { host, port, path } = redis.options;
  return path ? path : `${host ?? "localhost"}:${port ?? 6379}`;
}

/**
 * Resolves once the connection is ready. Rejects after `failures`
 * connection attempts failed in a row (refused, or a host that does not
 * resolve: it says so at once) or `timeoutMs` without an answer (a host
 * that drops packets), with the last error it saw.
 */
export function whenReady(
  redis: Redis,
  options: { timeoutMs: number; failures: number },
): Promise<void> {
  if (redis.status === "ready") return Promise.resolve();
  return new Promise((done, fail) => {
    let failed = 0;
    let last: unknown;
    const finish = (error?: RedisUnavailableError) => {
      clearTimeout(timer);
      redis.off("ready", onReady);
      redis.off("error", onError);
      if (error) fail(error);
      else done();
    };
    const refuse = (what: string) =>
      finish(
        new RedisUnavailableError(
          `Redis at ${addressOf(redis)} ${what}${last ? ` (${errorMessage(last).split("\n")[0]})` : ""}`,
        ),
      );
    const onReady = () => finish();
    const onError = (error: unknown) => {
      last = error;
      if (++failed >= options.failures) refuse("cannot be reached");
    };
    const timer = setTimeout(
      () => refuse(`did not answer within ${Math.round(options.timeoutMs / 1000)} s`),
      options.timeoutMs,
    );
    redis.on("ready", onReady);
    redis.on("error", onError);
  });
}

/** Whether Redis answers at `url`, on a connection of its own that is closed again. */
export async function probeRedis(
  url: string,
  options: { timeoutMs: number; failures: number },
): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  // Every failed attempt is an error event; whenReady counts them.
  redis.on("error", () => {});
  try {
    await whenReady(redis, options);
  } finally {
    redis.disconnect();
  }
}
