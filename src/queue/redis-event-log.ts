import type { Redis } from "ioredis";
import {
  type JobEventLog,
  LOG_CAP,
  LOG_RETAIN_MS,
  type LogEntry,
  type LogListener,
  orderedListener,
} from "./event-log.js";
import { luaScript } from "./redis-script.js";

/**
 * The event log on Redis: a stream per job (`<name>:log:<id>`) whose entry
 * ids are the entries' indexes (`<index + 1>-0`, taken from a counter in the
 * same script, so two workers never share one), capped with `MAXLEN ~ cap`
 * and expiring `retainMs` after its last entry. Each append is published on
 * the job's channel too; a process holds one subscriber connection for all
 * its viewers, subscribed to the jobs someone here is watching.
 */

// KEYS: stream, counter  ARGV: entry JSON, cap, ttl s, channel
const APPEND = `
local n = redis.call("INCR", KEYS[2])
redis.call("XADD", KEYS[1], "MAXLEN", "~", ARGV[2], n .. "-0", "e", ARGV[1])
redis.call("EXPIRE", KEYS[1], ARGV[3])
redis.call("EXPIRE", KEYS[2], ARGV[3])
redis.call("PUBLISH", ARGV[4], (n - 1) .. " " .. ARGV[1])
return n - 1
`;

export function createRedisEventLog(options: {
  redis: Redis;
  /** A new connection, for the subscriber; closed by whoever made it. */
  connection: () => Redis;
  name: string;
  cap?: number;
  retainMs?: number;
}): JobEventLog {
  const { redis, name } = options;
  const cap = options.cap ?? LOG_CAP;
  const ttl = Math.ceil((options.retainMs ?? LOG_RETAIN_MS) / 1000);
  const stream = (jobId: string) => `${name}:log:${jobId}`;
  const counter = (jobId: string) => `${name}:log-n:${jobId}`;
  const channel = (jobId: string) => `${name}:log-feed:${jobId}`;
  const append = luaScript(redis, "patchwrightAppend", APPEND);
  let subscriber: Redis | undefined;
  /** Per channel watched here: the listeners, and the SUBSCRIBE that makes it live. */
  const watched = new Map<string, { listeners: Set<LogListener>; live: Promise<unknown> }>();

  function feed(): Redis {
    if (subscriber) return subscriber;
    subscriber = options.connection();
    subscriber.on("message", (from: string, message: string) => {
      const watch = watched.get(from);
      if (!watch) return;
      const space = message.indexOf(" ");
      const index = Number(message.slice(0, space));
      let entry: unknown;
      try {
        entry = JSON.parse(message.slice(space + 1));
      } catch {
        return;
      }
      for (const listener of watch.listeners) listener(entry, index);
    });
    return subscriber;
  }

  const log: JobEventLog = {
    async append(jobId, entry) {
      await append(
        [stream(jobId), counter(jobId)],
        JSON.stringify(entry ?? null),
        cap,
        ttl,
        channel(jobId),
      );
    },
    async read(jobId, from = 0) {
      const raw = (await redis.xrange(stream(jobId), `${from + 1}-0`, "+")) as Array<
        [string, string[]]
      >;
      const entries: LogEntry[] = [];
      for (const [id, fields] of raw) {
        const value = fields[fields.indexOf("e") + 1];
        if (value === undefined) continue;
        try {
          entries.push({ index: Number(id.split("-")[0]) - 1, entry: JSON.parse(value) });
        } catch {
          // Written by something else: skipped.
        }
      }
      const last = entries.at(-1)?.index;
      const next = last !== undefined ? last + 1 : Number((await redis.get(counter(jobId))) ?? 0);
      return { entries, next: Math.max(from, next) };
    },
    subscribe(jobId, listener, from) {
      const ordered = orderedListener(listener, from);
      const key = channel(jobId);
      let watch = watched.get(key);
      if (!watch) {
        watch = {
          listeners: new Set(),
          live: feed()
            .subscribe(key)
            .catch(() => {}),
        };
        watched.set(key, watch);
      }
      watch.listeners.add(ordered.live);
      // The stored entries are read once the channel is live: nothing falls between.
      ordered.replay(watch.live.then(() => log.read(jobId, from)));
      const own = watch;
      return () => {
        own.listeners.delete(ordered.live);
        if (own.listeners.size > 0 || watched.get(key) !== own) return;
        watched.delete(key);
        void subscriber?.unsubscribe(key).catch(() => {});
      };
    },
    async close() {
      watched.clear();
      subscriber?.disconnect();
      subscriber = undefined;
    },
  };
  return log;
}
