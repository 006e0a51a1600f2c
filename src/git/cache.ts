import { lstat, readdir, readFile, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createGit, type GitEnv } from "./git-client.js";
import { LockTimeoutError, withLock } from "./lock.js";
import { lastUsed, lockPathFor, MIRRORS_DIR } from "./mirror.js";
import { CREATED_MARKER } from "./workspace.js";

/** Housekeeping for the mirror cache: crashed jobs' leftovers and a size bound. */

export interface CleanStaleOptions {
  /** Worktrees created longer ago than this are considered abandoned. */
  olderThanMs: number;
  now?: number;
  /** Same as given to prepareWorkspace (default `<cacheDir>/work`). */
  workRoot?: string;
  env?: GitEnv;
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
  const env = options.env ?? process.env;
  const workRoot = resolve(options.workRoot ?? join(cacheDir, "work"));
  const cutoff = now - options.olderThanMs;
  const removed: string[] = [];
  const live = new Set<string>();

  for (const mirrorDir of await listMirrors(cacheDir)) {
    await withLock(lockPathFor(mirrorDir), async () => {
      const adminRoot = join(mirrorDir, "worktrees");
      for (const id of await readdir(adminRoot).catch(() => [] as string[])) {
        const adminDir = join(adminRoot, id);
        const worktree = await worktreePath(adminDir);
        if ((await createdAt(adminDir)) > cutoff) {
          if (worktree) live.add(worktree);
          continue;
        }
        if (worktree) {
          await rm(worktree, { recursive: true, force: true });
          removed.push(worktree);
        }
        await rm(adminDir, { recursive: true, force: true });
      }
      const git = createGit(mirrorDir, { env, noHooks: true });
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
 * Mirrors with a job running (a worktree or a held lock) are never evicted.
 */
export async function pruneCache(
  cacheDir: string,
  options: PruneCacheOptions,
): Promise<{ evicted: string[]; bytes: number }> {
  const mirrors = await Promise.all(
    (await listMirrors(cacheDir)).map(async (dir) => ({
      dir,
      bytes: await sizeOf(dir),
      used: await lastUsed(dir),
    })),
  );
  let bytes = mirrors.reduce((sum, m) => sum + m.bytes, 0);
  const evicted: string[] = [];
  for (const mirror of mirrors.sort((a, b) => a.used - b.used)) {
    if (bytes <= options.maxBytes) break;
    try {
      await withLock(
        lockPathFor(mirror.dir),
        async () => {
          const worktrees = await readdir(join(mirror.dir, "worktrees")).catch(() => []);
          if (worktrees.length > 0) return;
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

async function worktreePath(adminDir: string): Promise<string | null> {
  const gitFile = await readFile(join(adminDir, "gitdir"), "utf8").catch(() => null);
  return gitFile ? dirname(gitFile.trim()) : null;
}

async function createdAt(adminDir: string): Promise<number> {
  const stamp = Number(
    (await readFile(join(adminDir, CREATED_MARKER), "utf8").catch(() => "")).trim(),
  );
  if (stamp > 0) return stamp;
  return (await stat(adminDir)).mtimeMs;
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
