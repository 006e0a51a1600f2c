import type { ServiceLog } from "./service-log.js";

/**
 * How long past the grace period a stop may take before the process exits
 * anyway. After the grace period the running jobs are aborted and save a
 * checkpoint; one that waits on something that never comes (a write queued
 * behind a dead process's lock, a hung git) would keep the process up until
 * the orchestrator kills it, so the bound makes "it exits" true whatever a
 * job does. The queue then takes the job back as after a crash.
 */
export const STOP_BOUND_MS = 30_000;

export interface SignalStopOptions {
  /** Calls `handler` on SIGTERM and SIGINT (or the CLI's interrupts); returns the unsubscribe. */
  subscribe(handler: (signal?: string) => void): () => void;
  /** Stops taking jobs, gives the running ones the grace period, hands back what is left. */
  stop(): Promise<void>;
  log: ServiceLog;
  graceMs: number;
  /** Past grace + this, the process exits (default STOP_BOUND_MS). */
  boundMs?: number | undefined;
  /** The stop ended: 0 when it went well, 1 when it failed. */
  stopped(code: number): void;
  /** Ends the process at once: a second signal, or a stop past its bound. */
  exitNow(code: number): void;
}

/**
 * SIGTERM (every deploy) and SIGINT: stop taking jobs, give the running
 * ones the grace period, hand what is left back to the queue, then exit.
 * A second signal exits at once, and so does a stop still going
 * `boundMs` after the grace period; jobs still running then are recovered
 * from the queue like after a crash. Used by `npm start` and
 * `patchwright worker`.
 */
export function stopOnSignals(options: SignalStopOptions): void {
  let stopping = false;
  let bound: ReturnType<typeof setTimeout> | undefined;
  const onSignal = (signal?: string) => {
    if (stopping) {
      options.log.warn({ signal }, "second signal: exiting now");
      options.exitNow(1);
      return;
    }
    stopping = true;
    options.log.info(
      { signal, graceSeconds: options.graceMs / 1000 },
      "stopping: no new jobs; running jobs may finish within the grace period, then go back to the queue",
    );
    const boundMs = options.boundMs ?? STOP_BOUND_MS;
    // Not unref'd: a stop that hangs must end here, not when the hung job lets go.
    bound = setTimeout(() => {
      options.log.error(
        { graceSeconds: options.graceMs / 1000, boundSeconds: boundMs / 1000 },
        "still stopping after the grace period and the bound: exiting now; the queue takes back the jobs left",
      );
      options.exitNow(1);
    }, options.graceMs + boundMs);
    const end = (code: number) => {
      clearTimeout(bound);
      unsubscribe();
      options.stopped(code);
    };
    options.stop().then(
      () => {
        options.log.info({}, "stopped");
        end(0);
      },
      (error: unknown) => {
        options.log.error({ err: error }, "could not stop cleanly");
        end(1);
      },
    );
  };
  const unsubscribe = options.subscribe(onSignal);
}

/** SIGTERM and SIGINT of this process, as `stopOnSignals` subscribes to them. */
export function processSignals(handler: (signal?: string) => void): () => void {
  process.on("SIGTERM", handler);
  process.on("SIGINT", handler);
  return () => {
    process.off("SIGTERM", handler);
    process.off("SIGINT", handler);
  };
}
