import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createRedisQueue, type RedisQueueOptions } from "../../src/queue/redis-queue.js";
import type { JobQueue, SubmitResult } from "../../src/queue/types.js";
import { type RedisServer, startRedis } from "../helpers/redis-server.js";
import { TEST_KINDS } from "./queue-fixtures.js";

// Short enough for quick tests, long enough that a loaded machine does not lose a live lock.
const FAST = { lockDurationMs: 2_500, stalledIntervalMs: 1_000, retryBaseMs: 50 };

/**
 * A real redis-server for the file's tests (started once, on a free loopback
 * port) and queues on it with fast locks, each closed after its test.
 */
export function useRedisQueues() {
  let server: RedisServer | undefined;
  let queues: JobQueue[] = [];
  let raw: Redis | undefined;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(queues.map((q) => q.close()));
    queues = [];
  });
  afterAll(() => {
    raw?.disconnect();
    return server?.stop();
  });
  return {
    get url(): string {
      if (!server) throw new Error("redis-server is not started yet (use it inside a test)");
      return server.url;
    },
    /** A plain client on the same server, for what a test reads or breaks behind the queue's back. */
    get raw(): Redis {
      raw ??= new Redis(this.url);
      return raw;
    },
    async open(
      name: string,
      extra: Partial<RedisQueueOptions<typeof TEST_KINDS>> = {},
    ): Promise<JobQueue> {
      const queue = await createRedisQueue({
        url: this.url,
        name,
        kinds: TEST_KINDS,
        ...FAST,
        ...extra,
      });
      queues.push(queue);
      return queue;
    },
  };
}

/** The id a submit stored or folded into; "" for a duplicate. */
export const idOf = (result: SubmitResult) => (result.status === "duplicate" ? "" : result.id);
