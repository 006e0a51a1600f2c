import { createHash } from "node:crypto";
import { createGit, type GitEnv } from "../../git/git-client.js";
import type { CommandResult } from "../../kernel/run-command.js";
import { readFiles } from "./checkout.js";

/**
 * The trees whose checks passed earlier in one job, by what makes them: the
 * checkout's commit, the files a try wrote on it (the bump's manifests and
 * lockfile, the agent's files) and the commands. Every group starts from
 * the same base, so the same tree comes back within a job: the branch as it
 * is, tried by each group whose bump fails, and a probe's subset that then
 * ships as a group of its own. On a real project each was an install and a
 * test run of minutes, to learn what the job already knew. Only passes are
 * kept: a failure (perhaps a flaky one) is tried again.
 */
export type PassedTrees = Map<string, CommandResult>;

/** The key of the tree a try is about to install and check. */
export async function triedTree(options: {
  dir: string;
  env: GitEnv;
  /** Every file the try wrote over the checkout (null where it deleted one). */
  written: Iterable<string>;
  commands: readonly string[];
}): Promise<string> {
  const git = createGit(options.dir, { env: options.env });
  const head = (await git.raw(["rev-parse", "HEAD^{tree}"])).trim();
  const hash = createHash("sha256").update(JSON.stringify([head, options.commands]));
  const files = await readFiles(options.dir, [...new Set(options.written)].sort());
  for (const [path, content] of files) {
    hash.update(`\0${path}\0`);
    hash.update(content === null ? "deleted" : createHash("sha256").update(content).digest("hex"));
  }
  return hash.digest("hex");
}
