import { join } from "node:path";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import { jobInputSchemas, type ServiceQueue } from "../../src/service/job-kinds/inputs.js";

/**
 * The embedded queue `npm start` uses, with time that stands still but for
 * the waits it skips: a delayed retry is due as soon as it is scheduled, and
 * each delay is recorded in `delays`, exactly.
 */
export function instantRetries(
  delays: number[],
  maxAttempts = 3,
): (env: Record<string, string>) => Promise<ServiceQueue> {
  return (env) => {
    const start = Date.now();
    let skipped = 0;
    return createLocalQueue({
      kinds: jobInputSchemas,
      dir: join(env.PATCHWRIGHT_CACHE_DIR ?? "", "jobs"),
      maxAttempts,
      clock: { now: () => start + skipped },
      setTimer: (fn, ms) => {
        if (ms > 0) {
          delays.push(ms);
          skipped += ms;
        }
        const handle = setImmediate(fn);
        return { cancel: () => clearImmediate(handle) };
      },
    });
  };
}
