import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { createDiskEventLog } from "./disk-event-log.js";
import { DiskJobStore } from "./disk-store.js";
import { type StateEntry, stateEntry } from "./event-log.js";
import { parseNewJob, queueOf, readRecord } from "./job-inputs.js";
import { LocalWorker } from "./local-worker.js";
import { realTimer, type SetTimer } from "./timer.js";
import {
  cancelledOutcome,
  DEFAULT_MAX_ATTEMPTS,
  type JobInputSchemas,
  type JobQueue,
  type JobRecord,
  type NewJob,
  type SubmitResult,
} from "./types.js";

/**
 * The queue `npm start` uses with no other service: records on local disk
 * (DiskJobStore), run by a worker in the same process. After a restart,
 * jobs that were waiting still wait and jobs that were running run again
 * (from their checkpoint) until they are out of attempts.
 */

export interface LocalQueueOptions<S extends JobInputSchemas> {
  dir: string;
  /** The input schema of each kind of job this queue holds. */
  kinds: S;
  clock?: { now(): number };
  maxAttempts?: number;
  /** Finished jobs and delivery markers are kept this long (default 7 days). */
  retainMs?: number;
  onError?: (error: unknown, record: JobRecord) => void;
  /** When a delayed retry is due, and the grace period on stop; injected in tests. */
  setTimer?: SetTimer;
}

const WEEK_MS = 7 * 24 * 3_600_000;

export async function createLocalQueue<S extends JobInputSchemas>(
  options: LocalQueueOptions<S>,
): Promise<JobQueue<S>> {
  const { kinds } = options;
  const clock = options.clock ?? Date;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const store = new DiskJobStore(options.dir);
  const log = await createDiskEventLog(join(options.dir, "logs"), {
    now: () => clock.now(),
    ...(options.retainMs ? { retainMs: options.retainMs } : {}),
  });
  // Every record, in memory: lists and picks never read the disk.
  const records = new Map<string, JobRecord>();
  /** The state each record has on disk, so a save that changes it is logged once. */
  const savedStates = new Map<string, JobRecord["state"]>();
  for (const record of await store.load()) {
    records.set(record.id, record);
    savedStates.set(record.id, record.state);
  }
  const pruned = await store.prune(options.retainMs ?? WEEK_MS, clock.now(), [...records.values()]);
  for (const id of pruned) {
    records.delete(id);
    savedStates.delete(id);
  }
  // A job the last process was running when it died runs again.
  for (const record of records.values()) {
    if (record.state === "running") await save({ ...record, state: "queued" });
  }

  // Submits for one key, one at a time (the coalescing check reads what the
  // last one wrote); different keys in parallel, their disk syncs shared.
  const submitting = new Map<string, Promise<unknown>>();
  let worker: LocalWorker | undefined;

  /** Writes the record; a change of state goes to its log too (`note`: who, and why). */
  async function save(record: JobRecord, note: Partial<StateEntry> = {}): Promise<JobRecord> {
    const stamped = { ...record, updatedAt: clock.now() };
    await store.write(stamped);
    records.set(stamped.id, stamped);
    if (savedStates.get(stamped.id) !== stamped.state) {
      savedStates.set(stamped.id, stamped.state);
      const { outcome } = stamped;
      // Not waited for: the log's own order holds (its reads wait for its appends),
      // and a delivery is answered once its record, not its log line, is stored.
      void log
        .append(
          stamped.id,
          stateEntry(stamped.updatedAt, stamped.state, {
            by: note.by ?? outcome?.by,
            message:
              note.message ??
              (stamped.state === "running" ? undefined : (outcome?.message ?? outcome?.conclusion)),
          }),
        )
        .catch((error: unknown) => options.onError?.(error, stamped));
    }
    return stamped;
  }

  async function submitNow(submitted: NewJob): Promise<SubmitResult> {
    const job = parseNewJob(kinds, submitted);
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

  const queue: JobQueue = {
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
          kinds,
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
    // A record its kind cannot read is returned as stored: it fails when it runs.
    get: async (id) => {
      const record = records.get(id);
      if (!record) return undefined;
      const read = readRecord(kinds, record);
      return read.ok ? read.record : record;
    },
    async list(filter = {}) {
      const found: JobRecord[] = [];
      for (const record of records.values()) {
        if (filter.state && record.state !== filter.state) continue;
        if (filter.installationId !== undefined && record.installationId !== filter.installationId)
          continue;
        if (filter.where && !filter.where(record)) continue;
        found.push(record);
      }
      found.sort((a, b) => b.createdAt - a.createdAt);
      return filter.limit !== undefined ? found.slice(0, filter.limit) : found;
    },
    async queuedIds(installationId) {
      return [...records.values()]
        .filter((r) => r.state === "queued" && r.installationId === installationId)
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((r) => r.id);
    },
    async cancel(id, by) {
      const record = records.get(id);
      if (!record) return "not_found";
      if (record.state === "done" || record.state === "failed") return "finished";
      if (record.state === "running" && worker?.cancel(id, by)) return "stopping";
      await save({
        ...record,
        state: "failed",
        finishedAt: clock.now(),
        outcome: cancelledOutcome(by),
      });
      return "cancelled";
    },
    async retry(id, by) {
      const record = records.get(id);
      if (!record) return "not_found";
      if (record.state !== "failed") return "not_failed";
      const { outcome: _outcome, finishedAt: _finished, notBefore: _notBefore, ...rest } = record;
      await save({ ...rest, state: "queued", attempts: 0 }, { by, message: `retried by @${by}` });
      worker?.pump();
      return "queued";
    },
    log,
    onIdle: () => worker?.idle() ?? Promise.resolve(),
    close: async () => {
      await Promise.all(submitting.values());
      worker?.dispose();
      await log.close();
      await store.close();
    },
  };
  return queueOf(queue, kinds);
}
