import { errorMessage } from "../../error-message.js";
import { isValidBranchName } from "../branch.js";
import type { Identity } from "../commit/commits.js";
import type { GitToken } from "../credentials.js";
import { type Git, GitCommandError, type GitEnv } from "../git-client.js";
import { type RetryOptions, retryGit } from "../retry.js";
import { type PushContext, PushRefusedError, pushContext } from "./push-context.js";
import { type KnownSecret, refuseSecretsInNewCommits } from "./secret-scan.js";

export { PushRefusedError };

export interface PushBranchOptions {
  /** The workspace. */
  dir: string;
  /**
   * Where to push; pass Workspace.remoteUrl. The default, the workspace's
   * origin, is read from config after it was restored (see mirrorDir).
   * Credentials in the URL are moved to `token`.
   */
  remoteUrl?: string;
  branch: string;
  /** Asked for as the push starts (an installation token may have been renewed since the job began). */
  token?: GitToken;
  /** The one branch this job may push, or a rule (see allowJobBranches). */
  allowedBranch: string | ((branch: string) => boolean);
  defaultBranch: string;
  /**
   * The workspace's mirror (Workspace.mirrorDir); the worktree must belong
   * to it. Either way, the config and hooks a worktree shares with its
   * mirror are put back to their state at creation before anything runs
   * with the token: an agent could have set `http.proxy`, `url.*.insteadOf`
   * or hooks there.
   */
  mirrorDir?: string;
  /** Rebase-and-retry rounds after a rejected push (default 3). */
  maxRetries?: number;
  /**
   * Every secret this process knows (see secretsInEnv); the token is added.
   * New commits holding any of them, or a known token shape, are not pushed.
   */
  secrets: readonly KnownSecret[];
  /**
   * Blobs whose bytes are a release the job took from the registry, its
   * integrity checked (a yarn release the project keeps, yarn/release-file.ts):
   * only the secrets this process knows are looked for in them. The
   * token-shape rules match minified code there (`e.user:e.user===`), and
   * the variable names change with every release.
   */
  published?: ReadonlySet<string>;
  /** Committer of rebased commits (default: the committer of HEAD). */
  identity?: Identity;
  /** The caller's environment (from its entry point). */
  env: GitEnv;
  signal?: AbortSignal;
  /**
   * When the server declines the branch itself (`[remote rejected]`: a
   * protected branch, a pre-receive hook), the commits are pushed to
   * `<prefix><branch>-patchwright-<sha7>` instead (the prefix is not
   * repeated) and a PushDeclinedError names that branch. Unset: a declined
   * push just fails.
   */
  sideBranchPrefix?: string;
  /** How a push or fetch that failed on the transport is retried (default: 4 tries over about 10 s). */
  retry?: RetryOptions;
  /**
   * The job rewrote the branch (a rebase onto its base): the push is forced,
   * with a lease on this sha, so commits someone else pushed meanwhile are
   * never overwritten (the push fails instead). Only ever the job's branch.
   */
  forceWithLease?: string;
}

export interface PushResult {
  pushed: true;
  /** The commit now at the tip of the remote branch. */
  sha: string;
  /** The job's commits were replayed onto commits someone else pushed meanwhile. */
  rebased: boolean;
}

/** Someone else's commits conflict with the job's; the work was saved on `fallbackBranch`. */
export class PushConflictError extends Error {
  constructor(
    readonly branch: string,
    readonly files: string[],
    readonly fallbackBranch: string,
    /** The job's unrebased tip, now at fallbackBranch. */
    readonly sha: string,
  ) {
    super(
      `"${branch}" changed on the remote and conflicts with this job in ${files.join(", ")}; ` +
        `the job's commits were pushed to "${fallbackBranch}" instead`,
    );
    this.name = "PushConflictError";
  }
}

export class PushFailedError extends Error {
  constructor(
    readonly branch: string,
    message: string,
  ) {
    super(message);
    this.name = "PushFailedError";
  }
}

/**
 * The server declined the job's branch (protected branch, pre-receive hook).
 * `sideBranch` is where the commits went instead; without one, nothing was
 * pushed and the change is only in the workspace.
 */
export class PushDeclinedError extends PushFailedError {
  constructor(
    branch: string,
    /** What the server said, token redacted. */
    readonly reason: string,
    readonly sideBranch: string | undefined,
    /** The remote commit the job's commits were replayed onto, if they were: a patch starts there. */
    readonly onto: string | undefined,
    message: string,
  ) {
    super(branch, message);
    this.name = "PushDeclinedError";
  }
}

/** The usual rule: branches under the bot's prefix, plus the PR head a job was asked to update. */
export function allowJobBranches(rule: { prefix: string; prHead?: string }) {
  return (branch: string): boolean =>
    (rule.prefix !== "" && branch.startsWith(rule.prefix) && branch.length > rule.prefix.length) ||
    branch === rule.prHead;
}

export function checkPushAllowed(
  branch: string,
  rule: Pick<PushBranchOptions, "allowedBranch" | "defaultBranch">,
): void {
  if (!isValidBranchName(branch)) throw new PushRefusedError(branch, "not a valid branch name");
  if (branch === rule.defaultBranch) {
    throw new PushRefusedError(branch, "it is the default branch; jobs only push their own branch");
  }
  const allowed =
    typeof rule.allowedBranch === "string"
      ? branch === rule.allowedBranch
      : rule.allowedBranch(branch);
  if (!allowed) throw new PushRefusedError(branch, "it is not this job's branch");
}

/**
 * Pushes HEAD to the job's branch, never forcing: when someone pushed to
 * the branch meanwhile, fetches their commits, replays the job's commits on
 * top and tries again. A conflict aborts the rebase and saves the work to a
 * side branch so nothing is lost; so does a branch the server declines
 * (with sideBranchPrefix). Transport failures are retried with backoff.
 */
export async function pushBranch(options: PushBranchOptions): Promise<PushResult> {
  checkPushAllowed(options.branch, options);
  const ctx: BranchPush = { ...(await pushContext(options, options.branch)), options };
  const maxRetries = options.maxRetries ?? 3;
  await refuseSecretsInNewCommits({
    dir: options.dir,
    env: ctx.env,
    secrets: options.secrets,
    token: ctx.token,
    published: options.published,
  });
  // The remote commit the job's commits were replayed onto, once they were.
  let onto: string | undefined;

  for (let attempt = 0; ; attempt++) {
    const outcome = await tryPush(ctx, options.branch, options.forceWithLease);
    if (outcome.ok)
      return { pushed: true, sha: await headSha(ctx.git), rebased: onto !== undefined };
    if (outcome.declined) throw await saveDeclinedWork(ctx, outcome.output, onto);
    if (!outcome.behind || options.forceWithLease) {
      throw new PushFailedError(
        options.branch,
        `push to "${options.branch}" failed: ${ctx.redact(outcome.output)}`,
      );
    }
    if (attempt >= maxRetries) {
      throw new PushFailedError(
        options.branch,
        `"${options.branch}" kept moving on the remote; gave up after ${maxRetries} rebases`,
      );
    }
    const { git, url } = ctx;
    await retryGit(
      () => git.raw(["fetch", "--no-tags", "--", url, `refs/heads/${options.branch}`]),
      ctx.retry,
    );
    const tip = (await git.raw(["rev-parse", "FETCH_HEAD"])).trim();
    const conflicts = await rebaseOnto(git, tip);
    if (conflicts) throw await saveConflictingWork(ctx, conflicts);
    onto = tip;
  }
}

/** The rebase conflicted: the job's own commits go to `<branch>-conflict-<sha7>`. */
async function saveConflictingWork(ctx: BranchPush, conflicts: string[]): Promise<Error> {
  const { branch } = ctx.options;
  const sha = await headSha(ctx.git);
  const fallback = `${branch}-conflict-${sha.slice(0, 7)}`;
  const saved = await tryPush(ctx, fallback);
  if (!saved.ok) {
    return new PushFailedError(
      branch,
      `"${branch}" conflicts in ${conflicts.join(", ")} and saving the work to ` +
        `"${fallback}" failed too: ${ctx.redact(saved.output)}`,
    );
  }
  return new PushConflictError(branch, conflicts, fallback, sha);
}

/**
 * The server declined the branch itself: the commits go to a side branch
 * under the job's prefix, so the work is not lost with the job. When that
 * is declined too (or there is no prefix to put it under), the error says
 * so and the caller keeps the change as a patch.
 */
async function saveDeclinedWork(
  ctx: BranchPush,
  output: string,
  onto: string | undefined,
): Promise<PushDeclinedError> {
  const { branch, sideBranchPrefix: prefix, defaultBranch } = ctx.options;
  const reason = declineReason(ctx.redact(output));
  const declined = `the remote declined "${branch}" (${reason})`;
  if (prefix === undefined) return new PushDeclinedError(branch, reason, undefined, onto, declined);
  const side = sideBranchName(branch, await headSha(ctx.git), prefix);
  try {
    checkPushAllowed(side, { allowedBranch: allowJobBranches({ prefix }), defaultBranch });
  } catch (error) {
    return new PushDeclinedError(
      branch,
      reason,
      undefined,
      onto,
      `${declined}; ${errorMessage(error)}`,
    );
  }
  const saved = await tryPush(ctx, side);
  if (saved.ok) {
    const message = `${declined}; the job's commits were pushed to "${side}" instead`;
    return new PushDeclinedError(branch, reason, side, onto, message);
  }
  const message = `${declined}, and pushing the work to "${side}" failed too: ${ctx.redact(saved.output)}`;
  return new PushDeclinedError(branch, reason, undefined, onto, message);
}

/** `<prefix><branch>-patchwright-<sha7>`; a branch already under the prefix does not get it twice. */
function sideBranchName(branch: string, sha: string, prefix: string): string {
  const name = `${branch}-patchwright-${sha.slice(0, 7)}`;
  return name.startsWith(prefix) ? name : `${prefix}${name}`;
}

const MAX_REASON_CHARS = 500;

/** "(pre-receive hook declined)" and what the hook itself printed (`remote:` lines), for the report. */
function declineReason(output: string): string {
  const status = /\[remote rejected\]\s*\(([^)]*)\)/.exec(output)?.[1];
  const said = output
    .split("\n")
    .filter((line) => line.startsWith("remote:"))
    .map((line) => line.slice("remote:".length).trim())
    .filter(Boolean);
  const reason = [status, ...said].filter(Boolean).join("; ") || "no reason given";
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
}

/** A push of the job's branch: the shared context and what was asked. */
interface BranchPush extends PushContext {
  options: PushBranchOptions;
}

type PushOutcome = { ok: true } | { ok: false; behind: boolean; declined: boolean; output: string };

async function tryPush(ctx: BranchPush, branch: string, lease?: string): Promise<PushOutcome> {
  try {
    // Exactly this refspec: HEAD to the one branch, no leading "+"; forced only
    // with a lease on the tip the job started from (a rebase of its own branch).
    // Repeating a push that did arrive is harmless: the branch is already there.
    const force = lease ? [`--force-with-lease=refs/heads/${branch}:${lease}`] : [];
    await retryGit(
      () =>
        ctx.git.raw(["push", "--porcelain", ...force, "--", ctx.url, `HEAD:refs/heads/${branch}`]),
      ctx.retry,
    );
    return { ok: true };
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    const output = error.output;
    // "[rejected] (fetch first | non-fast-forward)" is a race we can repair;
    // "[remote rejected]" (protected branch, server hook) is the server's no.
    const behind = /\[rejected\].*\((fetch first|non-fast-forward)\)/.test(output);
    const declined = /\[remote rejected\]/.test(output);
    return { ok: false, behind, declined, output };
  }
}

/** Replays HEAD's own commits onto `tip`; returns the conflicting files, or null on success. */
async function rebaseOnto(git: Git, tip: string): Promise<string[] | null> {
  try {
    await git.raw(["rebase", "--autostash", tip]);
    return null;
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    const unmerged = await git.raw(["diff", "--name-only", "--diff-filter=U"]).catch(() => "");
    await git.raw(["rebase", "--abort"]).catch(() => {});
    const files = unmerged.split("\n").filter(Boolean);
    if (files.length === 0) throw error;
    return files;
  }
}

async function headSha(git: Git): Promise<string> {
  return (await git.raw(["rev-parse", "HEAD"])).trim();
}
