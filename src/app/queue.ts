import PQueue from "p-queue";
import { createSeenSet } from "./seen-set.js";

/**
 * Where webhook handlers put jobs so the webhook can be answered at once.
 * Kept small and async so a distributed implementation can stand in for the
 * in-process one without changing callers.
 */

export interface QueueJob {
  /** Jobs with the same key run one at a time, in order (see `jobKey`). */
  key: string;
  /** X-GitHub-Delivery: a delivery seen before is never run again. */
  deliveryId: string;
  run: () => Promise<void>;
}

export interface EnqueueResult {
  /** "queued" jobs will run later; "duplicate" ones never. */
  status: "started" | "queued" | "duplicate";
  /**
   * When queued behind its key: the earlier jobs for that key, the running
   * one included. When queued for a free slot: the jobs waiting ahead of it
   * (0 = next to start). Always 0 for "started" and "duplicate".
   */
  waitingAhead: number;
}

export interface JobQueue {
  enqueue(job: QueueJob): Promise<EnqueueResult>;
  /** Resolves when nothing runs and nothing waits. */
  onIdle(): Promise<void>;
  /** Jobs waiting to run. */
  readonly size: number;
  /** Jobs running now. */
  readonly pending: number;
}

export interface InProcessQueueOptions {
  /** Jobs running at once across all keys. */
  concurrency?: number;
  /** How many delivery ids to remember for duplicate detection. */
  dedupeWindow?: number;
  /** Receives what a job threw; the queue itself carries on. */
  onError?: (error: unknown, job: QueueJob) => void;
}

export function createInProcessQueue(options: InProcessQueueOptions = {}): JobQueue {
  const { concurrency = 2, dedupeWindow = 1000 } = options;
  const onError =
    options.onError ??
    ((error: unknown, job: QueueJob) =>
      console.error(`Job ${job.key} (delivery ${job.deliveryId}) failed:`, error));
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }

  const pool = new PQueue({ concurrency });
  /** Per key: the job holding the key (running or waiting for a slot), then those behind it. */
  const lanes = new Map<string, QueueJob[]>();
  const seen = createSeenSet(dedupeWindow);
  let sequence = 0;
  const order = new WeakMap<QueueJob, number>();

  const schedule = (job: QueueJob, onStart?: () => void) => {
    // Earlier requests go first, so a job that waited for its key does not
    // also wait behind requests that arrived after it.
    const priority = -(order.get(job) ?? 0);
    void pool.add(
      async () => {
        onStart?.();
        try {
          await job.run();
        } catch (error) {
          report(error, job);
        } finally {
          release(job.key);
        }
      },
      { priority },
    );
  };

  const report = (error: unknown, job: QueueJob) => {
    try {
      onError(error, job);
    } catch {
      // A failing error reporter must not stop the lane from moving on.
    }
  };

  const release = (key: string) => {
    const lane = lanes.get(key);
    lane?.shift();
    const next = lane?.[0];
    if (next) schedule(next);
    else lanes.delete(key);
  };

  return {
    async enqueue(job) {
      if (!seen.firstSighting([job.deliveryId])) return { status: "duplicate", waitingAhead: 0 };
      order.set(job, sequence++);

      const lane = lanes.get(job.key);
      if (lane) {
        lane.push(job);
        return { status: "queued", waitingAhead: lane.length - 1 };
      }
      lanes.set(job.key, [job]);
      let started = false;
      // p-queue starts a job synchronously when a slot is free.
      schedule(job, () => {
        started = true;
      });
      // The newest job sorts last, so everything else waiting for a slot is ahead of it.
      return started
        ? { status: "started", waitingAhead: 0 }
        : { status: "queued", waitingAhead: pool.size - 1 };
    },
    onIdle: () => pool.onIdle(),
    get size() {
      let behindKey = 0;
      for (const lane of lanes.values()) behindKey += lane.length - 1;
      return pool.size + behindKey;
    },
    get pending() {
      return pool.pending;
    },
  };
}
