import type { Redis } from "ioredis";

/**
 * One job at a time per issue across every worker: a Redis key per job key,
 * set only if absent, holding the job's id, with a time to live that a
 * timer keeps extending while the job runs. A worker that dies stops
 * extending it, so it frees itself; the same job, taken up again after a
 * crash, may take its own lock back at once.
 */

export interface KeyLock {
  release(): Promise<void>;
}

const TTL_MS = 60_000;
const RENEW_MS = 20_000;

// Delete or extend only a lock this job holds, never a newer holder's.
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

export function createKeyLock(redis: Redis, prefix: string) {
  return {
    async acquire(key: string, owner: string): Promise<KeyLock | null> {
      const name = `${prefix}${key}`;
      const taken = await redis.set(name, owner, "PX", TTL_MS, "NX");
      if (!taken && (await redis.eval(EXTEND, 1, name, owner, TTL_MS)) !== 1) return null;
      const timer = setInterval(() => {
        void redis.eval(EXTEND, 1, name, owner, TTL_MS).catch(() => {});
      }, RENEW_MS);
      timer.unref();
      return {
        async release() {
          clearInterval(timer);
          await redis.eval(RELEASE, 1, name, owner);
        },
      };
    },
  };
}
