import { lstat, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { createGit, type GitEnv } from "../git-client.js";
import { LockTimeoutError, withLock } from "../lock.js";
import { defaultWorkRoot } from "../workspace/work-root.js";
import { listWorktrees } from "../workspace/worktrees.js";
import { lastUsed, lockPathFor, MIRRORS_DIR } from "./mirror.js";

/** Housekeeping for the mirror cache: crashed jobs' leftovers and a size bound. */

export interface CleanStaleOptions {
  /** Worktrees created longer ago than this are considered abandoned. */
  olderThanMs: number;
  now?: number;
  /** Same as given to prepareWorkspace (default: defaultWorkRoot). */
  workRoot?: string;
  /** The caller's environment (from its entry point). */
  env: GitEnv;
}

/**
 * Removes worktrees (and their local branches) left behind by a process that
 * died mid-job, plus stray directories in the work root. Call it at start-up.
 */
export async function cleanStaleWorkspaces(
  cacheDir: string,
  options: CleanStaleOptions,
): Promise<{ removed: string[] }> {
  const now = options.now ?? Date.now();
  const env = options.env;
  const workRoot = resolve(options.workRoot ?? defaultWorkRoot(cacheDir));
  const cutoff = now - options.olderThanMs;
  const removed: string[] = [];
  const live = new Set<string>();

  for (const mirrorDir of await listMirrors(cacheDir)) {
    await withLock(lockPathFor(mirrorDir), async () => {
      for (const worktree of await listWorktrees(mirrorDir)) {
        // Parked worktrees were scrubbed on release; they are a cache, not leftovers.
        if (worktree.idle || worktree.createdAt > cutoff) {
          if (worktree.dir) live.add(worktree.dir);
          continue;
        }
        if (worktree.dir) {
          await rm(worktree.dir, { recursive: true, force: true });
          removed.push(worktree.dir);
        }
        await rm(worktree.adminDir, { recursive: true, force: true });
      }
      const git = createGit(mirrorDir, { env });
      await git.raw(["worktree", "prune"]);
      await deleteIdleBranches(git);
    });
  }

  for (const name of await readdir(workRoot).catch(() => [] as string[])) {
    const path = join(workRoot, name);
    if (live.has(path)) continue;
    const info = await lstat(path).catch(() => null);
    if (info && info.mtimeMs <= cutoff) {
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    }
  }
  return { removed: [...new Set(removed)] };
}

export interface PruneCacheOptions {
  maxBytes: number;
}

/**
 * Deletes least-recently-used mirrors until the cache fits in maxBytes.
 * Mirrors with a job running (a busy worktree or a held lock) are never
 * evicted; parked worktrees count toward the size and go with their mirror.
 */
export async function pruneCache(
  cacheDir: string,
  options: PruneCacheOptions,
): Promise<{ evicted: string[]; bytes: number }> {
  const mirrors = await Promise.all(
    (await listMirrors(cacheDir)).map(async (dir) => {
      const worktrees = await listWorktrees(dir);
      const parked = worktrees.filter((w) => w.idle && w.dir).map((w) => w.dir as string);
      let bytes = await sizeOf(dir);
      for (const path of parked) bytes += await sizeOf(path);
      return { dir, bytes, parked, used: await lastUsed(dir) };
    }),
  );
  let bytes = mirrors.reduce((sum, m) => sum + m.bytes, 0);
  const evicted: string[] = [];
  for (const mirror of mirrors.sort((a, b) => a.used - b.used)) {
    if (bytes <= options.maxBytes) break;
    try {
      await withLock(
        lockPathFor(mirror.dir),
        async () => {
          if ((await listWorktrees(mirror.dir)).some((w) => !w.idle)) return;
          for (const path of mirror.parked) await rm(path, { recursive: true, force: true });
          await rm(mirror.dir, { recursive: true, force: true });
          bytes -= mirror.bytes;
          evicted.push(mirror.dir);
        },
        { timeoutMs: 0 },
      );
    } catch (error) {
      if (!(error instanceof LockTimeoutError)) throw error;
    }
  }
  return { evicted, bytes };
}

async function listMirrors(cacheDir: string): Promise<string[]> {
  const root = join(resolve(cacheDir), MIRRORS_DIR);
  const names = await readdir(root).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith(".git")).map((name) => join(root, name));
}

/** Local branches in a mirror belong to jobs; any not checked out is a leftover. */
async function deleteIdleBranches(git: ReturnType<typeof createGit>): Promise<void> {
  const inUse = new Set(
    (await git.raw(["worktree", "list", "--porcelain"]))
      .split("\n")
      .filter((line) => line.startsWith("branch "))
      .map((line) => line.slice("branch ".length)),
  );
  const refs = (await git.raw(["for-each-ref", "--format=%(refname)", "refs/heads/"]))
    .split("\n")
    .filter((ref) => ref && !inUse.has(ref));
  for (const ref of refs) await git.raw(["update-ref", "-d", ref]);
}

async function sizeOf(path: string): Promise<number> {
  const info = await lstat(path).catch(() => null);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}
