import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { Journal, readJournals, removeJournal } from "./journal.js";
import { quietTimer } from "./quiet-timer.js";
import { claimedBy, type StoredJobRecord, storedJobRecordSchema } from "./types.js";

/**
 * The embedded queue's durable part: one JSON file per job, and a journal
 * in front of them. A write is durable once its line is in the journal,
 * whose group commits give a burst of deliveries one sync between them
 * instead of one each (journal.ts); the record's own file is replaced
 * (written beside, renamed) in the background without a sync of its own.
 * Every so often, and on close, the files written since are synced and
 * the journal they came from is removed; on load, journals left by a crash
 * are replayed over the files (a file may be missing or old there), the
 * files synced, and the journals removed.
 *
 * Which job each delivery id and triggering comment belongs to is kept in
 * memory, rebuilt on load from the records (each names every id it
 * claimed), so a delivery seen before is recognised after any restart
 * without a marker file per delivery.
 *
 * Files rather than a database: a job is a few kilobytes written a handful
 * of times, so plain files are as fast as anything here, need no native
 * module (better-sqlite3 builds from source, which the slim Docker image
 * cannot), and survive kill -9 between any two steps.
 */
export class DiskJobStore {
  readonly #dir: string;
  readonly #records: string;
  readonly #journal: Journal;
  /** Delivery id or triggering comment -> the job that claimed it. */
  readonly #claims = new Map<string, string>();
  /** Records written since their files were: the newest of each, for the next file flush. */
  #dirty = new Map<string, StoredJobRecord>();
  /** Records whose files were written since the journal last rotated: synced before it goes. */
  #unsynced = new Set<string>();
  /** Record files are written after a quiet moment (a burst's files wait for its end). */
  readonly #quiet = quietTimer(() => void this.#flushFiles().catch(() => {}));
  #flushing: Promise<void> = Promise.resolve();
  #checkpoint: Promise<void> | undefined;
  readonly #legacyMarkers: string;

  readonly #journalBytes: number;

  /** `journalBytes`: past this the journal is checkpointed (default JOURNAL_BYTES). */
  constructor(dir: string, options: { journalBytes?: number } = {}) {
    this.#journalBytes = options.journalBytes ?? JOURNAL_BYTES;
    this.#records = join(dir, "records");
    this.#journal = new Journal(dir);
    this.#dir = dir;
    this.#legacyMarkers = join(dir, "seen");
  }

  /** Every record as stored: each kind's inputs are read when its job runs (job-inputs.ts). */
  async load(): Promise<StoredJobRecord[]> {
    await mkdir(this.#records, { recursive: true });
    const byId = new Map<string, StoredJobRecord>();
    for (const name of await readdir(this.#records)) {
      if (!name.endsWith(".json")) continue;
      const record = parseRecord(await readFile(join(this.#records, name), "utf8").catch(() => ""));
      if (record) byId.set(record.id, record);
    }
    // What a crash left in journals is newer than (or as new as) the files.
    const journals = await readJournals(this.#dir);
    const replayed = new Map<string, StoredJobRecord>();
    for (const journal of journals) {
      for (const line of journal.lines) {
        const record = parseRecord(line);
        const known = record && (replayed.get(record.id) ?? byId.get(record.id));
        if (record && (!known || record.updatedAt >= known.updatedAt)) {
          replayed.set(record.id, record);
          byId.set(record.id, record);
        }
      }
    }
    for (const record of replayed.values()) {
      await writeAtomically(this.#pathOf(record.id), JSON.stringify(record), { sync: true });
    }
    if (journals.length > 0) {
      await syncDir(this.#records);
      for (const journal of journals) await removeJournal(journal.path);
    }
    // Marker files of earlier versions: the records name every claim now.
    await rm(this.#legacyMarkers, { recursive: true, force: true });
    for (const record of byId.values()) {
      for (const key of claimedBy(record)) this.#claims.set(key, record.id);
    }
    return [...byId.values()];
  }

  /**
   * Claims the keys (delivery id, triggering comment) for job `id`. False
   * when one is already claimed by a job that was stored (`id` itself, when
   * a request is folded into a job that already has it); a claim left by a
   * submit that failed before storing its job is taken over.
   */
  async claim(
    keys: readonly string[],
    id: string,
    exists: (id: string) => boolean,
  ): Promise<boolean> {
    for (const key of keys) {
      const owner = this.#claims.get(key);
      if (owner && exists(owner)) return false;
      this.#claims.set(key, id);
    }
    return true;
  }

  /**
   * Resolves once the record is durable (its journal line synced). Its
   * file follows in a quiet moment: records written in a burst, or a job's
   * several states, cost one file write each, after the answers.
   */
  async write(record: StoredJobRecord): Promise<void> {
    // Marked before the line is queued, so a checkpoint that removes its journal writes its file first.
    const before = this.#dirty.get(record.id);
    this.#dirty.set(record.id, record);
    try {
      await this.#journal.append(JSON.stringify(record));
    } catch (error) {
      // Not stored, so not written later either (the caller says it failed);
      // an earlier state still waiting for its file still gets it.
      if (this.#dirty.get(record.id) === record) {
        if (before) this.#dirty.set(record.id, before);
        else this.#dirty.delete(record.id);
      }
      throw error;
    }
    if (this.#journal.size > this.#journalBytes) void this.#checkpointNow().catch(() => {});
    else this.#quiet.touch();
  }

  /** The files written and synced and the journal removed: on close, nothing is left to replay. */
  async close(): Promise<void> {
    this.#quiet.stop();
    await this.#checkpointNow();
    await this.#journal.close();
  }

  /** Forgets finished jobs older than `olderThanMs`, and what they claimed. */
  async prune(olderThanMs: number, now: number, records: StoredJobRecord[]): Promise<string[]> {
    const removed: string[] = [];
    for (const record of records) {
      const finished = record.state === "done" || record.state === "failed";
      if (finished && (record.finishedAt ?? record.updatedAt) < now - olderThanMs) {
        await rm(this.#pathOf(record.id), { force: true });
        for (const key of claimedBy(record)) {
          if (this.#claims.get(key) === record.id) this.#claims.delete(key);
        }
        removed.push(record.id);
      }
    }
    return removed;
  }

  #pathOf(id: string): string {
    return join(this.#records, `${id}.json`);
  }

  /** Writes the files of the records written since the last flush (one flush at a time). */
  #flushFiles(): Promise<void> {
    const run = this.#flushing.then(async () => {
      const dirty = this.#dirty;
      this.#dirty = new Map();
      for (const record of dirty.values()) {
        this.#unsynced.add(record.id);
        await writeAtomically(this.#pathOf(record.id), JSON.stringify(record), { sync: false });
      }
    });
    this.#flushing = run.catch(() => {});
    return run;
  }

  /** Rotates the journal, writes and syncs the files its lines were for, then removes it. */
  #checkpointNow(): Promise<void> {
    this.#checkpoint ??= (async () => {
      try {
        const old = await this.#journal.rotate();
        await this.#flushFiles();
        const ids = [...this.#unsynced];
        this.#unsynced = new Set();
        for (const id of ids) await syncFile(this.#pathOf(id));
        await syncDir(this.#records);
        if (old) await removeJournal(old);
      } finally {
        this.#checkpoint = undefined;
      }
    })();
    return this.#checkpoint;
  }
}

/** Past this, the journal is checkpointed (its records' files synced) and started again. */
const JOURNAL_BYTES = 4 * 1024 * 1024;

function parseRecord(text: string): StoredJobRecord | undefined {
  if (!text) return undefined;
  try {
    const parsed = storedJobRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // A line or file cut by a crash: the journal or the file has the rest.
    return undefined;
  }
}

async function writeAtomically(
  path: string,
  content: string,
  options: { sync: boolean },
): Promise<void> {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const handle = await open(temporary, "w");
  try {
    await handle.writeFile(content);
    if (options.sync) await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

/** A file pruned since it was written has nothing left to sync. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A rename is durable only once its folder is. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
