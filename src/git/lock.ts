import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

/**
 * A lock shared by every process on the machine: `mkdir` either creates the
 * directory or fails, atomically, on every file system we care about. The
 * holder refreshes its mtime while working so a lock whose mtime stops moving
 * (or whose owner process is gone) can be broken by the next comer.
 */
export interface LockOptions {
  /** A lock untouched this long is abandoned (default 10 minutes). */
  staleMs?: number;
  /** Pause between attempts while someone else holds it (default 100 ms). */
  retryMs?: number;
  /** Give up after this long; 0 means a single attempt (default 15 minutes). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export class LockTimeoutError extends Error {
  constructor(readonly lockPath: string) {
    super(`timed out waiting for lock ${lockPath}; if no other job is running, delete it`);
    this.name = "LockTimeoutError";
  }
}

interface Owner {
  pid: number;
  host: string;
}

export async function withLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 10 * 60_000;
  await acquire(lockPath, staleMs, options);
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(lockPath, now, now).catch(() => {});
  }, staleMs / 4);
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    await rm(lockPath, { recursive: true, force: true });
  }
}

async function acquire(lockPath: string, staleMs: number, options: LockOptions): Promise<void> {
  const retryMs = options.retryMs ?? 100;
  const deadline = Date.now() + (options.timeoutMs ?? 15 * 60_000);
  mkdirSync(dirname(lockPath), { recursive: true });
  for (;;) {
    options.signal?.throwIfAborted();
    if (tryTake(lockPath)) return;
    if (await isStale(lockPath, staleMs)) {
      // Renaming first means only one of several waiters breaks the lock.
      const grave = `${lockPath}.stale-${randomBytes(4).toString("hex")}`;
      const moved = await rename(lockPath, grave).then(
        () => true,
        () => false,
      );
      if (moved) await rm(grave, { recursive: true, force: true });
      continue;
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(lockPath);
    await delay(retryMs, undefined, options.signal ? { signal: options.signal } : {});
  }
}

/**
 * Takes the lock if it is free; false when someone holds it. Synchronous (a
 * folder and a small file): an asynchronous try is three trips to the
 * thread pool, each waiting for this thread, which in the Action is busy
 * loading the bundle while its early fetch takes the mirror's lock (see
 * git/mirror/bare-init.ts).
 */
function tryTake(lockPath: string): boolean {
  try {
    mkdirSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  const owner: Owner = { pid: process.pid, host: hostname() };
  writeFileSync(join(lockPath, "owner.json"), JSON.stringify(owner));
  return true;
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  const info = await stat(lockPath).catch(() => null);
  if (!info) return false;
  if (Date.now() - info.mtimeMs > staleMs) return true;
  const owner = await readOwner(lockPath);
  return owner !== null && owner.host === hostname() && !isAlive(owner.pid);
}

async function readOwner(lockPath: string): Promise<Owner | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(lockPath, "owner.json"), "utf8"));
    if (typeof parsed !== "object" || parsed === null) return null;
    const { pid, host } = parsed as Record<string, unknown>;
    return typeof pid === "number" && typeof host === "string" ? { pid, host } : null;
  } catch {
    // Not written yet (the owner is between mkdir and writeFile) or torn.
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
