import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * patchwright's scratch folders under the system temp dir: a sandbox's
 * config files, a scratch git index, a checkpoint's index, a base
 * checkout's manifests. Each is removed when its work is done; a process
 * killed mid-job (a deploy's SIGKILL, the OOM killer) leaves its own
 * behind, so they share one prefix and the worker service sweeps old ones
 * when it starts (sweepScratch).
 */

export const SCRATCH_PREFIX = "patchwright-tmp-";

/** A new private folder for `purpose` ("checkpoint", "home", …). */
export function makeScratchDir(purpose: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `${SCRATCH_PREFIX}${purpose}-`));
}

/**
 * Removes this user's scratch folders untouched for `olderThanMs` (a
 * folder's time moves as files come and go in it), in `dir` (the system
 * temp dir): what processes that ended without cleaning up left. Returns
 * their names. Another process's folder in use is younger than any job.
 */
export async function sweepScratch(options: {
  olderThanMs: number;
  now?: number;
  dir?: string;
}): Promise<string[]> {
  const dir = options.dir ?? tmpdir();
  const now = options.now ?? Date.now();
  const uid = process.getuid?.();
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) =>
    name.startsWith(SCRATCH_PREFIX),
  );
  const removed: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (!info?.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
    if (now - info.mtimeMs < options.olderThanMs) continue;
    await rm(path, { recursive: true, force: true }).catch(() => {});
    removed.push(name);
  }
  return removed;
}
