import type { ServiceLog } from "./service-log.js";

/**
 * SIGTERM (every deploy) and SIGINT: stop taking jobs, give the running
 * ones the grace period, hand what is left back to the queue, then exit.
 * A second signal exits at once; jobs still running then are recovered
 * from the queue like after a crash.
 */
export function exitOnSignals(options: {
  stop(): Promise<void>;
  log: ServiceLog;
  graceMs: number;
  exit?: ((code: number) => void) | undefined;
}): void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      options.log.warn({ signal }, "second signal: exiting now");
      exit(1);
      return;
    }
    stopping = true;
    options.log.info(
      { signal, graceSeconds: options.graceMs / 1000 },
      "stopping: no new jobs; running jobs may finish within the grace period, then go back to the queue",
    );
    options.stop().then(
      () => {
        options.log.info({}, "stopped");
        exit(0);
      },
      (error: unknown) => {
        options.log.error({ err: error }, "could not stop cleanly");
        exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
