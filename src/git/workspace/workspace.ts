import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { isValidBranchName } from "../branch.js";
import { type GitToken, splitCredentials } from "../credentials.js";
import { createGit, type Git, type GitClientOptions, type GitEnv } from "../git-client.js";
import { withLock } from "../lock.js";
import {
  lockPathFor,
  maintainMirror,
  markUsed,
  mirrorDirFor,
  mirrorKey,
  syncMirror,
} from "../mirror/mirror.js";
import { mirrorRefs } from "../mirror/mirror-refs.js";
import type { RetryOptions } from "../retry.js";
import { buildSpare, isBigTree, SPARE_MIN_INDEX_BYTES } from "./spare.js";
import { defaultWorkRoot } from "./work-root.js";
import {
  addWorktree,
  deleteDetachedTree,
  deleteLocalBranch,
  detachWorktree,
  listWorktrees,
  markIdle,
  scrubWorktree,
  stampCreated,
  takeParkedWorktree,
  treeWriteConfig,
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

/** Which repository's mirror, and how it is fetched. */
export interface MirrorOptions {
  cloneUrl: string;
  /** Installation token (or where to get the current one); used for the fetch and checkout only, never stored. */
  token?: GitToken;
  /** Holds the mirrors (and, by default, the worktrees). */
  cacheDir: string;
  /** The caller's environment (from its entry point). */
  env: GitEnv;
  /** Shallow mirror of this many commits. Rebasing onto a moved branch may then fail. */
  depth?: number;
  /** Mirror with `--filter=blob:none` (default true): history without old file contents. */
  partial?: boolean;
  signal?: AbortSignal;
  /** How a fetch that failed on the transport is retried (default: 4 tries over about 10 s). */
  retry?: RetryOptions;
  /** Called as the fetch from the remote starts (see SyncMirrorOptions). */
  onFetching?: (() => void) | undefined;
  /** Called once the fetch has written the objects and refs (see SyncMirrorOptions). */
  onFetched?: (() => void) | undefined;
}

/** A mirror fetched by `fetchMirror`. */
export interface FetchedMirror {
  mirrorDir: string;
  /** true when the fetch created the mirror (cold cache). */
  created: boolean;
}

export interface PrepareWorkspaceOptions extends MirrorOptions {
  baseBranch: string;
  /**
   * The job's branch, or (with createBranch) a function that names a new
   * one given whether a name is taken, on the remote or by a job running
   * here. It is called after the fetch, so naming costs no round trip.
   */
  branch: string | BranchPicker;
  /** true: new branch from origin/<baseBranch>; false: check out the existing remote branch (a PR head). */
  createBranch: boolean;
  /** Where job worktrees go (default: defaultWorkRoot, a path without dot segments). */
  workRoot?: string;
  /**
   * A `fetchMirror` of this repository the caller started moments ago (to
   * overlap the fetch with its API calls): the workspace then does not fetch
   * again. Null (the prefetch failed) or another mirror: it fetches itself.
   */
  fetched?: Promise<FetchedMirror | null>;
  /** For last-used and creation stamps (default Date.now). */
  now?: () => number;
  /**
   * Told where the new worktree goes, on which branch and commit, once the
   * mirror is fetched and just before the checkout starts (so that a caller
   * can read the commit's facts from the mirror meanwhile). Not called when
   * a parked worktree is taken instead. The checkout waits for the promise it
   * returns, at most PLANNED_WAIT_MS: the mirror's lock is held meanwhile.
   */
  onPlanned?: (planned: PlannedWorkspace) => Promise<void> | undefined;
  /**
   * After cleanup, keep up to this many scrubbed worktrees per repository
   * for later jobs, which then only check out the files that differ instead
   * of writing the whole tree (default 0: cleanup deletes the worktree).
   */
  keepIdle?: number;
  /**
   * With keepIdle: when this job had to write a new tree of at least this
   * index size, a spare is checked out and parked in the background for the
   * next job (spare.ts). Default SPARE_MIN_INDEX_BYTES; Infinity: never.
   */
  spareMinIndexBytes?: number;
}

/** The longest a checkout waits for its caller's onPlanned (see there). */
export const PLANNED_WAIT_MS = 150;

export type BranchPicker = (isTaken: (name: string) => Promise<boolean>) => Promise<string>;

/** A worktree about to be checked out (see onPlanned). */
export interface PlannedWorkspace {
  /** Where it will be (its parent folder exists). */
  dir: string;
  branch: string;
  /** The commit it starts at. */
  startSha: string;
  mirrorDir: string;
  /** git's options for the mirror (with the token, for a partial mirror's blobs). */
  gitOptions: GitClientOptions;
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
   * The spare tree being made for the next job (spare.ts): its folder once
   * parked, or null when none is made. Never rejects; cleanup waits for it.
   */
  spare: Promise<string | null>;
  /**
   * Removes the worktree (or, with keepIdle, scrubs and parks it; the
   * directory is then no longer this job's) and its local branch. Safe to
   * call twice. Stop the job's processes first.
   */
  cleanup(): Promise<void>;
}

export { WorkspaceError };

/** The mirror's directory and the options to sync it with. */
function mirrorOf(options: MirrorOptions) {
  const { url, token: urlToken } = splitCredentials(options.cloneUrl);
  const token = options.token ?? urlToken;
  const env = options.env;
  const mirrorDir = mirrorDirFor(resolve(options.cacheDir), url);
  const sync = {
    dir: mirrorDir,
    url,
    env,
    partial: options.partial ?? true,
    ...(token ? { token } : {}),
    ...(options.depth !== undefined ? { depth: options.depth } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.onFetching ? { onFetching: options.onFetching } : {}),
    ...(options.onFetched ? { onFetched: options.onFetched } : {}),
  };
  return { url, token, env, mirrorDir, sync };
}

/** Creates or fetches the repository's mirror, alone (see `fetched`). */
export async function fetchMirror(options: MirrorOptions): Promise<FetchedMirror> {
  const { mirrorDir, sync } = mirrorOf(options);
  const signal = options.signal ? { signal: options.signal } : {};
  const { created } = await withLock(lockPathFor(mirrorDir), () => syncMirror(sync), signal);
  return { mirrorDir, created };
}

export async function prepareWorkspace(options: PrepareWorkspaceOptions): Promise<Workspace> {
  const { url, token, env, mirrorDir, sync } = mirrorOf(options);
  const now = options.now ?? Date.now;
  const keepIdle = options.keepIdle ?? 0;
  const picker = typeof options.branch === "function" ? options.branch : undefined;
  if (picker && !options.createBranch) {
    throw new WorkspaceError("an existing branch is given by name, not picked");
  }
  for (const name of [options.baseBranch, ...(picker ? [] : [options.branch as string])]) {
    assertBranchName(name);
  }
  const workRoot = resolve(options.workRoot ?? defaultWorkRoot(options.cacheDir));
  const signal = options.signal ? { signal: options.signal } : {};
  // Awaited outside the lock: the prefetch takes it too.
  const fetched = options.fetched ? await options.fetched : null;

  const prepared = await withLock(
    lockPathFor(mirrorDir),
    async () => {
      const { created } = fetched?.mirrorDir === mirrorDir ? fetched : await syncMirror(sync);
      const gitOptions = {
        env,
        config: treeWriteConfig(),
        // The checkout fetches missing blobs from the remote in a partial mirror.
        ...(token ? { auth: { url, token } } : {}),
        ...signal,
      };
      const refs = mirrorRefs(mirrorDir, gitOptions);
      const branch = picker
        ? await picker(
            async (name) =>
              isValidBranchName(name) &&
              ((await refs.remoteTip(name)) !== undefined || (await refs.hasLocal(name))),
          )
        : (options.branch as string);
      if (picker) assertBranchName(branch);
      const [baseSha, branchTip, localBranch] = await Promise.all([
        refs.remoteTip(options.baseBranch),
        refs.remoteTip(branch),
        refs.hasLocal(branch),
      ]);
      if (!baseSha) {
        throw new WorkspaceError(`base branch "${options.baseBranch}" does not exist on ${url}`);
      }
      if (options.createBranch && branchTip) {
        throw new WorkspaceError(
          `branch "${branch}" already exists on ${url}; pick a free name with branchName()`,
        );
      }
      if (!options.createBranch && !branchTip) {
        throw new WorkspaceError(`branch "${branch}" does not exist on ${url}`);
      }
      const startSha = options.createBranch ? baseSha : (branchTip as string);
      // A local branch of that name belongs to a running job, or to one that
      // crashed. `worktree add` tells the two apart and refuses the first;
      // `checkout -B` in a parked tree would take the branch from its job.
      const reuse = keepIdle > 0 && !localBranch;
      const target = { branch, sha: startSha };
      let dir = reuse ? await takeParkedWorktree(mirrorDir, target, gitOptions) : null;
      const written = !dir;
      if (!dir) {
        await mkdir(workRoot, { recursive: true });
        dir = newTreeDir(workRoot, url);
        const told = options.onPlanned?.({ dir, branch, startSha, mirrorDir, gitOptions });
        if (told) await Promise.race([told, delay(PLANNED_WAIT_MS, undefined, { ref: false })]);
        // No upstream tracking: it would be written to the config all worktrees share.
        await addWorktree(
          mirrorDir,
          gitOptions,
          ["--no-track", "-B", branch, dir, startSha],
          branch,
        );
      }
      await Promise.all([stampCreated(dir, now()), markUsed(mirrorDir, now())]);
      return { dir, branch, baseSha, startSha, created, written, gitOptions };
    },
    signal,
  );
  const { dir, branch, baseSha, gitOptions } = prepared;
  const minIndexBytes = options.spareMinIndexBytes ?? SPARE_MIN_INDEX_BYTES;
  // After the lock: the spare takes it for its own checkout.
  const spare =
    keepIdle > 0 &&
    prepared.written &&
    Number.isFinite(minIndexBytes) &&
    (await isBigTree(dir, minIndexBytes))
      ? buildSpare({ mirrorDir, dir: newTreeDir(workRoot, url), commit: baseSha, gitOptions })
      : Promise.resolve(null);
  return {
    dir,
    branch,
    baseSha,
    startSha: prepared.startSha,
    remoteUrl: url,
    mirrorDir,
    fromCache: !prepared.created,
    spare,
    cleanup: once(async () => {
      // A spare half made when the process ends would be left to the stale-tree sweep.
      await spare;
      await release({
        git: createGit(mirrorDir, gitOptions),
        mirrorDir,
        dir,
        branch,
        keepIdle,
        parkAt: baseSha,
        // Without the job's signal: a cancelled job still gets cleaned up.
        gitOptions: {
          env,
          config: treeWriteConfig(),
          ...(token ? { auth: { url, token } } : {}),
        },
      });
    }),
  };
}

/** A new worktree's folder: named after the repository, unique. */
function newTreeDir(workRoot: string, url: string): string {
  return join(workRoot, `${mirrorKey(url).slice(0, 40)}-${randomBytes(4).toString("hex")}`);
}

interface ReleaseOptions {
  git: Git;
  mirrorDir: string;
  dir: string;
  branch: string;
  keepIdle: number;
  /** The commit a parked tree is reset to. */
  parkAt: string;
  gitOptions: GitClientOptions;
}

async function release(options: ReleaseOptions): Promise<void> {
  const { git, mirrorDir, dir } = options;
  const scrubbed =
    options.keepIdle > 0 &&
    (await scrubWorktree(dir, options.parkAt, options.gitOptions).then(
      () => true,
      () => false,
    ));
  const aside = await withLock(lockPathFor(mirrorDir), async () => {
    const idle = (await listWorktrees(mirrorDir)).filter((w) => w.idle).length;
    const parked = scrubbed && idle < options.keepIdle;
    const moved = parked
      ? await markIdle(dir, options.parkAt).then(() => null)
      : await detachWorktree(mirrorDir, dir, options.gitOptions);
    await deleteLocalBranch(git, options.branch);
    return moved;
  });
  // The files go after the lock is released: a job starting now does not wait.
  await deleteDetachedTree(aside);
  await maintainMirror(mirrorDir, options.gitOptions.env);
}

function assertBranchName(name: string): void {
  if (!isValidBranchName(name)) throw new WorkspaceError(`"${name}" is not a valid branch name`);
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
}
