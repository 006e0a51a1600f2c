import { GitCommandError } from "../git-client.js";
import { PushRefusedError, type PushTarget, pushContext } from "../push/push-context.js";
import { type KnownSecret, refuseSecretsInNewCommits } from "../push/secret-scan.js";
import { retryGit } from "../retry.js";

/**
 * A job's checkpoints live on the remote under a ref the job owns,
 * `refs/patchwright/wip/<job id>`: outside refs/heads, so no branch list,
 * pull request or CI run sees them, and force-pushed, since each checkpoint
 * is the job's whole work so far. Another worker resumes from it after a
 * crash; it is deleted once the work is on the job's branch.
 */

const CHECKPOINT_REF = /^refs\/patchwright\/wip\/[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function checkpointRef(jobId: string): string {
  const ref = `refs/patchwright/wip/${jobId.replace(/[^A-Za-z0-9._-]/g, "-")}`;
  checkRef(ref);
  return ref;
}

function checkRef(ref: string): void {
  // What git itself refuses in a ref name, refused here before any push.
  if (!CHECKPOINT_REF.test(ref) || ref.includes("..") || /(\.lock|\.)$/.test(ref)) {
    throw new PushRefusedError(ref, "only refs/patchwright/wip/<job id> takes checkpoints");
  }
}

export interface CheckpointPush extends PushTarget {
  ref: string;
  sha: string;
  /** Every secret the process knows; the token is added. Checkpoints are scanned like branches. */
  secrets: readonly KnownSecret[];
}

export async function pushCheckpoint(options: CheckpointPush): Promise<void> {
  checkRef(options.ref);
  const ctx = await pushContext(options, options.ref);
  await refuseSecretsInNewCommits({
    dir: options.dir,
    env: ctx.env,
    secrets: options.secrets,
    token: ctx.token,
    tip: options.sha,
  });
  await retryGit(
    () =>
      ctx.git.raw([
        "push",
        "--porcelain",
        "--force",
        "--",
        ctx.url,
        `${options.sha}:${options.ref}`,
      ]),
    ctx.retry,
  );
}

/** The checkpoint's commit, fetched into the workspace; undefined when the remote has none. */
export async function fetchCheckpoint(
  options: PushTarget & { ref: string },
): Promise<string | undefined> {
  checkRef(options.ref);
  const ctx = await pushContext(options, options.ref);
  try {
    await retryGit(
      () =>
        ctx.git.raw([
          "fetch",
          "--no-tags",
          "--no-write-fetch-head",
          "--",
          ctx.url,
          `+${options.ref}:${options.ref}`,
        ]),
      ctx.retry,
    );
  } catch (error) {
    if (error instanceof GitCommandError && /couldn't find remote ref/i.test(error.output)) {
      return undefined;
    }
    throw error;
  }
  return (await ctx.git.raw(["rev-parse", "--verify", `${options.ref}^{commit}`])).trim();
}

/** Removes the checkpoint ref from the remote (the work is on the branch now); absent is fine. */
export async function deleteCheckpoint(options: PushTarget & { ref: string }): Promise<void> {
  checkRef(options.ref);
  const ctx = await pushContext(options, options.ref);
  await retryGit(
    () => ctx.git.raw(["push", "--porcelain", "--", ctx.url, `:${options.ref}`]),
    ctx.retry,
  ).catch((error: unknown) => {
    if (error instanceof GitCommandError && /unable to delete|does not exist/i.test(error.output))
      return;
    throw error;
  });
}
