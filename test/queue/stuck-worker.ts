/**
 * A worker process for the queue tests: it takes one job, says "picked",
 * and never finishes it, so the test can kill it mid-job.
 * Usage: node --import tsx stuck-worker.ts <redis url> <queue name> [max attempts]
 */
import { createRedisQueue } from "../../src/queue/redis-queue.js";

const [url = "", name = "", attempts] = process.argv.slice(2);
const queue = await createRedisQueue({
  url,
  name,
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
  ...(attempts ? { maxAttempts: Number(attempts) } : {}),
});
queue.startWorker(
  {
    run: () => {
      process.stdout.write("picked\n");
      return new Promise(() => {});
    },
    giveUp: async () => {
      process.stdout.write("gave up\n");
    },
  },
  { concurrency: 1 },
);
