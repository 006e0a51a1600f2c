import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { claimedBy, type StoredJobRecord, storedJobRecordSchema } from "./types.js";

/**
 * The embedded queue's durable part: one JSON file per job, replaced
 * atomically (written beside, fsynced, renamed, the folder fsynced), and one
 * small marker file per delivery id and per triggering comment, created
 * exclusively, so a delivery seen before is recognised after any restart.
 *
 * A file per record rather than a database: a job is a few kilobytes
 * written a handful of times, so plain files are as fast as anything here,
 * need no native module (better-sqlite3 builds from source, which the
 * slim Docker image cannot), and survive kill -9 between any two steps.
 */
export class DiskJobStore {
  readonly #records: string;
  readonly #seen: string;
  /** Per folder: the sync waiting to start, which every rename made before it starts joins. */
  readonly #dirSyncs = new Map<
    string,
    { next?: Promise<void> | undefined; running?: Promise<void> | undefined }
  >();

  constructor(dir: string) {
    this.#records = join(dir, "records");
    this.#seen = join(dir, "seen");
  }

  /** Every record as stored: each kind's inputs are read when its job runs (job-inputs.ts). */
  async load(): Promise<StoredJobRecord[]> {
    await mkdir(this.#records, { recursive: true });
    await mkdir(this.#seen, { recursive: true });
    const records: StoredJobRecord[] = [];
    for (const name of await readdir(this.#records)) {
      if (!name.endsWith(".json")) continue;
      const parsed = storedJobRecordSchema.safeParse(
        JSON.parse(await readFile(join(this.#records, name), "utf8").catch(() => "null")),
      );
      if (parsed.success) records.push(parsed.data);
    }
    // Markers are written without a sync; the records (synced) name every id
    // they claimed, so whatever a crash took is put back before any submit.
    for (const record of records) {
      for (const key of claimedBy(record)) {
        await writeFile(this.#markerPath(key), record.id, { flag: "wx" }).catch(() => {});
      }
    }
    return records;
  }

  /**
   * Claims the keys (delivery id, triggering comment) for job `id`. False
   * when one is already claimed by a job that was stored (`id` itself, when
   * a request is folded into a job that already has it); a claim left by a
   * submit that died before storing its job is taken over. Not synced: the
   * job's record, written after and synced, lists its claims (see load).
   */
  async claim(
    keys: readonly string[],
    id: string,
    exists: (id: string) => boolean,
  ): Promise<boolean> {
    for (const key of keys) {
      const path = this.#markerPath(key);
      try {
        await writeFile(path, id, { flag: "wx" });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const owner = (await readFile(path, "utf8").catch(() => "")).trim();
        // Held by a stored job, this one included (a request already folded into it).
        if (owner && exists(owner)) return false;
        await writeFile(path, id);
      }
    }
    return true;
  }

  async write(record: StoredJobRecord): Promise<void> {
    await this.#writeAtomically(join(this.#records, `${record.id}.json`), JSON.stringify(record));
  }

  /** Forgets finished jobs and markers older than `olderThanMs`. */
  async prune(olderThanMs: number, now: number, records: StoredJobRecord[]): Promise<string[]> {
    const removed: string[] = [];
    for (const record of records) {
      const finished = record.state === "done" || record.state === "failed";
      if (finished && (record.finishedAt ?? record.updatedAt) < now - olderThanMs) {
        await rm(join(this.#records, `${record.id}.json`), { force: true });
        removed.push(record.id);
      }
    }
    for (const name of await readdir(this.#seen)) {
      const info = await stat(join(this.#seen, name)).catch(() => null);
      if (info && info.mtimeMs < now - olderThanMs)
        await rm(join(this.#seen, name), { force: true });
    }
    return removed;
  }

  #markerPath(key: string): string {
    return join(this.#seen, createHash("sha256").update(key).digest("hex").slice(0, 40));
  }

  async #writeAtomically(path: string, content: string): Promise<void> {
    const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    await this.#syncDir(join(path, ".."));
  }

  /**
   * The rename itself is durable only once the folder is. Concurrent
   * submits share folder syncs: a caller joins the sync that has not
   * started yet (it covers every rename made before it starts), so a burst
   * of deliveries costs a few syncs instead of one each.
   */
  #syncDir(dir: string): Promise<void> {
    const state = this.#dirSyncs.get(dir) ?? {};
    this.#dirSyncs.set(dir, state);
    if (state.next) return state.next;
    const next = (state.running ?? Promise.resolve())
      .catch(() => {})
      .then(async () => {
        state.next = undefined;
        state.running = next;
        try {
          const handle = await open(dir, "r");
          try {
            await handle.sync();
          } finally {
            await handle.close();
          }
        } finally {
          if (state.running === next) state.running = undefined;
        }
      });
    state.next = next;
    return next;
  }
}
