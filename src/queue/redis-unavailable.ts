/**
 * A Redis the queue cannot reach when it opens: a wrong REDIS_URL, or a
 * server that is not running. The process refuses to start (the entry
 * names the setting) rather than storing nothing and saying so only in a
 * stream of reconnection errors. A module of its own, without ioredis: the
 * entry that turns it into a refusal loads the Redis client only when
 * REDIS_URL is set (service/open-queue.ts).
 */
export class RedisUnavailableError extends Error {
  override name = "RedisUnavailableError";
}
