import { type FileHandle, open, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * An append-only file of JSON lines with group commits: every line appended
 * while a sync is running waits for the next one, which writes them all and
 * syncs once. A burst of N writers costs a handful of syncs instead of N,
 * and each writer still returns only once its line is on disk.
 *
 * Each journal file belongs to one writer (its name holds a random part),
 * so two processes (or two stores in one) never append to the same file.
 */
export class Journal {
  readonly #dir: string;
  readonly #prefix: string;
  #file: { path: string; handle: Promise<FileHandle>; bytes: number } | undefined;
  #pending: Array<{ line: string; done: () => void; fail: (error: unknown) => void }> = [];
  #flushing: Promise<void> | undefined;

  constructor(dir: string, prefix = "journal") {
    this.#dir = dir;
    this.#prefix = prefix;
  }

  /** Resolves once the line is durable. */
  append(line: string): Promise<void> {
    return new Promise((done, fail) => {
      this.#pending.push({ line: `${line}\n`, done, fail });
      this.#flushing ??= this.#flush();
    });
  }

  /** Bytes in the current file (what rotation is decided on). */
  get size(): number {
    return this.#file?.bytes ?? 0;
  }

  /**
   * Starts a new file for the lines appended from now on and returns the
   * path of the one it replaces (undefined when nothing was written), once
   * every line of that file is durable. The caller removes it when what it
   * holds is durable elsewhere.
   */
  async rotate(): Promise<string | undefined> {
    await this.#flushing;
    const old = this.#file;
    this.#file = undefined;
    if (!old) return undefined;
    await (await old.handle).close();
    return old.path;
  }

  /** Closes the current file; a line appended after starts a new one (the next load replays it). */
  async close(): Promise<void> {
    await this.#flushing;
    const file = this.#file;
    this.#file = undefined;
    if (file) await (await file.handle).close();
  }

  async #flush(): Promise<void> {
    // The lines that arrive while this sync runs are the next batch.
    await Promise.resolve();
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        const file = this.#open();
        const text = batch.map((entry) => entry.line).join("");
        const handle = await file.handle;
        await handle.write(text);
        await handle.datasync();
        file.bytes += Buffer.byteLength(text);
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.fail(error);
      }
    }
    this.#flushing = undefined;
  }

  #open() {
    if (!this.#file) {
      const name = `${this.#prefix}-${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 10)}.jsonl`;
      const path = join(this.#dir, name);
      const handle = open(path, "a");
      // A failed open fails this batch; the next batch tries a new file.
      handle.catch(() => {
        if (this.#file?.path === path) this.#file = undefined;
      });
      this.#file = { path, handle, bytes: 0 };
    }
    return this.#file;
  }
}

/** Every journal file in `dir` (any writer's), oldest name first, with its lines; a torn last line is skipped. */
export async function readJournals(
  dir: string,
  prefix = "journal",
): Promise<Array<{ path: string; lines: string[] }>> {
  const names = (await readdir(dir).catch(() => []))
    .filter((name) => name.startsWith(`${prefix}-`) && name.endsWith(".jsonl"))
    .sort();
  const files: Array<{ path: string; lines: string[] }> = [];
  for (const name of names) {
    const path = join(dir, name);
    const text = await readFile(path, "utf8").catch(() => "");
    files.push({ path, lines: text.split("\n").filter((line) => line !== "") });
  }
  return files;
}

export async function removeJournal(path: string): Promise<void> {
  await rm(path, { force: true });
}
