import { randomBytes } from "node:crypto";
import { lstat, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";

/**
 * One install per job: the installed tree (node_modules) moves from one
 * group's worktree to the next instead of being built again, and later
 * installs only change what the group's lockfile changes. Worktrees and
 * this shelf live on the same file system under the cache, so a move is a
 * rename, and the shelf is the host's: no sandbox ever sees it.
 */

export interface WarmInstall {
  /** Puts the shelved tree into the worktree; true when there was one. */
  restore(dir: string): Promise<boolean>;
  /** Shelves the worktree's tree for the next group. */
  save(dir: string): Promise<void>;
  /** Deletes the shelf. */
  dispose(): Promise<void>;
}

const FOLDER = "node_modules";

export function createWarmInstall(cacheDir: string): WarmInstall {
  const shelf = join(cacheDir, "deps-installs", randomBytes(6).toString("hex"));
  const shelved = join(shelf, FOLDER);
  let stocked = false;
  return {
    async restore(dir) {
      if (!stocked) return false;
      const target = join(dir, FOLDER);
      if (await exists(target)) return false;
      await rename(shelved, target);
      stocked = false;
      return true;
    },
    async save(dir) {
      const source = join(dir, FOLDER);
      if (!(await isDirectory(source))) return;
      await mkdir(shelf, { recursive: true });
      await rm(shelved, { recursive: true, force: true });
      await rename(source, shelved);
      stocked = true;
    },
    async dispose() {
      stocked = false;
      await rm(shelf, { recursive: true, force: true });
    },
  };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** A real directory: a link the repository committed is never followed out of the worktree. */
async function isDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
