import type { Redis } from "ioredis";
import { luaScript } from "./redis-script.js";

/**
 * One job at a time per issue across every worker: a Redis key per job key,
 * holding `<job id>:<run token>`, with a time to live that a timer keeps
 * extending while the run lasts. A worker that dies stops extending it, so
 * it frees itself. The same job taken up again after a crash or a stall
 * (same job id, a new token) takes the lock over at once; the run it
 * replaced then can neither extend nor release it, so its late `finally`
 * does not free the issue under the new run.
 */

export interface KeyLock {
  release(): Promise<void>;
}

const TTL_MS = 60_000;
const RENEW_MS = 20_000;

// Free, this run's own, or an earlier run of the same job (ARGV[2] is "<job id>:").
const ACQUIRE = `
local owner = redis.call("get", KEYS[1])
if not owner or owner == ARGV[1] or string.sub(owner, 1, #ARGV[2]) == ARGV[2] then
  redis.call("set", KEYS[1], ARGV[1], "px", ARGV[3])
  return 1
end
return 0`;
// Delete or extend only a lock this run holds, never a newer holder's.
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;

export function createKeyLock(redis: Redis, prefix: string) {
  const acquire = luaScript(redis, "patchwrightLockAcquire", ACQUIRE);
  const release = luaScript(redis, "patchwrightLockRelease", RELEASE);
  const extend = luaScript(redis, "patchwrightLockExtend", EXTEND);
  return {
    /** `run` tells this run of the job from an earlier one (BullMQ's token for the job). */
    async acquire(key: string, jobId: string, run: string): Promise<KeyLock | null> {
      const name = `${prefix}${key}`;
      const owner = `${jobId}:${run}`;
      if ((await acquire([name], owner, `${jobId}:`, TTL_MS)) !== 1) return null;
      const timer = setInterval(() => {
        void extend([name], owner, TTL_MS).catch(() => {});
      }, RENEW_MS);
      timer.unref();
      return {
        async release() {
          clearInterval(timer);
          await release([name], owner);
        },
      };
    },
  };
}
