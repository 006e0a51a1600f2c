/**
 * A job's event log: what happened in a job, in order, as JSON values the
 * queue does not read (the service writes its job view's events; the
 * queues write the job's state changes, see `StateEntry`). Append-only per
 * job; every entry has an index (0, 1, ...) that stays its own when old
 * entries are trimmed, so a reader goes on from `next` without a gap or a
 * repeat. A subscriber sees entries appended by any process that shares the
 * back end (the embedded queue's one process; every worker on one Redis).
 *
 * Limits, on both back ends: a job keeps its last `LOG_CAP` entries (the
 * oldest are trimmed, Redis a whole stream node of about 100 at a time, so
 * a few more may stay; writers cut each entry to a few kilobytes, so a log
 * stays within a few megabytes), and a log is forgotten `LOG_RETAIN_MS`
 * after its last entry (the job records are kept as long).
 */
export interface JobEventLog {
  append(jobId: string, entry: unknown): Promise<void>;
  /** Entries from index `from` (default 0) on that are still kept; `next` is where to read on. */
  read(jobId: string, from?: number): Promise<{ entries: LogEntry[]; next: number }>;
  /**
   * Entries as they are appended, from any process; returns the unsubscribe.
   * With `from`, stored entries from that index on come first, then the live
   * ones, each index once and in order (read, then subscribe, loses nothing).
   */
  subscribe(jobId: string, listener: LogListener, from?: number): () => void;
  close(): Promise<void>;
}

export interface LogEntry {
  index: number;
  entry: unknown;
}

export type LogListener = (entry: unknown, index: number) => void;

/** Entries a job keeps (the newest). */
export const LOG_CAP = 5_000;
/** How long a log is kept after its last entry: as long as finished job records. */
export const LOG_RETAIN_MS = 7 * 24 * 3_600_000;

/**
 * A state change, as the queues write it into the job's log (the job view's
 * `state` event has this shape): queued (submitted, retried, back after a
 * shutdown or a transient failure), running, done, failed (cancelled
 * included, with who cancelled).
 */
export interface StateEntry {
  type: "state";
  at: number;
  state: "queued" | "running" | "done" | "failed";
  by?: string;
  message?: string;
}

export function stateEntry(
  at: number,
  state: StateEntry["state"],
  extra: { by?: string | undefined; message?: string | undefined } = {},
): StateEntry {
  return {
    type: "state",
    at,
    state,
    ...(extra.by ? { by: extra.by } : {}),
    ...(extra.message ? { message: extra.message } : {}),
  };
}

/**
 * Delivers a job's entries to one listener in index order, each once: the
 * stored ones from `from` (read after the live feed is open) and the live
 * ones, whichever comes first for an index. Shared by both back ends.
 */
export function orderedListener(
  listener: LogListener,
  from: number | undefined,
): { live: LogListener; replay(read: Promise<{ entries: LogEntry[] }>): void } {
  // Without `from`: live entries only, from the first one seen.
  let next = from;
  let replaying = from !== undefined;
  const held: LogEntry[] = [];
  const deliver = (entry: unknown, index: number) => {
    if (next !== undefined && index < next) return;
    next = index + 1;
    listener(entry, index);
  };
  return {
    live(entry, index) {
      if (replaying) held.push({ entry, index });
      else deliver(entry, index);
    },
    replay(read) {
      if (!replaying) return;
      void read
        .then(({ entries }) => {
          for (const e of entries) deliver(e.entry, e.index);
        })
        .catch(() => {})
        .finally(() => {
          replaying = false;
          for (const e of held.splice(0).sort((a, b) => a.index - b.index))
            deliver(e.entry, e.index);
        });
    },
  };
}
