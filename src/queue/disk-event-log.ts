import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type JobEventLog,
  LOG_CAP,
  LOG_RETAIN_MS,
  type LogEntry,
  type LogListener,
  orderedListener,
} from "./event-log.js";
import { quietTimer } from "./quiet-timer.js";

/**
 * The embedded queue's event log: a JSONL file per job (`<dir>/<id>.jsonl`,
 * beside the records), one `{"i": index, "e": entry}` per line, and an
 * in-process feed for subscribers (the embedded queue is one process).
 * Appends are not synced: a crash may lose the last few lines of a
 * transcript, never a record. Past `cap` entries (and a quarter, so it
 * happens seldom) the file is rewritten with the newest `cap`; logs not
 * written for `retainMs` are removed when the log opens.
 *
 * A line is appended synchronously: an unsynced append of a few hundred
 * bytes to a local file costs the thread ~23 µs that way, and ~90 µs as
 * three thread-pool hops (open, write, close; measured on the 2-core VM),
 * and a burst of deliveries writes one line per job. A job with no file
 * when the log opened, and none written since, starts at 0 without a read.
 *
 * A new log's first line (a delivery's "queued") waits in memory for a
 * quiet moment, as the record files do (disk-store.ts): creating a file is
 * what an append costs, and a burst's new jobs would each create one on the
 * thread that answers the deliveries. The job's next line and close write
 * it first; a read of its log and subscribers see it at once. Measured on a
 * 2-core VM whose file creation was slow (~0.2 ms under the store's syncs),
 * 500 deliveries at 50 in flight (`npm run bench -- queue`): 939-1,371
 * stored a second and a p99 of 84-102 ms with the line written at once,
 * 1,225-1,688 and 62-91 ms so (9 runs; the host's own noise is wide),
 * 1,443-1,509 with no line at all. A process
 * that dies loses a waiting line (an unsynced one is lost only when the
 * machine goes down): the record holds the job, and its log starts at 0.
 */
export async function createDiskEventLog(
  dir: string,
  options: { cap?: number; retainMs?: number; now?: () => number } = {},
): Promise<JobEventLog> {
  const cap = options.cap ?? LOG_CAP;
  await mkdir(dir, { recursive: true });
  const now = options.now?.() ?? Date.now();
  /** The log files there are (the embedded queue is the one process writing them). */
  const present = new Set<string>();
  for (const name of await readdir(dir)) {
    const info = await stat(join(dir, name)).catch(() => null);
    if (info && info.mtimeMs < now - (options.retainMs ?? LOG_RETAIN_MS))
      await rm(join(dir, name), { force: true });
    else present.add(join(dir, name));
  }

  /** Per job written here: the next index and the lines in the file, and the append in progress. */
  const files = new Map<string, Promise<{ next: number; lines: number }>>();
  /** New logs' first lines, by path, until a quiet moment writes them (see above). */
  const waiting = new Map<string, { text: string; entry: LogEntry }>();
  const quiet = quietTimer(() => writeAllWaiting());
  /** A log's waiting line into its file (which this creates); it waits on if that fails. */
  const writeWaiting = (path: string) => {
    const line = waiting.get(path);
    if (line === undefined) return;
    appendFileSync(path, line.text);
    waiting.delete(path);
    present.add(path);
  };
  /**
   * Every waiting line, each on its own: one that cannot be written (a full
   * disk) stays, and the job's next append, which its caller hears of, says
   * why. Its append has resolved, so nothing here may throw.
   */
  const writeAllWaiting = () => {
    for (const path of [...waiting.keys()]) {
      try {
        writeWaiting(path);
      } catch {}
    }
  };
  const listeners = new Map<string, Set<LogListener>>();
  const pathOf = (jobId: string) =>
    join(
      dir,
      `${/^[\w-]{1,100}$/.test(jobId) ? jobId : createHash("sha256").update(jobId).digest("hex")}.jsonl`,
    );

  async function readAll(jobId: string): Promise<LogEntry[]> {
    const text = await readFile(pathOf(jobId), "utf8").catch(() => "");
    const entries: LogEntry[] = [];
    for (const line of text.split("\n")) {
      if (!line) continue;
      try {
        const { i, e } = JSON.parse(line) as { i: number; e: unknown };
        if (typeof i === "number") entries.push({ index: i, entry: e });
      } catch {
        // A line cut by a crash: the rest of the log still reads.
      }
    }
    return entries;
  }

  /**
   * Where a job's log stands: its next index and its lines, from what waits
   * (only ever a new log's line 0) or its file. Read once per job, and again
   * after an append that failed.
   */
  async function standing(jobId: string, path: string): Promise<{ next: number; lines: number }> {
    if (waiting.has(path)) return { next: 1, lines: 1 };
    if (!present.has(path)) return { next: 0, lines: 0 };
    const all = await readAll(jobId);
    return { next: (all.at(-1)?.index ?? -1) + 1, lines: all.length };
  }

  const log: JobEventLog = {
    append(jobId, entry) {
      const path = pathOf(jobId);
      const before = files.get(jobId) ?? standing(jobId, path);
      const after = before
        .catch(() => standing(jobId, path))
        .then(async (state) => {
          const index = state.next;
          const line = `${JSON.stringify({ i: index, e: entry })}\n`;
          if (state.lines === 0 && !present.has(path)) {
            waiting.set(path, { text: line, entry: { index, entry } });
            quiet.touch();
          } else {
            appendFileSync(path, (waiting.get(path)?.text ?? "") + line);
            waiting.delete(path);
            present.add(path);
          }
          let lines = state.lines + 1;
          if (lines > cap + Math.ceil(cap / 4)) {
            const kept = (await readAll(jobId)).slice(-cap);
            const temporary = `${path}.${process.pid}.tmp`;
            await writeFile(
              temporary,
              kept.map((e) => `${JSON.stringify({ i: e.index, e: e.entry })}\n`).join(""),
            );
            await rename(temporary, path);
            lines = kept.length;
          }
          for (const listener of listeners.get(jobId) ?? []) listener(entry, index);
          return { next: index + 1, lines };
        });
      files.set(jobId, after);
      return after.then(() => undefined);
    },
    async read(jobId, from = 0) {
      // After the appends this process has in progress.
      await files.get(jobId)?.catch(() => {});
      // A waiting line is a new log's whole content: read from memory, written in its quiet moment.
      const first = waiting.get(pathOf(jobId));
      const all = first ? [first.entry] : await readAll(jobId);
      const entries = all.filter((e) => e.index >= from);
      return { entries, next: Math.max(from, (all.at(-1)?.index ?? -1) + 1) };
    },
    subscribe(jobId, listener, from) {
      const ordered = orderedListener(listener, from);
      const set = listeners.get(jobId) ?? new Set();
      listeners.set(jobId, set);
      set.add(ordered.live);
      ordered.replay(log.read(jobId, from));
      return () => {
        set.delete(ordered.live);
        if (set.size === 0) listeners.delete(jobId);
      };
    },
    async close() {
      await Promise.all([...files.values()].map((p) => p.catch(() => {})));
      quiet.stop();
      writeAllWaiting();
      listeners.clear();
    },
  };
  return log;
}
