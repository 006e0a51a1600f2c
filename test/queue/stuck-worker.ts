/**
 * A worker process for the queue tests that never finishes what it starts,
 * so the test can kill it mid-job. Mode "run" (the default): it takes one
 * job, says "picked" and never returns. Mode "report": every run asks for
 * a retry (retries due after 50 ms); once the job is out of attempts it
 * says "reporting" and never finishes the report.
 * Usage: node stuck-worker.js (compiled, helpers/source-build.ts) <redis url> <queue name> [max attempts] [run|report]
 */
import { createRedisQueue } from "../../src/queue/redis-queue.js";
import { TEST_KINDS } from "./queue-fixtures.js";

const [url = "", name = "", attempts, mode = "run"] = process.argv.slice(2);
const queue = await createRedisQueue({
  url,
  name,
  kinds: TEST_KINDS,
  lockDurationMs: 1_000,
  stalledIntervalMs: 500,
  retryBaseMs: 50,
  ...(attempts ? { maxAttempts: Number(attempts) } : {}),
});
queue.startWorker(
  mode === "report"
    ? {
        run: async () => ({ status: "retry", message: "GitHub answered 502" }),
        giveUp: () => {
          process.stdout.write("reporting\n");
          return new Promise(() => {});
        },
      }
    : {
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
