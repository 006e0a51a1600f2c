import { errorMessage } from "../error-message.js";
import { type JobInputError, readRecord } from "./job-inputs.js";
import { pickNext } from "./pick-next.js";
import type { SetTimer } from "./timer.js";
import {
  cancelledBy,
  cancelledOutcome,
  JobCancelled,
  type JobHandler,
  type JobInputSchemas,
  type JobRecord,
  type JobResult,
  type JobWorker,
  outOfAttempts,
  retryDelayMs,
  type WorkerOptions,
} from "./types.js";

/**
 * The embedded queue's worker: runs due records, at most `concurrency` at
 * once and one per key, and writes how each run ended (done, failed, back
 * in the queue for a retry or after a shutdown, or reported out of
 * attempts) to the records it shares with the queue.
 */

/** What the worker shares with its queue: the records, how they are saved, time. */
interface WorkerContext {
  records: Map<string, JobRecord>;
  save(record: JobRecord, note?: { by?: string; message?: string }): Promise<JobRecord>;
  clock: { now(): number };
  /** Each record's inputs are read with its kind's schema before it runs or is reported. */
  kinds: JobInputSchemas;
  maxAttempts: number;
  onError?: ((error: unknown, record: JobRecord) => void) | undefined;
  setTimer: SetTimer;
}

export class LocalWorker implements JobWorker {
  readonly #running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  readonly #idleWaiters: Array<() => void> = [];
  #stopping = false;
  #timer: { cancel(): void } | undefined;

  constructor(
    readonly ctx: WorkerContext,
    readonly handler: JobHandler,
    readonly options: WorkerOptions,
  ) {}

  pump(): void {
    if (this.#stopping) return;
    while (this.#running.size < this.options.concurrency) {
      const now = this.ctx.clock.now();
      const next = pickNext([...this.ctx.records.values()], this.#runningRecords(), now);
      if (next.job) {
        this.#start(next.job);
        continue;
      }
      this.#wakeAt(next.dueAt);
      break;
    }
    this.#notifyIdle();
  }

  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#timer?.cancel();
    const all = () => Promise.all([...this.#running.values()].map((r) => r.done));
    let timer: { cancel(): void } | undefined;
    const grace = new Promise<void>((done) => {
      timer = this.ctx.setTimer(done, graceMs);
    });
    await Promise.race([all(), grace]);
    timer?.cancel();
    for (const run of this.#running.values()) run.controller.abort(new Error("shutting down"));
    await all();
  }

  /** Aborts the job if it runs here: it ends cancelled once its run returns. */
  cancel(id: string, by: string): boolean {
    const run = this.#running.get(id);
    if (!run) return false;
    if (!run.controller.signal.aborted) run.controller.abort(new JobCancelled(by));
    return true;
  }

  idle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((done) => this.#idleWaiters.push(done));
  }

  dispose(): void {
    this.#timer?.cancel();
  }

  #runningRecords(): JobRecord[] {
    return [...this.#running.keys()].flatMap((id) => this.ctx.records.get(id) ?? []);
  }

  #isIdle(): boolean {
    if (this.#running.size > 0) return false;
    const now = this.ctx.clock.now();
    return ![...this.ctx.records.values()].some(
      (r) => r.state === "queued" && (r.notBefore ?? 0) <= now,
    );
  }

  #notifyIdle(): void {
    if (!this.#isIdle()) return;
    for (const done of this.#idleWaiters.splice(0)) done();
  }

  #wakeAt(dueAt: number | undefined): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    if (dueAt === undefined) return;
    const wait = Math.max(0, dueAt - this.ctx.clock.now());
    this.#timer = this.ctx.setTimer(() => this.pump(), wait);
  }

  #start(record: JobRecord): void {
    const controller = new AbortController();
    // Claimed synchronously, so the next pick in this loop sees its key taken.
    this.ctx.records.set(record.id, { ...record, state: "running" });
    const done = this.#execute(record, controller.signal)
      .catch((error: unknown) => this.ctx.onError?.(error, record))
      .finally(() => {
        this.#running.delete(record.id);
        this.pump();
      });
    this.#running.set(record.id, { controller, done });
  }

  async #execute(stored: JobRecord, signal: AbortSignal): Promise<void> {
    const { ctx } = this;
    const read = readRecord(ctx.kinds, stored);
    if (!read.ok) return this.#unreadable(stored, read.error);
    const queued = read.record;
    // Out of attempts before this run: the earlier ones were cut short by crashes.
    if (queued.attempts >= ctx.maxAttempts) return this.#giveUp(queued);
    let record = await ctx.save({
      ...queued,
      state: "running",
      attempts: queued.attempts + 1,
      startedAt: ctx.clock.now(),
    });
    let result: JobResult;
    try {
      // Cancelled while it was being started: it does not run.
      if (cancelledBy(signal) !== undefined) throw signal.reason;
      result = await this.handler.run({
        record,
        signal,
        update: async (progress) => {
          record = await ctx.save({ ...(ctx.records.get(record.id) ?? record), ...progress });
        },
        // Requests, not records: rapid ones wait folded into one record.
        waitingBehind: async () =>
          [...ctx.records.values()]
            .filter((r) => r.key === record.key && r.state === "queued")
            .reduce((sum, r) => sum + r.inputs.length, 0),
      });
    } catch (error) {
      result = { status: "retry", message: errorMessage(error) };
    }
    const current = ctx.records.get(record.id) ?? record;
    // However the run ended, a cancelled job is not queued again.
    const by = cancelledBy(signal);
    if (by !== undefined) {
      await ctx.save({
        ...current,
        state: "failed",
        finishedAt: ctx.clock.now(),
        outcome: cancelledOutcome(by),
      });
      return;
    }
    await this.#settle(current, result);
  }

  async #settle(record: JobRecord, result: JobResult): Promise<void> {
    const { ctx } = this;
    const now = ctx.clock.now();
    switch (result.status) {
      case "done":
        await ctx.save({
          ...record,
          state: "done",
          finishedAt: now,
          outcome: {
            conclusion: result.conclusion,
            ...(result.message ? { message: result.message } : {}),
            ...(result.pullRequest ? { pullRequest: result.pullRequest } : {}),
          },
        });
        return;
      case "failed":
        await ctx.save({
          ...record,
          state: "failed",
          finishedAt: now,
          outcome: { conclusion: "failure", message: result.message },
        });
        return;
      case "interrupted":
        // A deploy is not the job's fault: the attempt does not count.
        await ctx.save(
          { ...record, state: "queued", attempts: Math.max(0, record.attempts - 1) },
          { message: "paused: the worker is shutting down" },
        );
        return;
      case "later":
        await ctx.save(
          {
            ...record,
            state: "queued",
            attempts: Math.max(0, record.attempts - 1),
            notBefore: now + Math.max(0, result.delayMs),
          },
          { message: result.message ?? "waiting to look again" },
        );
        return;
      case "retry": {
        const retrying = { conclusion: "retrying", message: result.message };
        if (record.attempts >= ctx.maxAttempts) {
          // The last attempt: nothing runs again, so its requester hears now,
          // not after a retry delay. Saved first, so a crash while reporting
          // still reports the same failure after the restart.
          const last = await ctx.save({ ...record, outcome: retrying });
          return this.#giveUp(last, result.message);
        }
        await ctx.save({
          ...record,
          state: "queued",
          notBefore: now + retryDelayMs(record.attempts),
          outcome: retrying,
        });
      }
    }
  }

  /**
   * A record of a kind this version does not run, or with an input its
   * kind's schema refuses (written by another version): that job fails,
   * said in the log and in its outcome, and the worker goes on.
   */
  async #unreadable(record: JobRecord, error: JobInputError): Promise<void> {
    this.ctx.onError?.(error, record);
    await this.ctx.save({
      ...record,
      state: "failed",
      finishedAt: this.ctx.clock.now(),
      outcome: { conclusion: "failure", message: error.message },
    });
  }

  /**
   * Reports a job out of attempts, then records it failed. The record handed
   * over still says what failed last ("retrying"), which the report quotes.
   * A report that throws is the handler's to log; the job ends all the same,
   * instead of staying "running" until the next restart.
   */
  async #giveUp(record: JobRecord, lastFailure?: string): Promise<void> {
    const { ctx } = this;
    const reason = outOfAttempts(record.attempts);
    await this.handler
      .giveUp({ ...record, state: "failed" }, reason)
      .catch((error: unknown) => ctx.onError?.(error, record));
    await ctx.save({
      ...record,
      state: "failed",
      finishedAt: ctx.clock.now(),
      outcome: { conclusion: "failure", message: lastFailure ?? reason },
    });
  }
}
