import type { Redis } from "ioredis";
import { luaScript } from "./redis-script.js";
import type { NewJob, SubmitResult } from "./types.js";

/**
 * Deduplication and coalescing for the Redis queue. Each step is one Lua
 * script, so two App processes (or one burst of redeliveries) never
 * interleave inside it: a request is refused, folded into the job waiting
 * on its issue, or given a new job, and the job that starts takes every
 * folded input at once.
 *
 * Keys, per queue:
 * - `seen:<delivery or comment id>`: the job that holds that request. While
 *   its job is being stored it reads `?<id>` and lives only a minute, so a
 *   submit that died half way does not block a redelivery for long.
 * - `pending:<issue>`: inputs waiting for the next job on the issue.
 * - `pending-job:<issue>`: that job (`?<id>` while it is being stored).
 * - `taken:<job id>`: what the job took when it started, so a run taken up
 *   again after a crash finds the same inputs.
 */

const PROVISIONAL_MS = 60_000;

// A claim is held while its job is being stored (`?id`, or the key's waiting
// job is still `?id`) or while BullMQ has the job. A claim whose job is gone
// (never stored, or removed) may be taken over by a redelivery.
const HELD = `
local function held(owner, marker, prefix)
  if string.sub(owner, 1, 1) == "?" then return true end
  if marker == "?" .. owner then return true end
  return redis.call("EXISTS", prefix .. owner) == 1
end
`;

// KEYS: pending list, waiting-job marker, seen keys...
// ARGV: new id, coalesce ("1"/"0"), input JSON, BullMQ job key prefix, provisional ms, seen ttl s
const ADMIT = `${HELD}
local marker = redis.call("GET", KEYS[2])
for i = 3, #KEYS do
  local owner = redis.call("GET", KEYS[i])
  if owner and held(owner, marker, ARGV[4]) then return {"duplicate"} end
end
if ARGV[2] == "1" then
  local into = nil
  if marker then
    if string.sub(marker, 1, 1) == "?" then
      into = string.sub(marker, 2)
    elseif redis.call("EXISTS", ARGV[4] .. marker) == 1
      and redis.call("HEXISTS", ARGV[4] .. marker, "finishedOn") == 0 then
      -- Stored, not started (its start deletes the marker) and not failed before it started.
      into = marker
    end
  end
  redis.call("RPUSH", KEYS[1], ARGV[3])
  if into then
    for i = 3, #KEYS do redis.call("SET", KEYS[i], into, "EX", ARGV[6]) end
    return {"coalesced", into}
  end
  redis.call("SET", KEYS[2], "?" .. ARGV[1], "PX", ARGV[5])
end
for i = 3, #KEYS do redis.call("SET", KEYS[i], "?" .. ARGV[1], "PX", ARGV[5]) end
return {"queued", ARGV[1]}
`;

// The job is stored: its claims and marker keep for the retention time.
// KEYS: waiting-job marker, seen keys...  ARGV: id, seen ttl s
const CONFIRM = `
local provisional = "?" .. ARGV[1]
for i = 1, #KEYS do
  if redis.call("GET", KEYS[i]) == provisional then
    redis.call("SET", KEYS[i], ARGV[1], "EX", ARGV[2])
  end
end
return 0
`;

// Storing the job failed: the caller answers 5xx and GitHub may redeliver,
// so undo the claims, the marker and this request's input.
// KEYS: pending list, waiting-job marker, seen keys...  ARGV: id, input JSON or ""
const WITHDRAW = `
local provisional = "?" .. ARGV[1]
for i = 2, #KEYS do
  if redis.call("GET", KEYS[i]) == provisional then redis.call("DEL", KEYS[i]) end
end
if ARGV[2] ~= "" then redis.call("LREM", KEYS[1], -1, ARGV[2]) end
return 0
`;

// KEYS: pending list, waiting-job marker, taken list  ARGV: job id, ttl s
const TAKE = `
if redis.call("EXISTS", KEYS[3]) == 0 then
  if redis.call("EXISTS", KEYS[1]) == 1 then
    redis.call("RENAME", KEYS[1], KEYS[3])
    redis.call("EXPIRE", KEYS[3], ARGV[2])
  end
  -- Only this job's own marker: a newer one belongs to a job queued behind it.
  local marker = redis.call("GET", KEYS[2])
  if marker == ARGV[1] or marker == "?" .. ARGV[1] then redis.call("DEL", KEYS[2]) end
end
return redis.call("LRANGE", KEYS[3], 0, -1)
`;

export interface RedisIntake {
  /** Refuses a duplicate, folds into the waiting job, or reserves `id` for a new job. */
  admit(job: NewJob, id: string): Promise<SubmitResult>;
  /** The new job is stored. */
  confirm(job: NewJob, id: string): Promise<void>;
  /** Storing the new job failed. */
  withdraw(job: NewJob, id: string): Promise<void>;
  /** Every input waiting for the job's key, for the job that starts now (the same ones again on a later start). */
  take(key: string, jobId: string): Promise<unknown[]>;
  /** Inputs waiting for the next job on `key`. */
  waiting(key: string): Promise<number>;
}

export function createRedisIntake(
  redis: Redis,
  options: { name: string; jobKeyPrefix: string; retainSeconds: number },
): RedisIntake {
  const { name, jobKeyPrefix, retainSeconds } = options;
  const seen = (id: string) => `${name}:seen:${id}`;
  const pending = (key: string) => `${name}:pending:${key}`;
  const marker = (key: string) => `${name}:pending-job:${key}`;
  const claims = (job: NewJob) =>
    [job.deliveryId, ...(job.triggerId ? [job.triggerId] : [])].map(seen);
  const admit = luaScript(redis, "patchwrightAdmit", ADMIT);
  const confirm = luaScript(redis, "patchwrightConfirm", CONFIRM);
  const withdraw = luaScript(redis, "patchwrightWithdraw", WITHDRAW);
  const take = luaScript(redis, "patchwrightTake", TAKE);

  return {
    async admit(job, id) {
      const [status, owner] = (await admit(
        [pending(job.key), marker(job.key), ...claims(job)],
        id,
        job.coalesce ? "1" : "0",
        JSON.stringify(job.input ?? null),
        jobKeyPrefix,
        PROVISIONAL_MS,
        retainSeconds,
      )) as [string, string?];
      if (status === "duplicate") return { status };
      return { status: status === "coalesced" ? "coalesced" : "queued", id: owner ?? id };
    },
    async confirm(job, id) {
      await confirm([marker(job.key), ...claims(job)], id, retainSeconds);
    },
    async withdraw(job, id) {
      const input = job.coalesce ? JSON.stringify(job.input ?? null) : "";
      await withdraw([pending(job.key), marker(job.key), ...claims(job)], id, input);
    },
    async take(key, jobId) {
      const items = (await take(
        [pending(key), marker(key), `${name}:taken:${jobId}`],
        jobId,
        retainSeconds,
      )) as string[];
      return items.map((item) => JSON.parse(item) as unknown);
    },
    waiting: (key) => redis.llen(pending(key)),
  };
}
