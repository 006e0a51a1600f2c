import { resolve } from "node:path";
import type { SimpleGit } from "simple-git";
import { isValidBranchName } from "./branch.js";
import type { Identity } from "./commits.js";
import { redactToken, splitCredentials } from "./credentials.js";
import { createGit, GitCommandError, type GitEnv } from "./git-client.js";
import { withLock } from "./lock.js";
import { isMirror, lockPathFor, restoreMirrorState } from "./mirror.js";
import { findSecretsInNewCommits, type KnownSecret, SecretInCommitError } from "./secret-scan.js";
import { worktreeAdminDir } from "./worktrees.js";

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
  token?: string;
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
  /** Committer of rebased commits (default: the committer of HEAD). */
  identity?: Identity;
  env?: GitEnv;
  signal?: AbortSignal;
}

export interface PushResult {
  pushed: true;
  /** The commit now at the tip of the remote branch. */
  sha: string;
  /** The job's commits were replayed onto commits someone else pushed meanwhile. */
  rebased: boolean;
}

export class PushRefusedError extends Error {
  constructor(
    readonly branch: string,
    reason: string,
  ) {
    super(`refusing to push "${branch}": ${reason}`);
    this.name = "PushRefusedError";
  }
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
 * side branch so nothing is lost.
 */
export async function pushBranch(options: PushBranchOptions): Promise<PushResult> {
  checkPushAllowed(options.branch, options);
  const env = options.env ?? process.env;
  const signal = options.signal ? { signal: options.signal } : {};
  const local = createGit(options.dir, { env, ...signal });
  await restoreSharedState(options.dir, options.mirrorDir, options.branch);
  const { url, token: urlToken } = splitCredentials(
    options.remoteUrl ?? (await local.raw(["remote", "get-url", "origin"])).trim(),
  );
  const token = options.token ?? urlToken;
  const identity = options.identity ?? (await headCommitter(local));
  // Hooks off: they would inherit the environment that carries the token.
  const git = createGit(options.dir, {
    env,
    ...signal,
    ...(token ? { auth: { url, token } } : {}),
    extraEnv: { GIT_COMMITTER_NAME: identity.name, GIT_COMMITTER_EMAIL: identity.email },
  });
  const redact = (text: string) => redactToken(text, token);
  const maxRetries = options.maxRetries ?? 3;
  const secrets = token
    ? [...options.secrets, { name: "the push token", value: token }]
    : options.secrets;
  const findings = await findSecretsInNewCommits({ dir: options.dir, env, secrets });
  if (findings.length > 0) throw new SecretInCommitError(findings);
  let rebased = false;

  for (let attempt = 0; ; attempt++) {
    const outcome = await tryPush(git, url, options.branch);
    if (outcome.ok) {
      return { pushed: true, sha: (await git.raw(["rev-parse", "HEAD"])).trim(), rebased };
    }
    if (!outcome.behind) {
      throw new PushFailedError(
        options.branch,
        `push to "${options.branch}" failed: ${redact(outcome.output)}`,
      );
    }
    if (attempt >= maxRetries) {
      throw new PushFailedError(
        options.branch,
        `"${options.branch}" kept moving on the remote; gave up after ${maxRetries} rebases`,
      );
    }
    await git.raw(["fetch", "--no-tags", url, `refs/heads/${options.branch}`]);
    const tip = (await git.raw(["rev-parse", "FETCH_HEAD"])).trim();
    const conflicts = await rebaseOnto(git, tip);
    if (conflicts) {
      const sha = (await git.raw(["rev-parse", "HEAD"])).trim();
      const fallback = `${options.branch}-conflict-${sha.slice(0, 7)}`;
      const saved = await tryPush(git, url, fallback);
      if (!saved.ok) {
        throw new PushFailedError(
          options.branch,
          `"${options.branch}" conflicts in ${conflicts.join(", ")} and saving the work to ` +
            `"${fallback}" failed too: ${redact(saved.output)}`,
        );
      }
      throw new PushConflictError(options.branch, conflicts, fallback, sha);
    }
    rebased = true;
  }
}

/**
 * Before anything runs with the token: the config and hooks a worktree
 * shares with its mirror go back to their state at creation. Without an
 * explicit mirrorDir, the mirror is found through the worktree's .git file.
 */
async function restoreSharedState(
  dir: string,
  mirrorDir: string | undefined,
  branch: string,
): Promise<void> {
  const adminDir = await worktreeAdminDir(dir).catch(() => null);
  const owner = adminDir ? resolve(adminDir, "..", "..") : null;
  if (mirrorDir && owner !== resolve(mirrorDir)) {
    throw new PushRefusedError(branch, `${dir} is not a worktree of ${mirrorDir} (.git replaced)`);
  }
  if (owner && (await isMirror(owner))) {
    await withLock(lockPathFor(owner), () => restoreMirrorState(owner));
  }
}

type PushOutcome = { ok: true } | { ok: false; behind: boolean; output: string };

async function tryPush(git: SimpleGit, url: string, branch: string): Promise<PushOutcome> {
  try {
    // Exactly this refspec: HEAD to the one branch, no leading "+" (never a force push).
    await git.raw(["push", "--porcelain", "--", url, `HEAD:refs/heads/${branch}`]);
    return { ok: true };
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    const output = error.output;
    // "[rejected] (fetch first | non-fast-forward)" is a race we can repair;
    // "[remote rejected]" (protected branch, server hook) is not.
    const behind = /\[rejected\].*\((fetch first|non-fast-forward)\)/.test(output);
    return { ok: false, behind, output };
  }
}

/** Replays HEAD's own commits onto `tip`; returns the conflicting files, or null on success. */
async function rebaseOnto(git: SimpleGit, tip: string): Promise<string[] | null> {
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

async function headCommitter(git: SimpleGit): Promise<Identity> {
  const [name = "", email = ""] = (await git.raw(["log", "-1", "--format=%cn%x00%ce"]))
    .trim()
    .split("\0");
  return { name, email };
}
