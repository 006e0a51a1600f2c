import { resolve } from "node:path";
import type { GitToken } from "../git/credentials.js";
import { splitCredentials } from "../git/credentials.js";
import { mirrorDirFor, partialFetchFor } from "../git/mirror/mirror.js";
import {
  type FetchedMirror,
  fetchMirror,
  type MirrorOptions,
  type PlannedWorkspace,
  prepareWorkspace,
} from "../git/workspace/workspace.js";
import type { JobServices } from "./services.js";

/** Where a job's repository comes from: its cached mirror, fetched early, and the job's worktree. */

interface RepositoryInput {
  cloneUrl: string;
  /** Used by git only. */
  token?: GitToken | undefined;
  /** GitHub's size estimate of the repository; small ones are fetched whole (partialFetchFor). */
  repoSizeKb?: number | undefined;
}

interface WorkspaceInput extends RepositoryInput {
  /** Work on this existing branch (a PR head) instead of creating one. */
  existingBranch?: string | undefined;
  /** From `prefetchRepository`, started while the caller made its API calls. */
  fetched?: Promise<FetchedMirror | null> | undefined;
  /** See PrepareWorkspaceOptions.onPlanned. */
  onPlanned?: ((planned: PlannedWorkspace) => Promise<void> | undefined) | undefined;
}
type MirrorServices = Pick<JobServices, "cacheDir" | "envSource" | "signal" | "gitRetry">;
type WorkspaceServices = MirrorServices & Pick<JobServices, "spareTrees">;

/** prepareWorkspace's spare option for these services (JobServices.spareTrees). */
export function spareOption(services: Pick<JobServices, "spareTrees">) {
  return services.spareTrees === false ? { spareMinIndexBytes: Number.POSITIVE_INFINITY } : {};
}

function mirrorOptions(services: MirrorServices, input: RepositoryInput): MirrorOptions {
  return {
    cloneUrl: input.cloneUrl,
    cacheDir: services.cacheDir,
    env: services.envSource,
    partial: partialFetchFor(input.repoSizeKb),
    ...(services.signal ? { signal: services.signal } : {}),
    ...(input.token ? { token: input.token } : {}),
    ...(services.gitRetry ? { retry: services.gitRetry } : {}),
  };
}

/** The job's worktree: on its existing branch (a PR head), or on a new one from the base. */
export function prepareJobWorkspace(
  services: WorkspaceServices,
  input: WorkspaceInput,
  baseBranch: string,
  branch: Parameters<typeof prepareWorkspace>[0]["branch"],
) {
  return prepareWorkspace({
    ...mirrorOptions(services, input),
    baseBranch,
    branch,
    createBranch: input.existingBranch === undefined,
    // A parked, scrubbed worktree from an earlier job only needs the files
    // that differ checked out: the fast path for repeat jobs on a repository.
    keepIdle: 1,
    ...spareOption(services),
    ...(input.fetched ? { fetched: input.fetched } : {}),
    ...(input.onPlanned ? { onPlanned: input.onPlanned } : {}),
  });
}

/** A `prefetchRepository` of a clone URL, for a job that fetches from that URL (not a fork's). */
export interface PrefetchedRepository {
  cloneUrl: string;
  mirror: Promise<FetchedMirror | null>;
}

/** A prefetch as the Action starts it: the fetch, and when git is at work on it. */
export interface StartedPrefetch extends PrefetchedRepository {
  /**
   * The mirror's folder once the fetch has written its objects and refs,
   * a moment before `mirror` (see SyncMirrorOptions.onFetched); null when the
   * fetch failed. Readers of the fetched commits only.
   */
  objects: Promise<string | null>;
  /** Resolves when git is fetching from the remote (or the fetch is over). */
  underway: Promise<void>;
}

/**
 * Starts fetching the repository's mirror now, so that a job started soon
 * after (pass the result as `fetched`) finds it ready: callers overlap the
 * fetch with their GitHub API calls. Never rejects; when it fails, the job
 * fetches itself and reports what went wrong.
 */
export function prefetchRepository(
  services: MirrorServices,
  input: RepositoryInput,
  hooks: Pick<MirrorOptions, "onFetching" | "onFetched"> = {},
): Promise<FetchedMirror | null> {
  return fetchMirror({ ...mirrorOptions(services, input), ...hooks }).catch(() => null);
}

/** `prefetchRepository`, with the moments its caller waits for (StartedPrefetch). */
export function startPrefetch(services: MirrorServices, input: RepositoryInput): StartedPrefetch {
  let fetching = () => {};
  const started = new Promise<void>((done) => {
    fetching = done;
  });
  let fetched = (_dir: string | null) => {};
  const objects = new Promise<string | null>((done) => {
    fetched = done;
  });
  const mirrorDir = mirrorDirFor(resolve(services.cacheDir), splitCredentials(input.cloneUrl).url);
  const mirror = prefetchRepository(services, input, {
    onFetching: fetching,
    onFetched: () => fetched(mirrorDir),
  });
  // A fetch that failed never called onFetched; one that did, resolved `objects` first.
  void mirror.then((done) => fetched(done?.mirrorDir ?? null));
  return {
    cloneUrl: input.cloneUrl,
    mirror,
    objects,
    underway: Promise.race([started, mirror.then(() => {})]),
  };
}
