import { join } from "node:path";
import { type GitEnv, runGit } from "../git-client.js";

/**
 * Every path that holds a checkout's git metadata: the `.git` entry in the
 * work tree (a file in a worktree, pointing elsewhere), the checkout's git
 * directory and the common one (a worktree's mirror). Sandboxes show these
 * read-only: hooks, config and the `.git` pointer are what the job's own
 * git trusts, and code from the repository must not rewrite them.
 */
export async function gitMetadataPaths(dir: string, env: GitEnv): Promise<string[]> {
  const out = await runGit(
    dir,
    ["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"],
    { env },
  ).catch(() => "");
  const [top, gitDir, commonDir] = out.split("\n").map((line) => line.trim());
  if (!top || !gitDir || !commonDir) return [];
  return [...new Set([join(top, ".git"), gitDir, commonDir])];
}
