import Bottleneck from "bottleneck";

/**
 * The spacing GitHub asks for between writes (a second, three for writes
 * that notify people), per installation, as the throttling plugin's
 * `write` and `notifications` limiters (the plugin runs a no-op on them
 * before each write, then the request on its own limiter).
 *
 * Spacing only: no `maxConcurrent`. Kept in Redis (`shared`), a limiter
 * with a concurrency of one holds a slot while the no-op runs, and a
 * process killed in that moment (a crash, `kill -9`, an OOM) never gives it
 * back: Bottleneck frees a dead client's running jobs only when they were
 * given an expiration, and every other process then waited forever for
 * that installation's next write (a worker taking over a job it left hung
 * on its first comment, and would not stop for a deploy). Minimum time
 * between starts is kept in Redis with no slot to hold, and the no-op
 * ends at once, so the spacing is the same.
 */
export interface WriteSpacing {
  write: Bottleneck.Group;
  notifications: Bottleneck.Group;
}

export function writeSpacing(
  secondMs: number,
  shared?: Bottleneck.IORedisConnection | undefined,
): WriteSpacing {
  const store = (id: string) =>
    shared ? { datastore: "ioredis" as const, connection: shared, id } : {};
  return {
    write: new Bottleneck.Group({ minTime: secondMs, ...store("patchwright-write") }),
    notifications: new Bottleneck.Group({
      minTime: 3 * secondMs,
      ...store("patchwright-notifications"),
    }),
  };
}
