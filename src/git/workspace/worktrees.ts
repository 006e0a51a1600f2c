import { randomBytes } from "node:crypto";
import { readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { type Git, type GitClientOptions, runGit } from "../git-client.js";

/**
 * Worktrees of a mirror, as jobs use them. Bookkeeping lives in each
 * worktree's admin dir inside the mirror (`<mirror>/worktrees/<id>/`), out of
 * the agent's sight in the tree itself:
 * - CREATED_MARKER: when a job took the worktree (stale-job detection);
 * - IDLE_MARKER: the worktree is clean and parked for the next job; it holds
 *   the commit the tree was parked at.
 */
export const CREATED_MARKER = "patchwright-created";
export const IDLE_MARKER = "patchwright-idle";

/**
 * Config for the commands that write a tree's files (`worktree add`, a
 * parked tree's checkout, the scrub's reset): git's parallel checkout.
 * Besides using more than one core, it creates a checkout's directories
 * before any of its files, and on ext4 without a journal that is what
 * counts: right after many files were deleted (a finished job's tree),
 * the allocator skips each recently freed inode again for every new file,
 * and a serial checkout of 20,000 files took 15-35 s there (as long as a
 * plain clone), the parallel one 2-4 s. So two workers even on one core;
 * below git's threshold (100 files) the checkout stays serial. Git older
 * than 2.32 ignores the setting.
 */
export function treeWriteConfig(cpus: number = availableParallelism()): Array<[string, string]> {
  return [["checkout.workers", String(Math.min(8, Math.max(2, cpus)))]];
}

export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceError";
  }
}

export interface WorktreeInfo {
  adminDir: string;
  /** The working tree directory (null when the admin dir is torn). */
  dir: string | null;
  idle: boolean;
  /** The commit a parked tree sits at (null when not parked or unknown). */
  parkedAt: string | null;
  /** When a job last took it (ms), or the admin dir's mtime. */
  createdAt: number;
}

export async function listWorktrees(mirrorDir: string): Promise<WorktreeInfo[]> {
  const root = join(mirrorDir, "worktrees");
  const ids = await readdir(root).catch(() => [] as string[]);
  return Promise.all(
    ids.map(async (id) => {
      const adminDir = join(root, id);
      const gitFile = await readFile(join(adminDir, "gitdir"), "utf8").catch(() => null);
      const stamp = Number((await readText(join(adminDir, CREATED_MARKER))).trim());
      const parked = await readFile(join(adminDir, IDLE_MARKER), "utf8").catch(() => null);
      const parkedAt = parked?.trim() ?? "";
      return {
        adminDir,
        dir: gitFile ? dirname(gitFile.trim()) : null,
        idle: parked !== null,
        parkedAt: /^[0-9a-f]{40,64}$/.test(parkedAt) ? parkedAt : null,
        createdAt: stamp > 0 ? stamp : (await stat(adminDir)).mtimeMs,
      };
    }),
  );
}

/** Creates a worktree; the caller holds the mirror lock. */
export async function addWorktree(
  mirrorDir: string,
  options: GitClientOptions,
  args: string[],
  branch: string,
): Promise<void> {
  const git = (gitArgs: string[]) => runGit(mirrorDir, gitArgs, options);
  try {
    await git(["worktree", "add", ...args]);
  } catch (error) {
    if (
      !(error instanceof Error) ||
      !/already (checked out|used by worktree)/i.test(error.message)
    ) {
      throw error;
    }
    // Maybe a worktree whose directory vanished without cleanup; prune and try once more.
    await git(["worktree", "prune"]);
    try {
      await git(["worktree", "add", ...args]);
    } catch {
      throw new WorkspaceError(
        `branch "${branch}" is checked out by another running job; wait for it to finish`,
      );
    }
  }
}

/** Takes a parked worktree for a new job, or null. The caller holds the mirror lock. */
export async function claimIdleWorktree(mirrorDir: string): Promise<WorktreeInfo | null> {
  const idle = (await listWorktrees(mirrorDir)).find((w) => w.idle && w.dir);
  if (!idle) return null;
  await rm(join(idle.adminDir, IDLE_MARKER), { force: true });
  return idle;
}

export async function stampCreated(dir: string, now: number): Promise<void> {
  await writeFile(join(await worktreeAdminDir(dir), CREATED_MARKER), String(now));
}

/** The worktree's private git dir inside the mirror, from its `.git` file. */
export async function worktreeAdminDir(dir: string): Promise<string> {
  const pointer = await readFile(join(dir, ".git"), "utf8");
  return resolve(dir, pointer.replace(/^gitdir:\s*/, "").trim());
}

export async function removeWorktree(
  mirrorDir: string,
  dir: string,
  options: GitClientOptions,
): Promise<void> {
  const git = { ...options };
  await runGit(mirrorDir, ["worktree", "remove", "--force", "--force", dir], git).catch(
    async () => {
      await rm(dir, { recursive: true, force: true });
      await runGit(mirrorDir, ["worktree", "prune"], git);
    },
  );
}

/**
 * Takes a worktree out of the mirror and its files out of the way, for
 * `deleteDetachedTree` to delete after the caller lets go of the mirror
 * lock: a finished job's tree (node_modules and all) can take seconds to
 * delete, and the next job on the repository need not wait for that. The
 * files move beside the tree (same file system, so a rename); a process
 * that dies before deleting them leaves a stray folder that
 * cleanStaleWorkspaces removes. Falls back to removeWorktree (returning
 * null) when the tree cannot be moved. The caller holds the mirror lock.
 */
export async function detachWorktree(
  mirrorDir: string,
  dir: string,
  options: GitClientOptions,
): Promise<string | null> {
  // Git's own record names the admin dir, not the tree's `.git` file: the
  // job could have pointed that anywhere.
  const adminDir = (await listWorktrees(mirrorDir)).find((w) => w.dir === dir)?.adminDir;
  const aside = join(dirname(dir), `${basename(dir)}-removed-${randomBytes(4).toString("hex")}`);
  const moved =
    adminDir !== undefined &&
    (await rename(dir, aside).then(
      () => true,
      () => false,
    ));
  if (!moved || adminDir === undefined) {
    await removeWorktree(mirrorDir, dir, options);
    return null;
  }
  // Git's record of the worktree: without it, the branch is free and the
  // tree is not listed, parked or counted.
  await rm(adminDir, { recursive: true, force: true });
  return aside;
}

/** Deletes what detachWorktree moved aside; no lock needed, nothing refers to it. */
export async function deleteDetachedTree(aside: string | null): Promise<void> {
  if (aside) await rm(aside, { recursive: true, force: true, maxRetries: 3 });
}

/** Local branches in the mirror exist only for running jobs. */
export async function deleteLocalBranch(git: Git, branch: string): Promise<void> {
  await git.raw(["branch", "-D", "--", branch]).catch(() => {});
}

/**
 * Puts a finished job's tree back to a pristine checkout of `commit` (the
 * base the job started from: the next job most likely starts there too),
 * with HEAD detached, tracked files restored and every untracked and ignored
 * file gone. Runs without the lock: it touches only this worktree's own
 * files, index and HEAD. Stop the job's processes first.
 */
export async function scrubWorktree(
  dir: string,
  commit: string,
  options: GitClientOptions,
): Promise<void> {
  const git = { ...options };
  // Detach first, so the reset leaves the job's branch alone and writes only
  // the files that differ between the job's last state and `commit`.
  await runGit(dir, ["update-ref", "--no-deref", "HEAD", commit], git);
  await runGit(dir, ["reset", "--hard", "--quiet"], git);
  await runGit(dir, ["clean", "-ffdxq"], git);
}

export async function markIdle(dir: string, commit: string): Promise<void> {
  await writeFile(join(await worktreeAdminDir(dir), IDLE_MARKER), commit);
}

async function readText(path: string): Promise<string> {
  return readFile(path, "utf8").catch(() => "");
}

/**
 * Puts the job's branch in a parked worktree; null when there is none or it
 * fails (the worktree is then removed). The caller holds the mirror lock and
 * has made sure no worktree has the branch checked out.
 *
 * A parked tree was reset and cleaned after its job's processes had stopped,
 * and nothing runs in it while parked. So when it already sits at the start
 * commit, only the branch and HEAD are set: no `checkout`, which would
 * stat every file (about 85 ms on 20,000 files, most of a warm start). The
 * cost is that drift from a process that escaped its job's process group
 * would survive; that process could as well have written to the mirror.
 */
export async function takeParkedWorktree(
  mirrorDir: string,
  target: { branch: string; sha: string },
  gitOptions: GitClientOptions,
): Promise<string | null> {
  const idle = await claimIdleWorktree(mirrorDir);
  if (!idle?.dir) return null;
  const { branch, sha } = target;
  const dir = idle.dir;
  try {
    if (idle.parkedAt === sha) {
      // The branch and HEAD are separate refs with separate locks, so both
      // are set at once. The empty old value makes update-ref fail if the
      // branch has appeared since the refs were read.
      const set = await Promise.allSettled([
        runGit(dir, ["update-ref", `refs/heads/${branch}`, sha, ""], gitOptions),
        runGit(dir, ["symbolic-ref", "HEAD", `refs/heads/${branch}`], gitOptions),
      ]);
      const failed = set.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    } else {
      // Only the files that differ are written; -f also discards any drift.
      await runGit(dir, ["checkout", "-f", "--no-track", "-B", branch, sha], gitOptions);
    }
    return dir;
  } catch {
    await removeWorktree(mirrorDir, idle.dir, gitOptions);
    return null;
  }
}
