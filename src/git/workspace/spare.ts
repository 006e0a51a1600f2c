import { stat } from "node:fs/promises";
import { join } from "node:path";
import { type GitClientOptions, runGit } from "../git-client.js";
import { withLock } from "../lock.js";
import { lockPathFor } from "../mirror/mirror.js";
import { listWorktrees, markIdle, removeWorktree, worktreeAdminDir } from "./worktrees.js";

/**
 * A spare tree: when a job had to write a whole new worktree because none
 * was parked, another one is checked out beside it in the background and
 * parked, so that a job arriving while this one runs takes it ready instead
 * of writing every file itself. Writing the files is a new worktree's whole
 * cost (about 0.6-0.9 s for 20,000 files on a quiet disk, 1.7 s and more
 * right after a finished job's tree was deleted), and nothing in git makes
 * it much cheaper: ext4 has no copy-on-write, and hard links would let one
 * job's writes reach another's tree.
 *
 * Only after a new tree is written, never after a parked one is taken: jobs
 * one after another keep using their parked tree and cost nothing extra; a
 * spare costs one checkout in the background (and, if no second job came,
 * the delete of the surplus tree when the first one ends). And only for big
 * trees: below SPARE_MIN_INDEX_BYTES a new worktree is quick anyway.
 */

/** The index size from which a tree counts as big: about 2,500 files (an entry is ~100 bytes). */
export const SPARE_MIN_INDEX_BYTES = 256 * 1024;

/** Whether the worktree at `dir` is big enough for a spare (its index's size). */
export async function isBigTree(dir: string, minIndexBytes: number): Promise<boolean> {
  const admin = await worktreeAdminDir(dir).catch(() => null);
  const index = admin ? await stat(join(admin, "index")).catch(() => null) : null;
  return index !== null && index.size >= minIndexBytes;
}

export interface SpareOptions {
  mirrorDir: string;
  /** Where the spare goes (a new folder in the work root). */
  dir: string;
  /** The commit it is checked out and parked at (where a new job most likely starts). */
  commit: string;
  /** git's options for the checkout (with the token, for a partial mirror's blobs, and the job's signal). */
  gitOptions: GitClientOptions;
}

/**
 * Checks out and parks a spare worktree, unless one is parked already.
 * Resolves to its folder, or null when none was made; never rejects: a
 * spare is a head start, and one that fails (or is stopped by the job's
 * signal) is removed and leaves nothing behind. Holds the mirror lock
 * throughout, so a job that comes meanwhile waits for the spare and takes
 * it rather than writing its own tree at the same time. A process that dies
 * mid-checkout leaves a worktree that is neither parked nor a job's, which
 * cleanStaleWorkspaces removes.
 */
export async function buildSpare(options: SpareOptions): Promise<string | null> {
  const { mirrorDir, dir, commit, gitOptions } = options;
  const { signal: _signal, ...untilDone } = gitOptions;
  return withLock(lockPathFor(mirrorDir), async () => {
    if ((await listWorktrees(mirrorDir)).some((w) => w.idle)) return null;
    try {
      await runGit(mirrorDir, ["worktree", "add", "--detach", dir, commit], gitOptions);
      await markIdle(dir, commit);
      return dir;
    } catch {
      // Without the signal: a stopped spare is still removed.
      await removeWorktree(mirrorDir, dir, untilDone).catch(() => {});
      return null;
    }
  }).catch(() => null);
}
