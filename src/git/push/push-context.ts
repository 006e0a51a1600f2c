import { resolve } from "node:path";
import type { Identity } from "../commit/commits.js";
import { currentToken, type GitToken, redactToken, splitCredentials } from "../credentials.js";
import { createGit, type Git, type GitEnv } from "../git-client.js";
import { withLock } from "../lock.js";
import { isMirror, lockPathFor, restoreMirrorState } from "../mirror/mirror.js";
import type { RetryOptions } from "../retry.js";
import { worktreeAdminDir } from "../workspace/worktrees.js";

/**
 * What every push from a workspace needs before git runs with the token:
 * the shared config and hooks put back, the token split out of the URL and
 * given to this remote only, hooks off, and a redactor for what the server
 * says back.
 */

export interface PushTarget {
  /** The workspace. */
  dir: string;
  /** Where to push (Workspace.remoteUrl); default: the workspace's origin. Credentials move to `token`. */
  remoteUrl?: string | undefined;
  /** Asked for when the push starts: the one sent, scanned for and redacted is the current one. */
  token?: GitToken | undefined;
  /** The workspace's mirror (Workspace.mirrorDir); the worktree must belong to it. */
  mirrorDir?: string | undefined;
  /** Committer of rebased commits (default: the committer of HEAD). */
  identity?: Identity | undefined;
  /** The caller's environment (from its entry point). */
  env: GitEnv;
  signal?: AbortSignal | undefined;
  retry?: RetryOptions | undefined;
}

export interface PushContext {
  /** Runs with the token (for this remote only) and the committer of rebased commits. */
  git: Git;
  url: string;
  token: string | undefined;
  env: GitEnv;
  redact: (text: string) => string;
  retry: RetryOptions & { signal?: AbortSignal | undefined };
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

/** `what` names the branch or ref being pushed, for errors. */
export async function pushContext(target: PushTarget, what: string): Promise<PushContext> {
  const env = target.env;
  const signal = target.signal ? { signal: target.signal } : {};
  const local = createGit(target.dir, { env, ...signal });
  await restoreSharedState(target.dir, target.mirrorDir, what);
  const { url, token: urlToken } = splitCredentials(
    target.remoteUrl ?? (await local.raw(["remote", "get-url", "origin"])).trim(),
  );
  const token = (await currentToken(target.token)) ?? urlToken;
  const identity = target.identity ?? (await headCommitter(local));
  // Hooks off: they would inherit the environment that carries the token.
  const git = createGit(target.dir, {
    env,
    ...signal,
    ...(token ? { auth: { url, token } } : {}),
    extraEnv: { GIT_COMMITTER_NAME: identity.name, GIT_COMMITTER_EMAIL: identity.email },
  });
  return {
    git,
    url,
    token,
    env,
    redact: (text) => redactToken(text, token),
    retry: { ...target.retry, signal: target.signal },
  };
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
  if (owner && isMirror(owner)) {
    await withLock(lockPathFor(owner), () => restoreMirrorState(owner));
  }
}

async function headCommitter(git: Git): Promise<Identity> {
  const [name = "", email = ""] = (await git.raw(["log", "-1", "--format=%cn%x00%ce"]))
    .trim()
    .split("\0");
  return { name, email };
}
