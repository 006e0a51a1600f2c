import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import type { JobData } from "./redis-record.js";
import { luaScript } from "./redis-script.js";

// One command on the webhook's answer path. KEYS: the counter  ARGV: ttl s
const BUMP_LOAD = `
local load = redis.call("INCR", KEYS[1])
redis.call("EXPIRE", KEYS[1], ARGV[1])
return load
`;

const LOAD_TTL_SECONDS = 86_400;

/**
 * A fair share between installations: a job's priority is how many jobs
 * its installation already has in the queue (BullMQ runs lower numbers
 * first), so one organization's hundred jobs do not hold back another's
 * first. The count goes down as jobs leave for good; a count left high by
 * a crash only costs fairness, and runs out after a day.
 */
export function createLoadCounter(redis: Redis, name: string) {
  const key = (installation: number | undefined) => `${name}:load:${installation ?? "-"}`;
  const bump = luaScript(redis, "patchwrightBumpLoad", BUMP_LOAD);
  return {
    /** Counts a new job of the installation in; its priority. */
    async priorityFor(installation: number | undefined): Promise<number> {
      const load = Number(await bump([key(installation)], LOAD_TTL_SECONDS));
      return Math.min(load, 2_000_000);
    },
    /** Counts a job out, once it left the queue for good. */
    async left(job: Job<JobData> | undefined): Promise<void> {
      if (!job) return;
      const counter = key(job.data.installationId);
      if ((await redis.decr(counter)) < 0) await redis.set(counter, 0);
    },
  };
}
