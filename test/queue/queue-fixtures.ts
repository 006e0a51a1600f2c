import { afterEach } from "vitest";
import { z } from "zod";
import { createLocalQueue } from "../../src/queue/local-queue.js";
import type { SetTimer } from "../../src/queue/timer.js";
import type {
  JobHandler,
  JobInputSchemas,
  JobQueue,
  JobRecord,
  JobResult,
  NewJob,
  RunningJob,
} from "../../src/queue/types.js";

/** What both queue back ends' tests submit and run: numbered jobs, and runs finished by hand. */

/** The queue tests' one kind: its inputs are whatever the test stores (the service's kinds: service/job-kinds). */
export const TEST_KINDS: JobInputSchemas = { request: z.unknown() };

/**
 * Opens embedded queues that are closed after each test, as the service
 * closes its queue when it stops: a queue left open keeps its journal's file
 * open until the garbage collector closes it, with a warning (and a future
 * Node will throw). Call it at a test file's top level (like useRedisQueues).
 */
export function useLocalQueues(): typeof createLocalQueue {
  let queues: Array<Pick<JobQueue, "close">> = [];
  afterEach(async () => {
    await Promise.all(queues.map((queue) => queue.close()));
    queues = [];
  });
  return async (options) => {
    const queue = await createLocalQueue(options);
    queues.push(queue);
    return queue;
  };
}

let deliveries = 0;

/** A new request job on `key`, with its own delivery and triggering comment. */
export function job(key: string, extra: Partial<NewJob> = {}): NewJob {
  deliveries += 1;
  return {
    kind: "request",
    key,
    deliveryId: `delivery-${deliveries}`,
    triggerId: `${key}:comment:${deliveries}`,
    installationId: 1,
    input: { n: deliveries },
    ...extra,
  };
}

/** A handler whose runs the test finishes by hand; an abort finishes a run as interrupted. */
export function manualHandler() {
  const started: Array<{ job: RunningJob; finish(result: JobResult): void }> = [];
  const gaveUp: JobRecord[] = [];
  const reasons: string[] = [];
  const handler: JobHandler = {
    run: (running) =>
      new Promise<JobResult>((finish) => {
        started.push({ job: running, finish });
        running.signal.addEventListener("abort", () => finish({ status: "interrupted" }));
      }),
    giveUp: async (record, reason) => {
      gaveUp.push(record);
      reasons.push(reason);
    },
  };
  return { handler, started, gaveUp, reasons };
}

/** A handler whose every run asks for a retry, as after GitHub answered 502; runs and reports recorded. */
export function retryingHandler() {
  const runs: JobRecord[] = [];
  const gaveUp: JobRecord[] = [];
  const reasons: string[] = [];
  const handler: JobHandler = {
    run: async (running) => {
      runs.push(running.record);
      return { status: "retry", message: "GitHub answered 502" };
    },
    giveUp: async (record, reason) => {
      gaveUp.push(record);
      reasons.push(reason);
    },
  };
  return { handler, runs, gaveUp, reasons };
}

/** A clock and timers the test moves by hand; `delays` lists every wait asked for. */
export function fakeTime() {
  let now = 1_000_000;
  const timers: Array<{ at: number; fn: () => void; cancelled: boolean }> = [];
  const delays: number[] = [];
  const setTimer: SetTimer = (fn, ms) => {
    const timer = { at: now + ms, fn, cancelled: false };
    timers.push(timer);
    delays.push(ms);
    return { cancel: () => (timer.cancelled = true) };
  };
  return {
    clock: { now: () => now },
    setTimer,
    delays,
    advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((t) => !t.cancelled && t.at <= now)) {
        timer.cancelled = true;
        timer.fn();
      }
    },
    /** The earliest timer still pending, if any. */
    nextAt(): number | undefined {
      const pending = timers.filter((t) => !t.cancelled).map((t) => t.at);
      return pending.length > 0 ? Math.min(...pending) : undefined;
    },
  };
}
