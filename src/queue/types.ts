import * as z from "../zod.js";
import type { JobEventLog } from "./event-log.js";

/**
 * Jobs as data. A record holds everything a worker needs to run a job, in
 * any process, after any restart: nothing a worker uses is captured in a
 * closure. Stored before the webhook is answered; updated as the job goes.
 *
 * The queue is generic: it knows no kind of job. Whoever opens it hands it
 * the input schema of each kind it holds (`JobInputSchemas`, the service's
 * is service/job-kinds/index.ts), and it reads every input with its kind's
 * schema when a job is stored and when a record is handed to a worker (see
 * job-inputs.ts). A record is then a union on `kind` whose `inputs` have
 * that kind's type.
 */

/** The input schema of each kind of job a queue holds, by kind. */
export type JobInputSchemas = { readonly [kind: string]: z.core.$ZodType };

type KindOf<S extends JobInputSchemas> = keyof S & string;

export const jobStateSchema = z.enum(["queued", "running", "done", "failed"]);
export type JobState = z.infer<typeof jobStateSchema>;

/**
 * How the job ended (done: the handler's conclusion; failed: "failure"), or
 * while attempts are left, "retrying" with what failed last.
 */
export const jobOutcomeSchema = z.object({
  conclusion: z.string(),
  message: z.optional(z.string()),
  pullRequest: z.optional(z.object({ number: z.number().check(z.int()), url: z.string() })),
  /** Who cancelled the job (conclusion "cancelled"). */
  by: z.optional(z.string()),
});

/** What a job's runs used so far, kept on the record so a list of jobs needs no log. */
export const jobStatsSchema = z.object({
  turns: z.number().check(z.nonnegative()),
  tokens: z.number().check(z.nonnegative()),
  costUsd: z.number().check(z.nonnegative()),
});

export type JobStats = z.infer<typeof jobStatsSchema>;

export type JobOutcome = z.infer<typeof jobOutcomeSchema>;

/**
 * A record as it is stored, whatever its kind: its inputs are read with the
 * kind's schema apart (job-inputs.ts), so a record of a kind this version
 * does not know, or with an input it cannot read, still loads and fails alone.
 */
export const storedJobRecordSchema = z.object({
  id: z.string().check(z.minLength(1)),
  /** Which kind of job: the key of its input schema in the queue's `JobInputSchemas`. */
  kind: z.string().check(z.minLength(1)),
  /** Jobs with the same key run one at a time (an issue or PR; a repository's deps). */
  key: z.string().check(z.minLength(1)),
  deliveryId: z.string().check(z.minLength(1)),
  /** The comment or review that asked (requests/request.ts triggerKey). */
  triggerId: z.optional(z.string()),
  /** Delivery and triggering ids of the requests folded into this job after the first. */
  folded: z.optional(z.array(z.string())),
  installationId: z.optional(z.number().check(z.int())),
  /** The kind's input, one per request; more than one when rapid requests were coalesced. */
  inputs: z.array(z.unknown()).check(z.minLength(1)),
  state: jobStateSchema,
  /** Runs started, including one a crash or a deploy cut short. */
  attempts: z.number().check(z.int(), z.nonnegative()),
  /** Earliest time (ms) a retry may start. */
  notBefore: z.optional(z.number()),
  trackingComment: z.optional(z.object({ id: z.number().check(z.int()), url: z.string() })),
  branch: z.optional(z.string()),
  /** The last commit pushed as a checkpoint of the work (see job/checkpoint.ts). */
  checkpoint: z.optional(z.string()),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** When the latest attempt started. */
  startedAt: z.optional(z.number()),
  finishedAt: z.optional(z.number()),
  outcome: z.optional(jobOutcomeSchema),
  /** Turns, tokens and cost of the job's runs so far (all attempts). */
  stats: z.optional(jobStatsSchema),
});

export type StoredJobRecord = z.infer<typeof storedJobRecordSchema>;

/** A record of one of the kinds in S, its inputs read with that kind's schema: a union on `kind`. */
export type JobRecord<S extends JobInputSchemas = JobInputSchemas> = {
  [K in KindOf<S>]: Omit<StoredJobRecord, "kind" | "inputs"> & {
    kind: K;
    inputs: z.output<S[K]>[];
  };
}[KindOf<S>];

/** Every delivery and triggering id a job stands for: none of them may start another. */
export function claimedBy(record: StoredJobRecord): string[] {
  return [
    record.deliveryId,
    ...(record.triggerId ? [record.triggerId] : []),
    ...(record.folded ?? []),
  ];
}

/** What a webhook (or a scheduler) asks to run: a kind of S and an input for it. */
export type NewJob<S extends JobInputSchemas = JobInputSchemas> = {
  [K in KindOf<S>]: NewJobFields & { kind: K; input: z.input<S[K]> };
}[KindOf<S>];

interface NewJobFields {
  key: string;
  deliveryId: string;
  triggerId?: string | undefined;
  installationId?: number | undefined;
  /**
   * Merge into a job with the same key that has not started yet, instead of
   * queueing another behind it (rapid mentions on one issue).
   */
  coalesce?: boolean | undefined;
}

export type SubmitResult =
  | { status: "queued"; id: string }
  | { status: "coalesced"; id: string }
  /** The delivery, or the comment that asked, was seen before: nothing is stored. */
  | { status: "duplicate" };

/** What the fields a running job may record for itself (and for a later attempt). */
export type JobProgress = Partial<
  Pick<StoredJobRecord, "trackingComment" | "branch" | "checkpoint" | "stats">
>;

/**
 * The reason a running job's signal carries when someone cancelled it: the
 * job stops at its next safe point as after a shutdown (its work is on its
 * checkpoint), but the queue ends it, failed ("cancelled"), instead of
 * queueing it again.
 */
export class JobCancelled extends Error {
  override name = "JobCancelled";
  constructor(readonly by: string) {
    super(`cancelled by @${by}`);
  }
}

/** Who cancelled the job whose signal this is, if that is why it was aborted. */
export function cancelledBy(signal: AbortSignal): string | undefined {
  return signal.aborted && signal.reason instanceof JobCancelled ? signal.reason.by : undefined;
}

/** A cancelled job's outcome, the same on both queues. */
export function cancelledOutcome(by: string): JobOutcome {
  return { conclusion: "cancelled", message: `cancelled by @${by}`, by };
}

export type CancelResult = "cancelled" | "stopping" | "finished" | "not_found";
export type RetryResult = "queued" | "not_failed" | "not_found";

/** Which records `list` returns (every one that matches all that is given), newest first. */
export interface ListFilter {
  installationId?: number | undefined;
  state?: JobState | undefined;
  /** Any other test, on the record as stored (its inputs unread). */
  where?: ((record: StoredJobRecord) => boolean) | undefined;
  /** At most this many (default all). */
  limit?: number | undefined;
}

export interface RunningJob<S extends JobInputSchemas = JobInputSchemas> {
  record: JobRecord<S>;
  /**
   * Aborted when the process is shutting down, or when someone cancelled
   * the job (the reason is a JobCancelled): checkpoint and return
   * "interrupted"; the queue ends a cancelled job instead of queueing it again.
   */
  signal: AbortSignal;
  update(progress: JobProgress): Promise<void>;
  /** Requests with the same key waiting behind this one (folded ones counted each). */
  waitingBehind(): Promise<number>;
}

export type JobResult =
  | {
      status: "done";
      conclusion: string;
      message?: string | undefined;
      pullRequest?: { number: number; url: string } | undefined;
    }
  | { status: "failed"; message: string }
  /** A transient failure (GitHub 5xx, git down): run again later; counts an attempt. */
  | { status: "retry"; message: string }
  /** Cut short by a shutdown: back in the queue, resumed from its checkpoint. */
  | { status: "interrupted" }
  /**
   * Not finished and nothing failed: run again in `delayMs` (a watch that
   * looks again later, such as a plan waiting for its 👍). Counts no
   * attempt; the record waits queued, durable like any other.
   */
  | { status: "later"; delayMs: number; message?: string | undefined };

export interface JobHandler<S extends JobInputSchemas = JobInputSchemas> {
  run(job: RunningJob<S>): Promise<JobResult>;
  /**
   * A job out of attempts (it kept failing, or kept being killed): report it
   * where its requester will look (the tracking comment, with links to the
   * work pushed so far) instead of running it again.
   */
  giveUp(record: JobRecord<S>, reason: string): Promise<void>;
}

export interface WorkerOptions {
  /** Jobs at once in this worker. */
  concurrency: number;
}

export interface JobWorker {
  /**
   * Stops taking jobs. Running ones get `graceMs` to finish; then they are
   * aborted (they checkpoint and go back to the queue) and, once they have
   * returned, this resolves.
   */
  stop(graceMs: number): Promise<void>;
}

export interface JobQueue<S extends JobInputSchemas = JobInputSchemas> {
  /**
   * Durable once it resolves; a failure must reach the webhook as a 5xx so
   * GitHub redelivers. An input its kind's schema refuses (or a kind the
   * queue does not hold) is refused: a JobInputError, nothing stored.
   */
  submit(job: NewJob<S>): Promise<SubmitResult>;
  startWorker(handler: JobHandler<S>, options: WorkerOptions): JobWorker;
  get(id: string): Promise<JobRecord<S> | undefined>;
  /** Records as stored, newest first (kept in an index: no scan of every job per call). */
  list(filter?: ListFilter): Promise<StoredJobRecord[]>;
  /** The ids of an installation's queued jobs (none: those without one), oldest first: the line a page shows. */
  queuedIds(installationId: number | undefined): Promise<string[]>;
  /**
   * A queued job is ended at once (failed, outcome "cancelled", `by`) and
   * never starts; a running one is aborted with a JobCancelled wherever it
   * runs ("stopping") and ends the same way once its run returns.
   */
  cancel(id: string, by: string): Promise<CancelResult>;
  /** A failed job queued again as a new attempt of the same record (attempts start over). */
  retry(id: string, by: string): Promise<RetryResult>;
  /**
   * Each job's event log, on the same store: the queue writes its state
   * changes there (`StateEntry`), the job's runner the rest.
   */
  readonly log: JobEventLog;
  /** Resolves when nothing runs here and nothing is due (tests, shutdown). */
  onIdle(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Exponential backoff for retries: 5 s, 10 s, 20 s..., capped at 5 minutes.
 * Doubling, as BullMQ's "exponential" backoff does, so the wait a tracking
 * comment announces is the wait on either queue.
 */
export function retryDelayMs(attempt: number, firstMs = 5_000): number {
  return Math.min(firstMs * 2 ** Math.max(0, attempt - 1), 300_000);
}

/** Why a job out of attempts stopped, when no failure of its own says more. */
export function outOfAttempts(tried: number): string {
  return `it was tried ${tried} time${tried === 1 ? "" : "s"}`;
}
