import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, lstat, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

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
  /** Fills an empty shelf with a copy of another's (a second lane starts warm). */
  seedFrom(other: WarmInstall): Promise<void>;
  /** The shelved folders, for seedFrom. */
  readonly shelved: ReadonlyMap<string, string>;
  /** Deletes the shelf. */
  dispose(): Promise<void>;
}

/**
 * The package manager's cache lives in the worktree too (the only place a
 * sandboxed install may write), so the next group's lockfile step and
 * install find the packuments and tarballs the last one fetched.
 */
export const TOOL_CACHE = ".patchwright-pm-cache";
const FOLDERS = ["node_modules", TOOL_CACHE];

export function createWarmInstall(cacheDir: string): WarmInstall {
  const shelf = join(cacheDir, "deps-installs", randomBytes(6).toString("hex"));
  const stocked = new Set<string>();
  return {
    get shelved() {
      return new Map([...stocked].map((folder) => [folder, join(shelf, folder)]));
    },
    async seedFrom(other) {
      for (const [folder, path] of other.shelved) {
        if (stocked.has(folder)) continue;
        await mkdir(shelf, { recursive: true });
        // A copy, not links: an install script in one lane must not write into the other's files.
        await copyTree(path, join(shelf, folder));
        stocked.add(folder);
      }
    },
    async restore(dir) {
      let restored = false;
      for (const folder of FOLDERS) {
        if (!stocked.has(folder)) continue;
        const target = join(dir, folder);
        if (await exists(target)) continue;
        await rename(join(shelf, folder), target);
        stocked.delete(folder);
        restored = true;
      }
      return restored;
    },
    async save(dir) {
      for (const folder of FOLDERS) {
        const source = join(dir, folder);
        if (!(await isDirectory(source))) continue;
        await mkdir(shelf, { recursive: true });
        await rm(join(shelf, folder), { recursive: true, force: true });
        await rename(source, join(shelf, folder));
        stocked.add(folder);
      }
    },
    async dispose() {
      stocked.clear();
      await rm(shelf, { recursive: true, force: true });
    },
  };
}

const run = promisify(execFile);

/**
 * The system's `cp -a` (copy-on-write where the file system can): several
 * times faster than fs.cp on a node_modules of thousands of small files;
 * fs.cp where there is no such cp.
 */
async function copyTree(from: string, to: string): Promise<void> {
  try {
    await run("cp", ["-a", "--reflink=auto", "--", from, to]);
  } catch {
    await rm(to, { recursive: true, force: true });
    await cp(from, to, { recursive: true, verbatimSymlinks: true });
  }
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
