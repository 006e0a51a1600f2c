import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SimpleGit } from "simple-git";
import { isValidBranchName } from "./branch.js";
import { splitCredentials } from "./credentials.js";
import { createGit, type GitClientOptions, type GitEnv } from "./git-client.js";
import { withLock } from "./lock.js";
import { lockPathFor, markUsed, mirrorDirFor, mirrorKey, syncMirror } from "./mirror.js";
import {
  addWorktree,
  claimIdleWorktree,
  deleteLocalBranch,
  listWorktrees,
  markIdle,
  removeWorktree,
  scrubWorktree,
  stampCreated,
  WorkspaceError,
} from "./worktrees.js";

/**
 * Each job gets its own `git worktree` of the cached mirror rather than a
 * `git clone --shared/--reference` of it, because:
 * - objects the checkout fetches lazily (blobs of a partial mirror) and the
 *   job's own fetches land in the shared object store, so the next job finds
 *   them there; a --shared clone would download them into a throwaway copy;
 * - the mirror's gc knows every worktree's HEAD and index and never prunes
 *   objects a running job needs, while clones borrowing objects through
 *   alternates are invisible to it (the documented --shared hazard);
 * - the remote is configured once, in the mirror, as the real URL without
 *   credentials, so `git fetch`/`git push` inside the workspace just work.
 * The cost is a config and hooks directory shared with the agent: commands
 * that carry the token run with hooks off, and the mirror's config and hooks
 * are put back to their state at creation before every fetch and push.
 */

export interface PrepareWorkspaceOptions {
  cloneUrl: string;
  /** Installation token; used for the fetch and checkout only, never stored. */
  token?: string;
  baseBranch: string;
  branch: string;
  /** true: new branch from origin/<baseBranch>; false: check out the existing remote branch (a PR head). */
  createBranch: boolean;
  /** Holds the mirrors (and, by default, the worktrees). */
  cacheDir: string;
  /** Where job worktrees go (default `<cacheDir>/work`). */
  workRoot?: string;
  env?: GitEnv;
  /** Shallow mirror of this many commits. Rebasing onto a moved branch may then fail. */
  depth?: number;
  /** Mirror with `--filter=blob:none` (default true): history without old file contents. */
  partial?: boolean;
  signal?: AbortSignal;
  /** For last-used and creation stamps (default Date.now). */
  now?: () => number;
  /**
   * After cleanup, keep up to this many scrubbed worktrees per repository
   * for later jobs, which then only check out the files that differ instead
   * of writing the whole tree (default 0: cleanup deletes the worktree).
   */
  keepIdle?: number;
}

export interface Workspace {
  /** The worktree; the agent works here. */
  dir: string;
  branch: string;
  /** Tip of origin/<baseBranch> when the workspace was made. */
  baseSha: string;
  /** The commit HEAD started at: baseSha for a new branch, the remote tip for an existing one. */
  startSha: string;
  /** The clone URL without credentials (the worktree's `origin`). */
  remoteUrl: string;
  mirrorDir: string;
  /** false when this call created the mirror (cold cache). */
  fromCache: boolean;
  /**
   * Removes the worktree (or, with keepIdle, scrubs and parks it; the
   * directory is then no longer this job's) and its local branch. Safe to
   * call twice. Stop the job's processes first.
   */
  cleanup(): Promise<void>;
}

export { WorkspaceError };

export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<Workspace> {
  const { url, token: urlToken } = splitCredentials(options.cloneUrl);
  const token = options.token ?? urlToken;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const keepIdle = options.keepIdle ?? 0;
  for (const name of [options.baseBranch, options.branch]) {
    if (!isValidBranchName(name)) throw new WorkspaceError(`"${name}" is not a valid branch name`);
  }
  const cacheDir = resolve(options.cacheDir);
  const mirrorDir = mirrorDirFor(cacheDir, url);
  const workRoot = resolve(options.workRoot ?? join(cacheDir, "work"));
  const signal = options.signal ? { signal: options.signal } : {};

  return withLock(
    lockPathFor(mirrorDir),
    async () => {
      const { created } = await syncMirror({
        dir: mirrorDir,
        url,
        env,
        partial: options.partial ?? true,
        ...(token ? { token } : {}),
        ...(options.depth !== undefined ? { depth: options.depth } : {}),
        ...signal,
      });
      const gitOptions = {
        env,
        noHooks: true,
        // The checkout fetches missing blobs from the remote in a partial mirror.
        ...(token ? { auth: { url, token } } : {}),
        ...signal,
      };
      const git = createGit(mirrorDir, gitOptions);
      const tips = await remoteTips(git, [options.baseBranch, options.branch]);
      const baseSha = tips.get(options.baseBranch);
      if (!baseSha) {
        throw new WorkspaceError(`base branch "${options.baseBranch}" does not exist on ${url}`);
      }
      const branchTip = tips.get(options.branch);
      if (options.createBranch && branchTip) {
        throw new WorkspaceError(
          `branch "${options.branch}" already exists on ${url}; pick a free name with branchName()`,
        );
      }
      if (!options.createBranch && !branchTip) {
        throw new WorkspaceError(`branch "${options.branch}" does not exist on ${url}`);
      }
      const startSha = options.createBranch ? baseSha : (branchTip as string);
      // No upstream tracking: it would be written to the config all worktrees share.
      const checkout = ["--no-track", "-B", options.branch];
      let dir =
        keepIdle > 0 ? await reuseIdle(mirrorDir, [...checkout, startSha], gitOptions) : null;
      if (!dir) {
        await mkdir(workRoot, { recursive: true });
        dir = join(workRoot, `${mirrorKey(url).slice(0, 40)}-${randomBytes(4).toString("hex")}`);
        await addWorktree(git, [...checkout, dir, startSha], options.branch);
      }
      await stampCreated(dir, now());
      await markUsed(mirrorDir, now());
      const jobDir = dir;
      return {
        dir: jobDir,
        branch: options.branch,
        baseSha,
        startSha,
        remoteUrl: url,
        mirrorDir,
        fromCache: !created,
        cleanup: once(() =>
          release({ git, mirrorDir, dir: jobDir, branch: options.branch, keepIdle, env }),
        ),
      };
    },
    signal,
  );
}

/** Checks the job's branch out in a parked worktree; null when there is none or it fails. */
async function reuseIdle(
  mirrorDir: string,
  checkout: string[],
  gitOptions: GitClientOptions,
): Promise<string | null> {
  const idle = await claimIdleWorktree(mirrorDir);
  if (!idle?.dir) return null;
  try {
    // -f also discards anything that drifted since the tree was parked clean.
    await createGit(idle.dir, gitOptions).raw(["checkout", "-f", ...checkout]);
    return idle.dir;
  } catch {
    await removeWorktree(createGit(mirrorDir, gitOptions), idle.dir);
    return null;
  }
}

interface ReleaseOptions {
  git: SimpleGit;
  mirrorDir: string;
  dir: string;
  branch: string;
  keepIdle: number;
  env: GitEnv;
}

async function release(options: ReleaseOptions): Promise<void> {
  const { git, mirrorDir, dir } = options;
  const scrubbed =
    options.keepIdle > 0 &&
    (await scrubWorktree(dir, options.env).then(
      () => true,
      () => false,
    ));
  await withLock(lockPathFor(mirrorDir), async () => {
    const idle = (await listWorktrees(mirrorDir)).filter((w) => w.idle).length;
    if (scrubbed && idle < options.keepIdle) await markIdle(dir);
    else await removeWorktree(git, dir);
    await deleteLocalBranch(git, options.branch);
  });
}

/** Tips of remote-tracking branches, in one git call. */
async function remoteTips(git: SimpleGit, branches: string[]): Promise<Map<string, string>> {
  const prefix = "refs/remotes/origin/";
  const out = await git.raw([
    "for-each-ref",
    "--format=%(objectname) %(refname)",
    ...branches.map((b) => `${prefix}${b}`),
  ]);
  const tips = new Map<string, string>();
  for (const line of out.split("\n")) {
    const [sha, ref] = line.trim().split(" ");
    if (sha && ref?.startsWith(prefix)) tips.set(ref.slice(prefix.length), sha);
  }
  return tips;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}
