import { createHash } from "node:crypto";
import { createGit, type GitEnv } from "../../git/git-client.js";
import type { CommandResult } from "../../kernel/run-command.js";
import type { Update } from "../update.js";

/**
 * The tries whose checks passed earlier in one job, by what each started
 * from: the checkout's commit, the updates, the agent's files, the cutoff
 * and the commands. Every group starts from the same base, so the same try
 * comes back within a job: the branch as it is, tried by each group whose
 * bump fails, and a probe's subset that then ships as a group of its own.
 * On a real project each was a lockfile step, an install and a test run of
 * minutes, to learn what the job already knew; the files the try wrote
 * come back from here instead. Only passes are kept: a failure (perhaps a
 * flaky one) is tried again.
 */
export type PassedTries = Map<string, PassedTry>;

export interface PassedTry {
  verify: CommandResult;
  /** What the try wrote over the checkout: the manifests and the lockfile (null: deleted). */
  files: ReadonlyMap<string, Buffer | null>;
}

/** The key of a try before anything runs: what it starts from and what it is asked to do. */
export async function tryInput(options: {
  dir: string;
  env: GitEnv;
  commands: readonly (string | null)[];
  updates: readonly Update[];
  /** The agent's files, written over the checkout before the bump. */
  extra: ReadonlyMap<string, Buffer | null> | undefined;
  before: Date | undefined;
}): Promise<string> {
  const git = createGit(options.dir, { env: options.env });
  const head = (await git.raw(["rev-parse", "HEAD^{tree}"])).trim();
  const hash = createHash("sha256").update(
    JSON.stringify([head, options.commands, options.updates, options.before?.toISOString()]),
  );
  for (const [path, content] of [...(options.extra ?? [])].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(`\0${path}\0`);
    hash.update(content === null ? "deleted" : createHash("sha256").update(content).digest("hex"));
  }
  return hash.digest("hex");
}
