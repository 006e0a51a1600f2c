import type { JobState as BullState, Job } from "bullmq";
import {
  cancelledOutcome,
  type JobOutcome,
  jobOutcomeSchema,
  type StoredJobRecord,
} from "./types.js";

/**
 * A BullMQ job read as a job record, with the same fields for the same life
 * cycle as the embedded queue's: BullMQ keeps the state, the starts, when
 * the last one began and when the job ended, the handler's result and why
 * it last failed; the rest is the job's data.
 */

/** What BullMQ stores as the job's data: the record without its state. */
export type JobData = Omit<StoredJobRecord, "id" | "state" | "attempts" | "updatedAt"> & {
  /** Inputs wait in the key's list until the job starts. */
  coalesce: boolean;
  /** Starts cut short by a shutdown: they do not count as attempts. */
  interruptions: number;
  /**
   * What failed on the last attempt, kept before it is reported: a worker
   * killed while reporting leaves it for the one that reports it again.
   */
  lastFailure?: string;
};

export function recordState(state: BullState | "unknown"): StoredJobRecord["state"] {
  if (state === "completed") return "done";
  if (state === "failed") return "failed";
  return state === "active" ? "running" : "queued";
}

/** Runs started, less those a shutdown or a busy issue cut short. */
export function attemptsOf(job: Job<JobData>): number {
  return Math.max(0, job.attemptsStarted - job.data.interruptions);
}

/** Why the job last failed, newest first: BullMQ keeps a reason until the next failure. */
export function lastFailureOf(job: Job<JobData>): string | undefined {
  return job.data.lastFailure ?? (job.failedReason || undefined);
}

/** Who cancelled a job, and when: kept beside the job (redis-queue.ts `cancelKey`). */
export interface Cancellation {
  by: string;
  at: number;
}

/**
 * The record as stored: its inputs are read with its kind's schema apart
 * (job-inputs.ts). A cancelled job that has not ended yet reads as ended
 * when it is only queued (it will not start); a running one runs until it
 * stops.
 */
export function toRecord(
  job: Job<JobData>,
  bullState: StoredJobRecord["state"],
  now: number,
  cancelled?: Cancellation,
): StoredJobRecord {
  const state = cancelled && bullState === "queued" ? "failed" : bullState;
  const {
    coalesce: _coalesce,
    interruptions: _interruptions,
    lastFailure: _last,
    ...data
  } = job.data;
  const outcome =
    cancelled && state === "failed" ? cancelledOutcome(cancelled.by) : outcomeOf(job, state);
  return {
    ...data,
    id: job.id ?? "",
    inputs: data.inputs.length > 0 ? data.inputs : [null],
    state,
    attempts: attemptsOf(job),
    updatedAt: now,
    // BullMQ stamps each start and the end, as the embedded queue does.
    ...(job.processedOn ? { startedAt: job.processedOn } : {}),
    ...(job.finishedOn && (state === "done" || state === "failed")
      ? { finishedAt: job.finishedOn }
      : cancelled && state === "failed"
        ? { finishedAt: cancelled.at }
        : {}),
    ...(outcome ? { outcome } : {}),
  };
}

/**
 * A finished job's outcome is the handler's result (BullMQ's return value);
 * a failed one's, "failure" and why; while attempts are left, "retrying"
 * and what failed last.
 */
function outcomeOf(job: Job<JobData>, state: StoredJobRecord["state"]): JobOutcome | undefined {
  if (state === "done") {
    const parsed = jobOutcomeSchema.safeParse(job.returnvalue);
    return parsed.success ? parsed.data : undefined;
  }
  const failure = state === "failed" ? job.failedReason || undefined : lastFailureOf(job);
  if (!failure) return undefined;
  return { conclusion: state === "failed" ? "failure" : "retrying", message: failure };
}
