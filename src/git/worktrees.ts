import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { SimpleGit } from "simple-git";
import { createGit, type GitEnv } from "./git-client.js";

/**
 * Worktrees of a mirror, as jobs use them. Bookkeeping lives in each
 * worktree's admin dir inside the mirror (`<mirror>/worktrees/<id>/`), out of
 * the agent's sight in the tree itself:
 * - CREATED_MARKER: when a job took the worktree (stale-job detection);
 * - IDLE_MARKER: the worktree is clean and parked for the next job.
 */
export const CREATED_MARKER = "patchwright-created";
export const IDLE_MARKER = "patchwright-idle";

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
      const idle = await stat(join(adminDir, IDLE_MARKER)).then(
        () => true,
        () => false,
      );
      return {
        adminDir,
        dir: gitFile ? dirname(gitFile.trim()) : null,
        idle,
        createdAt: stamp > 0 ? stamp : (await stat(adminDir)).mtimeMs,
      };
    }),
  );
}

/** Creates a worktree; the caller holds the mirror lock. */
export async function addWorktree(git: SimpleGit, args: string[], branch: string): Promise<void> {
  try {
    await git.raw(["worktree", "add", ...args]);
  } catch (error) {
    if (
      !(error instanceof Error) ||
      !/already (checked out|used by worktree)/i.test(error.message)
    ) {
      throw error;
    }
    // Maybe a worktree whose directory vanished without cleanup; prune and try once more.
    await git.raw(["worktree", "prune"]);
    try {
      await git.raw(["worktree", "add", ...args]);
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

export async function removeWorktree(git: SimpleGit, dir: string): Promise<void> {
  await git.raw(["worktree", "remove", "--force", "--force", dir]).catch(async () => {
    await rm(dir, { recursive: true, force: true });
    await git.raw(["worktree", "prune"]);
  });
}

/** Local branches in the mirror exist only for running jobs. */
export async function deleteLocalBranch(git: SimpleGit, branch: string): Promise<void> {
  await git.raw(["branch", "-D", "--", branch]).catch(() => {});
}

/**
 * Puts a finished job's tree back to a pristine checkout (tracked files
 * restored, every untracked and ignored file gone, HEAD detached) so the
 * next job only has to check out the files that differ. Runs without the
 * lock: it touches only this worktree's own files, index and HEAD.
 */
export async function scrubWorktree(dir: string, env: GitEnv): Promise<void> {
  const git = createGit(dir, { env, noHooks: true });
  await git.raw(["reset", "--hard", "--quiet"]);
  await git.raw(["clean", "-ffdxq"]);
  await git.raw(["checkout", "--detach", "--quiet"]);
}

export async function markIdle(dir: string): Promise<void> {
  await writeFile(join(await worktreeAdminDir(dir), IDLE_MARKER), "");
}

async function readText(path: string): Promise<string> {
  return readFile(path, "utf8").catch(() => "");
}
