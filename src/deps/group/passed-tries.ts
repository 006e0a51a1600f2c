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

/**
 * The lockfile steps that passed earlier in one job, by the same start as a
 * try's but without the checks: a try of the same updates comes back with
 * other checks, or none (the bump put back in place for the agent after the
 * branch as it is was tried; see bump-steps.ts), and its lockfile step
 * would resolve the same versions again (the cutoff is part of the key; the
 * packuments are the ones the first step fetched, as --prefer-offline
 * already takes them). On a real project that step alone is a resolution of
 * the whole tree, seconds to minutes. What it wrote comes back from here;
 * the install runs as ever. A step that failed, or locked another version
 * than planned, is not kept.
 */
export interface PassedLocks {
  get(key: string): PassedLock | undefined;
  /** Kept while the job's kept files fit in the budget. */
  keep(key: string, lock: PassedLock): void;
}

export interface PassedLock {
  lockfile: CommandResult;
  /** What the bump wrote over the checkout: the manifests, the lockfile, a release file. */
  files: ReadonlyMap<string, Buffer | null>;
}

/**
 * A large monorepo's lockfile is megabytes, and a bisection locks many
 * subsets that never come back. Past the budget nothing more is kept: the
 * first steps of a group (its whole set of updates, the branch as it is)
 * are the ones that do come back.
 */
export function createPassedLocks(maxBytes = 64 * 1024 * 1024): PassedLocks {
  const kept = new Map<string, PassedLock>();
  let bytes = 0;
  return {
    get: (key) => kept.get(key),
    keep(key, lock) {
      if (kept.has(key)) return;
      const size = [...lock.files.values()].reduce((sum, file) => sum + (file?.length ?? 0), 0);
      if (bytes + size > maxBytes) return;
      bytes += size;
      kept.set(key, lock);
    },
  };
}

/**
 * What a try starts from, as a key: the checkout's tree, the updates, the
 * agent's files, the cutoff. The key of its lockfile step (PassedLocks).
 */
export async function tryStart(options: {
  dir: string;
  env: GitEnv;
  updates: readonly Update[];
  /** The agent's files, written over the checkout before the bump. */
  extra: ReadonlyMap<string, Buffer | null> | undefined;
  before: Date | undefined;
}): Promise<string> {
  const git = createGit(options.dir, { env: options.env });
  const head = (await git.raw(["rev-parse", "HEAD^{tree}"])).trim();
  const hash = createHash("sha256").update(
    JSON.stringify([head, options.updates, options.before?.toISOString()]),
  );
  for (const [path, content] of [...(options.extra ?? [])].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(`\0${path}\0`);
    hash.update(content === null ? "deleted" : createHash("sha256").update(content).digest("hex"));
  }
  return hash.digest("hex");
}

/** The key of a try before anything runs: what it starts from and the commands it is asked to run. */
export function tryInput(start: string, commands: readonly (string | null)[]): string {
  return createHash("sha256")
    .update(JSON.stringify([start, commands]))
    .digest("hex");
}
