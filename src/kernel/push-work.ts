import { errorMessage } from "../error-message.js";
import type { GitToken } from "../git/credentials.js";
import type { GitEnv } from "../git/git-client.js";
import {
  allowJobBranches,
  checkPushAllowed,
  PushConflictError,
  PushDeclinedError,
  type PushResult,
  pushBranch,
} from "../git/push/push.js";
import type { KnownSecret } from "../git/push/secret-scan.js";
import type { RetryOptions } from "../git/retry.js";
import { workspacePatch } from "../git/tree/patch.js";
import type { Workspace } from "../git/workspace/workspace.js";
import type { SignedPush, SignedPushOptions } from "../github/signed-push.js";
import { changedWorkflowFiles, workflowsRefusal } from "./workflow-files.js";

/**
 * The push step every job kind ends with. Whatever the server does, the
 * work is kept somewhere: a conflict or a declined branch puts the commits
 * on a side branch, and when even that is declined the change is kept as a
 * patch for the report.
 */

export interface PushWorkOptions {
  workspace: Workspace;
  /** Branches the job may push: under this prefix (side branches too), plus `prHead`. */
  branchPrefix: string;
  /** The pull request head a job was asked to update, outside the prefix. */
  prHead?: string | undefined;
  defaultBranch: string;
  env: GitEnv;
  secrets: readonly KnownSecret[];
  token?: GitToken | undefined;
  retry?: RetryOptions | undefined;
  /** The branch was rewritten (a rebase): force it, but only over this remote tip. */
  forceWithLease?: string | undefined;
  /** Blobs of releases taken from the registry (PushBranchOptions.published). */
  published?: ReadonlySet<string> | undefined;
}

export interface PushedWork {
  push?: PushResult;
  /** Where the work went when the job's own branch could not take it. */
  fallbackBranch?: string;
  pushDeclined?: { branch: string; reason: string; sideBranch?: string };
  /** The change, when no branch took it. */
  patch?: string;
  error?: { stage: "push"; message: string };
}

export async function pushWork(options: PushWorkOptions): Promise<PushedWork> {
  const { workspace, env } = options;
  try {
    const push = await pushBranch({
      dir: workspace.dir,
      remoteUrl: workspace.remoteUrl,
      mirrorDir: workspace.mirrorDir,
      branch: workspace.branch,
      allowedBranch: allowJobBranches({
        prefix: options.branchPrefix,
        ...(options.prHead ? { prHead: options.prHead } : {}),
      }),
      defaultBranch: options.defaultBranch,
      // A declined branch's work goes under the job's prefix, never elsewhere.
      sideBranchPrefix: options.branchPrefix,
      env,
      secrets: options.secrets,
      ...(options.token ? { token: options.token } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.forceWithLease ? { forceWithLease: options.forceWithLease } : {}),
      ...(options.published ? { published: options.published } : {}),
    });
    return { push };
  } catch (error) {
    const failed: PushedWork = { error: { stage: "push", message: errorMessage(error) } };
    if (error instanceof PushConflictError)
      return { ...failed, fallbackBranch: error.fallbackBranch };
    if (!(error instanceof PushDeclinedError)) return failed;
    const { branch, reason, sideBranch } = error;
    if (sideBranch) {
      return {
        ...failed,
        fallbackBranch: sideBranch,
        pushDeclined: { branch, reason, sideBranch },
      };
    }
    // Nothing took the commits: the change itself, from where the job's commits start.
    const patch = await workspacePatch(workspace.dir, error.onto ?? workspace.startSha, env).catch(
      () => undefined,
    );
    return { ...failed, pushDeclined: { branch, reason }, ...(patch ? { patch } : {}) };
  }
}

/** Pushes a workspace's new commits some other way than git (the Git Data API, for signed commits). */
export type CommitPusher = (
  target: Omit<SignedPushOptions, "octokit" | "repo">,
) => Promise<SignedPush>;

export interface JobPushOptions extends PushWorkOptions {
  /** Signed commits: pushed through this instead of git. */
  via?: CommitPusher | undefined;
  /** Where the job's commits start: a commit the remote has. */
  onto: string;
  /** The branch exists on the remote. */
  exists: boolean;
  /** The token lacks `workflows: write`: commits that change workflow files are not pushed. */
  workflowsLocked?: boolean | undefined;
  /** With workflowsLocked: commits besides `onto` whose workflow files are not the job's change (a merged base). */
  workflowsAlsoFrom?: readonly string[] | undefined;
}

/**
 * The push step of every job kind: through its CommitPusher when it has one
 * (the commits it creates stand for the workspace's own, so `commits` get
 * their ids), else git with its side branches and patches (pushWork).
 */
export async function pushJobCommits<C extends { sha: string }>(
  options: JobPushOptions,
  commits: readonly C[],
): Promise<{ pushed: PushedWork; commits: C[] }> {
  const refused = await refusedWorkflows(options);
  if (refused)
    return { pushed: { error: { stage: "push", message: refused } }, commits: [...commits] };
  if (!options.via) return { pushed: await pushWork(options), commits: [...commits] };
  const { created, ...pushed } = await pushThrough(options.via, options);
  return {
    pushed,
    commits: commits.map((c) => ({ ...c, sha: created?.get(c.sha) ?? c.sha })),
  };
}

/** Why the push would be refused for its workflow files, found before GitHub says so. */
async function refusedWorkflows(options: JobPushOptions): Promise<string | undefined> {
  if (!options.workflowsLocked) return undefined;
  const files = await changedWorkflowFiles(options.workspace.dir, options.env, [
    options.onto,
    ...(options.workflowsAlsoFrom ?? []),
  ]);
  return files.length > 0 ? workflowsRefusal(files) : undefined;
}

/** A failure is the push stage's error; the commits stay in the workspace's report. */
async function pushThrough(
  pusher: CommitPusher,
  options: JobPushOptions,
): Promise<PushedWork & { created?: Map<string, string> }> {
  const { workspace, branchPrefix, prHead, defaultBranch } = options;
  try {
    // The same rule as a git push: the job's own branch, never the default one.
    checkPushAllowed(workspace.branch, {
      allowedBranch: allowJobBranches({ prefix: branchPrefix, ...(prHead ? { prHead } : {}) }),
      defaultBranch,
    });
    const pushed = await pusher({
      dir: workspace.dir,
      env: options.env,
      branch: workspace.branch,
      onto: options.onto,
      exists: options.exists,
      ...(options.forceWithLease ? { lease: options.forceWithLease } : {}),
      secrets: options.secrets,
    });
    return { push: { pushed: true, sha: pushed.sha, rebased: false }, created: pushed.created };
  } catch (error) {
    return { error: { stage: "push", message: errorMessage(error) } };
  }
}
