import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { RunArgs } from "./args.js";
import { toCloneUrl } from "./job-summary.js";
import { UsageError } from "./usage-error.js";

/**
 * The local paths a run names, checked before anything else happens (before
 * the API key, the transcript or a clone), so a typo costs one line. URLs are
 * not probed: the clone says what is wrong with them.
 */
export async function checkRunPaths(args: RunArgs, cwd: string): Promise<void> {
  if (args.repo) {
    const cloneUrl = toCloneUrl(args.repo, cwd);
    // toCloneUrl turns a local path into a file:// URL and gives a URL back as it came.
    if (cloneUrl !== args.repo) await requireRepository(fileURLToPath(cloneUrl), args.repo);
    return;
  }
  if (!(await isDirectory(resolve(cwd, args.cwd)))) {
    throw new UsageError(`--cwd ${args.cwd}: no such directory`);
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function requireRepository(dir: string, given: string): Promise<void> {
  if (!(await isDirectory(dir))) throw new UsageError(`--repo ${given}: no such directory`);
  // The top of a checkout (.git is a directory, or a file in a linked worktree) or a bare repository.
  const exists = (name: string) =>
    stat(join(dir, name)).then(
      () => true,
      () => false,
    );
  const isBare = (await exists("HEAD")) && (await isDirectory(join(dir, "objects")));
  if (!isBare && !(await exists(".git"))) {
    throw new UsageError(
      `--repo ${given}: not a git repository; give the top of a checkout, a bare repository or a URL`,
    );
  }
}
