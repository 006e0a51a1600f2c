import { randomUUID } from "node:crypto";
import { errorMessage } from "../error-message.js";
import { DiskJobStore } from "./disk-store.js";
import { pickNext } from "./pick-next.js";
import {
  DEFAULT_MAX_ATTEMPTS,
  type JobHandler,
  type JobQueue,
  type JobRecord,
  type JobResult,
  type JobWorker,
  type NewJob,
  outOfAttempts,
  retryDelayMs,
  type SubmitResult,
  type WorkerOptions,
} from "./types.js";

/**
 * The queue `npm start` uses with no other service: records on local disk
 * (DiskJobStore), run by a worker in the same process. After a restart,
 * jobs that were waiting still wait and jobs that were running run again
 * (from their checkpoint) until they are out of attempts.
 */

export interface LocalQueueOptions {
  dir: string;
  clock?: { now(): number };
  maxAttempts?: number;
  /** Finished jobs and delivery markers are kept this long (default 7 days). */
  retainMs?: number;
  onError?: (error: unknown, record: JobRecord) => void;
  /** When a delayed retry is due, and the grace period on stop; injected in tests. */
  setTimer?: SetTimer;
}

export type SetTimer = (fn: () => void, ms: number) => { cancel(): void };

const realTimer: SetTimer = (fn, ms) => {
  const handle = setTimeout(fn, ms);
  // A pending retry must not keep a finished process alive.
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};

const WEEK_MS = 7 * 24 * 3_600_000;

export async function createLocalQueue(options: LocalQueueOptions): Promise<JobQueue> {
  const clock = options.clock ?? Date;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const store = new DiskJobStore(options.dir);
  const records = new Map<string, JobRecord>();
  for (const record of await store.load()) records.set(record.id, record);
  const pruned = await store.prune(options.retainMs ?? WEEK_MS, clock.now(), [...records.values()]);
  for (const id of pruned) records.delete(id);
  // A job the last process was running when it died runs again.
  for (const record of records.values()) {
    if (record.state === "running") await save({ ...record, state: "queued" });
  }

  // Submits for one key, one at a time (the coalescing check reads what the
  // last one wrote); different keys in parallel, their disk syncs shared.
  const submitting = new Map<string, Promise<unknown>>();
  let worker: LocalWorker | undefined;

  async function save(record: JobRecord): Promise<JobRecord> {
    const stamped = { ...record, updatedAt: clock.now() };
    await store.write(stamped);
    records.set(stamped.id, stamped);
    return stamped;
  }

  async function submitNow(job: NewJob): Promise<SubmitResult> {
    const keys = [job.deliveryId, ...(job.triggerId ? [job.triggerId] : [])];
    const waiting = job.coalesce
      ? [...records.values()].find(
          (r) =>
            r.key === job.key && r.kind === job.kind && r.state === "queued" && r.attempts === 0,
        )
      : undefined;
    const id = waiting?.id ?? randomUUID();
    if (!(await store.claim(keys, id, (owner) => records.has(owner))))
      return { status: "duplicate" };
    if (waiting) {
      await save({
        ...waiting,
        inputs: [...waiting.inputs, job.input],
        folded: [...(waiting.folded ?? []), ...keys],
      });
      return { status: "coalesced", id };
    }
    const now = clock.now();
    await save({
      id,
      kind: job.kind,
      key: job.key,
      deliveryId: job.deliveryId,
      ...(job.triggerId ? { triggerId: job.triggerId } : {}),
      ...(job.installationId !== undefined ? { installationId: job.installationId } : {}),
      inputs: [job.input],
      state: "queued",
      attempts: 0,
      createdAt: now,
      updatedAt: now,
    });
    worker?.pump();
    return { status: "queued", id };
  }

  return {
    submit(job) {
      const result = (submitting.get(job.key) ?? Promise.resolve()).then(() => submitNow(job));
      const settled = result.catch(() => {});
      submitting.set(job.key, settled);
      void settled.then(() => {
        if (submitting.get(job.key) === settled) submitting.delete(job.key);
      });
      return result;
    },
    startWorker(handler, workerOptions) {
      worker = new LocalWorker(
        {
          records,
          save,
          clock,
          maxAttempts,
          onError: options.onError,
          setTimer: options.setTimer ?? realTimer,
        },
        handler,
        workerOptions,
      );
      worker.pump();
      return worker;
    },
    get: async (id) => records.get(id),
    onIdle: () => worker?.idle() ?? Promise.resolve(),
    close: async () => {
      await Promise.all(submitting.values());
      worker?.dispose();
    },
  };
}

interface WorkerContext {
  records: Map<string, JobRecord>;
  save(record: JobRecord): Promise<JobRecord>;
  clock: { now(): number };
  maxAttempts: number;
  onError?: ((error: unknown, record: JobRecord) => void) | undefined;
  setTimer: SetTimer;
}

/** Runs due jobs, at most `concurrency` at once and one per key. */
class LocalWorker implements JobWorker {
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

  async #execute(queued: JobRecord, signal: AbortSignal): Promise<void> {
    const { ctx } = this;
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
    await this.#settle(ctx.records.get(record.id) ?? record, result);
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
        await ctx.save({ ...record, state: "queued", attempts: Math.max(0, record.attempts - 1) });
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
