import { randomBytes } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { SimpleGit } from "simple-git";
import { isValidBranchName } from "./branch.js";
import { splitCredentials } from "./credentials.js";
import { createGit, type GitEnv } from "./git-client.js";
import { withLock } from "./lock.js";
import { lockPathFor, markUsed, mirrorDirFor, mirrorKey, syncMirror } from "./mirror.js";

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
 * The cost is a shared config and hooks directory; that is why commands that
 * carry the token run with hooks off and the remote URL is re-asserted on
 * every fetch.
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
  /** Removes the worktree and its local branch. Safe to call twice. */
  cleanup(): Promise<void>;
}

export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceError";
  }
}

/** Stamp in the worktree's admin dir (inside the mirror) read by cleanStaleWorkspaces. */
export const CREATED_MARKER = "patchwright-created";

export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<Workspace> {
  const { url, token: urlToken } = splitCredentials(options.cloneUrl);
  const token = options.token ?? urlToken;
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  for (const name of [options.baseBranch, options.branch]) {
    if (!isValidBranchName(name)) throw new WorkspaceError(`"${name}" is not a valid branch name`);
  }
  const cacheDir = resolve(options.cacheDir);
  const mirrorDir = mirrorDirFor(cacheDir, url);
  const workRoot = resolve(options.workRoot ?? join(cacheDir, "work"));
  const dir = join(workRoot, `${mirrorKey(url).slice(0, 40)}-${randomBytes(4).toString("hex")}`);
  const lockOptions = options.signal ? { signal: options.signal } : {};

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
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const git = createGit(mirrorDir, {
        env,
        noHooks: true,
        // The checkout fetches missing blobs from the remote in a partial mirror.
        ...(token ? { auth: { url, token } } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const tips = await remoteTips(git, [options.baseBranch, options.branch]);
      const baseSha = tips.get(options.baseBranch);
      if (!baseSha) {
        throw new WorkspaceError(`base branch "${options.baseBranch}" does not exist on ${url}`);
      }
      const branchTip = tips.get(options.branch);
      await mkdir(workRoot, { recursive: true });
      let startSha: string;
      if (options.createBranch) {
        if (branchTip) {
          throw new WorkspaceError(
            `branch "${options.branch}" already exists on ${url}; pick a free name with branchName()`,
          );
        }
        startSha = baseSha;
        await addWorktree(git, ["--no-track", "-B", options.branch, dir, baseSha], options.branch);
      } else {
        if (!branchTip) {
          throw new WorkspaceError(`branch "${options.branch}" does not exist on ${url}`);
        }
        startSha = branchTip;
        await addWorktree(
          git,
          ["--track", "-B", options.branch, dir, `refs/remotes/origin/${options.branch}`],
          options.branch,
        );
      }
      const adminDir = await worktreeAdminDir(dir);
      await writeFile(join(adminDir, CREATED_MARKER), String(now()));
      await markUsed(mirrorDir, now());
      return {
        dir,
        branch: options.branch,
        baseSha,
        startSha,
        remoteUrl: url,
        mirrorDir,
        fromCache: !created,
        cleanup: once(() =>
          withLock(lockPathFor(mirrorDir), () => removeWorktree(git, dir, options.branch)),
        ),
      };
    },
    lockOptions,
  );
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

async function addWorktree(git: SimpleGit, args: string[], branch: string): Promise<void> {
  try {
    await git.raw(["worktree", "add", ...args]);
  } catch (error) {
    if (
      !(error instanceof Error) ||
      !/already (checked out|used by worktree)/i.test(error.message)
    ) {
      throw error;
    }
    // Maybe a worktree whose directory vanished without cleanup; prune and try once more.
    await git.raw(["worktree", "prune"]);
    try {
      await git.raw(["worktree", "add", ...args]);
    } catch {
      throw new WorkspaceError(
        `branch "${branch}" is checked out by another running job; wait for it to finish`,
      );
    }
  }
}

/** The worktree's private git dir inside the mirror, from its `.git` file. */
async function worktreeAdminDir(dir: string): Promise<string> {
  const pointer = await readFile(join(dir, ".git"), "utf8");
  return resolve(dir, pointer.replace(/^gitdir:\s*/, "").trim());
}

async function removeWorktree(git: SimpleGit, dir: string, branch: string): Promise<void> {
  await git.raw(["worktree", "remove", "--force", "--force", dir]).catch(async () => {
    await rm(dir, { recursive: true, force: true });
    await git.raw(["worktree", "prune"]);
  });
  // Local branches in the mirror exist only for running jobs.
  await git.raw(["branch", "-D", "--", branch]).catch(() => {});
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}
