import { createHash } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { type JobRecord, jobRecordSchema } from "./types.js";

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

  constructor(dir: string) {
    this.#records = join(dir, "records");
    this.#seen = join(dir, "seen");
  }

  async load(): Promise<JobRecord[]> {
    await mkdir(this.#records, { recursive: true });
    await mkdir(this.#seen, { recursive: true });
    const records: JobRecord[] = [];
    for (const name of await readdir(this.#records)) {
      if (!name.endsWith(".json")) continue;
      const parsed = jobRecordSchema.safeParse(
        JSON.parse(await readFile(join(this.#records, name), "utf8").catch(() => "null")),
      );
      if (parsed.success) records.push(parsed.data);
    }
    return records;
  }

  /**
   * Claims the keys (delivery id, triggering comment) for job `id`. False
   * when one is already claimed by a job that was stored; a claim left by a
   * submit that died before storing its job is taken over.
   */
  async claim(
    keys: readonly string[],
    id: string,
    exists: (id: string) => boolean,
  ): Promise<boolean> {
    for (const key of keys) {
      const path = this.#markerPath(key);
      try {
        const handle = await open(path, "wx");
        await handle.writeFile(id);
        await handle.sync();
        await handle.close();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const owner = (await readFile(path, "utf8").catch(() => "")).trim();
        if (owner && owner !== id && exists(owner)) return false;
        await this.#writeAtomically(path, id);
      }
    }
    await this.#syncDir(this.#seen);
    return true;
  }

  async write(record: JobRecord): Promise<void> {
    await this.#writeAtomically(join(this.#records, `${record.id}.json`), JSON.stringify(record));
  }

  /** Forgets finished jobs and markers older than `olderThanMs`. */
  async prune(olderThanMs: number, now: number, records: JobRecord[]): Promise<string[]> {
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

  /** The rename itself is durable only once the folder is. */
  async #syncDir(dir: string): Promise<void> {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
