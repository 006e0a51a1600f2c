import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { GitToken } from "../credentials.js";
import {
  createGit,
  type Git,
  type GitClientOptions,
  GitCommandError,
  type GitEnv,
  runGit,
} from "../git-client.js";
import { type RetryOptions, retryGit } from "../retry.js";
import { initBareRepository } from "./bare-init.js";

/**
 * One bare repository per remote, kept between jobs. It is a "mirror" of the
 * remote's branches and tags, but branches land in refs/remotes/origin/* (not
 * refs/heads/*) so that the job worktrees' own local branches never collide
 * with, or get pruned by, the next fetch.
 */
export const MIRRORS_DIR = "mirrors";
export const READY_MARKER = "patchwright-mirror.json";
export const USED_MARKER = "patchwright-last-used";
const CONFIG_SNAPSHOT = "patchwright-config";

/**
 * What every mirror fetch asks for: all branches and all tags. The first is
 * also the configured refspec (`git remote add` writes it) that a `git fetch`
 * in a job's worktree uses; tags are named on our own fetches only, which
 * saves a `git config` process when a mirror is made.
 */
const REFSPECS = ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"];

/** A readable, collision-free directory name for a remote URL (given without credentials). */
export function mirrorKey(url: string): string {
  const hash = createHash("sha256").update(url).digest("hex").slice(0, 12);
  const readable = url
    .replace(/^[a-z+]+:\/\//i, "")
    .replace(/\.git\/?$/i, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(-48)
    .replace(/^[-.]+/, "");
  return `${readable || "repo"}-${hash}`;
}

export function mirrorDirFor(cacheDir: string, url: string): string {
  return join(cacheDir, MIRRORS_DIR, `${mirrorKey(url)}.git`);
}

export function lockPathFor(mirrorDir: string): string {
  return `${mirrorDir}.lock`;
}

/**
 * Below this size (GitHub's repository.size, in KB) a first fetch takes the
 * whole history: the old file contents cost less than the second round
 * trip a partial mirror makes when the checkout fetches the files it needs.
 */
export const WHOLE_FETCH_MAX_KB = 20 * 1024;

/** Whether a new mirror should be partial (`--filter=blob:none`); unknown sizes are. */
export function partialFetchFor(sizeKb: number | undefined): boolean {
  return sizeKb === undefined || sizeKb > WHOLE_FETCH_MAX_KB;
}

export interface SyncMirrorOptions {
  dir: string;
  url: string;
  token?: GitToken;
  env: GitEnv;
  partial: boolean;
  depth?: number;
  signal?: AbortSignal;
  /** Fetches that fail on the transport (server down, 5xx, reset) are retried; see retryGit. */
  retry?: RetryOptions;
  /** Called as the fetch from the remote starts (the mirror exists by then). */
  onFetching?: (() => void) | undefined;
  /**
   * Called once the fetch has written the objects and refs, before the
   * mirror's own bookkeeping (which reads and writes no object or ref):
   * a reader of the fetched commits need not wait for it.
   */
  onFetched?: (() => void) | undefined;
}

/**
 * Creates the mirror on first use, fetches it afterwards. The caller holds
 * the mirror's lock.
 */
export async function syncMirror(options: SyncMirrorOptions): Promise<{ created: boolean }> {
  const ready = isMirror(options.dir);
  const fetchArgs = ["fetch", "--prune", "--verbose"];
  if (options.depth !== undefined) fetchArgs.push(`--depth=${options.depth}`);
  if (ready) {
    await restoreMirrorState(options.dir);
    const git = mirrorGit(options, true);
    const fetching = fetchRetrying(options, () => git.raw([...fetchArgs, "origin", ...REFSPECS]));
    options.onFetching?.();
    await fetching;
    options.onFetched?.();
    return { created: false };
  }
  // A mirror without the marker is the remains of a crashed first fetch.
  if (existsSync(options.dir)) await rm(options.dir, { recursive: true, force: true });
  // With what `git remote add --no-tags origin <url>` writes, without a
  // second process on the way to the fetch: the URL, the branch refspec, tagOpt.
  initBareRepository(options.dir, originSection(options.url));
  await firstFetch(mirrorGit(options, true), fetchArgs, options);
  options.onFetched?.();
  // Side by side: each step waits for this thread, which the caller keeps busy meanwhile.
  await Promise.all([
    rm(join(options.dir, "hooks"), { recursive: true, force: true }),
    copyFile(join(options.dir, "config"), join(options.dir, CONFIG_SNAPSHOT)),
  ]);
  await writeFile(
    join(options.dir, READY_MARKER),
    JSON.stringify({ url: options.url, partial: options.partial }),
  );
  return { created: true };
}

/** The config lines of the mirror's remote, as `git remote add --no-tags` writes them. */
export function originSection(url: string): string {
  if (/[\n\r\0]/.test(url)) throw new Error("the clone URL has a line break");
  // Quoted, so that no character of the URL (`#`, `;`, spaces) reads as config syntax.
  const quoted = `"${url.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  return `[remote "origin"]\n\turl = ${quoted}\n\tfetch = ${REFSPECS[0]}\n\ttagOpt = --no-tags\n`;
}

/**
 * A directory this module created and finished (not a half-made or foreign
 * repository). Synchronous, as the mirror's making (bare-init.ts).
 */
export function isMirror(dir: string): boolean {
  return existsSync(join(dir, READY_MARKER));
}

/**
 * Undoes what a job's agent may have done to the shared repository through
 * its worktree (`git config`, files in hooks/), should it ever get write
 * access to it (sandboxes show it read-only): the config goes back to the
 * copy taken at creation, planted hooks are deleted. Reads files only, so it
 * costs nothing when nothing changed. Our own commands never write config
 * after creation (worktrees are added without upstream tracking).
 */
export async function restoreMirrorState(dir: string): Promise<void> {
  const [config, snapshot] = await Promise.all([
    readFile(join(dir, "config"), "utf8").catch(() => ""),
    readFile(join(dir, CONFIG_SNAPSHOT), "utf8"),
  ]);
  if (config !== snapshot) await writeFile(join(dir, "config"), snapshot);
  await rm(join(dir, "hooks"), { recursive: true, force: true });
}

async function firstFetch(git: Git, fetchArgs: string[], options: SyncMirrorOptions) {
  const fetch = (extra: string[]) =>
    fetchRetrying(options, () => git.raw([...fetchArgs, ...extra, "origin", ...REFSPECS]));
  if (!options.partial) {
    const whole = fetch([]);
    options.onFetching?.();
    await whole;
    return;
  }
  try {
    // Servers that do not support filters just ignore this (git warns and
    // fetches everything); this catch is for those that reject it outright.
    const filtered = fetch(["--filter=blob:none"]);
    options.onFetching?.();
    await filtered;
  } catch (error) {
    if (!(error instanceof GitCommandError) || !/filter/i.test(error.message)) throw error;
    await git.raw(["config", "--unset", "remote.origin.promisor"]).catch(() => {});
    await git.raw(["config", "--unset", "remote.origin.partialclonefilter"]).catch(() => {});
    await fetch([]);
  }
}

/**
 * A fetch is safe to repeat: git moves the refs only once all objects have
 * arrived, and objects from a cut-off attempt are simply found next time.
 */
function fetchRetrying(options: SyncMirrorOptions, fetch: () => Promise<string>): Promise<string> {
  return retryGit(fetch, { ...options.retry, signal: options.signal });
}

function mirrorGit(options: SyncMirrorOptions, withAuth: boolean): Git {
  return createGit(options.dir, gitOptions(options, withAuth));
}

function gitOptions(options: SyncMirrorOptions, withAuth = false): GitClientOptions {
  return {
    env: options.env,
    ...(withAuth && options.token ? { auth: { url: options.url, token: options.token } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}

/**
 * Git's automatic housekeeping for the mirror (repacking when loose objects
 * or packs pile up; heavy work detaches), run when a job has finished. Best
 * effort: a failure here must not fail the job.
 */
export async function maintainMirror(mirrorDir: string, env: GitEnv): Promise<void> {
  await runGit(mirrorDir, ["maintenance", "run", "--auto", "--quiet"], {
    env,
  }).catch(() => {});
}

/** Records use for least-recently-used eviction; the clock is the caller's. */
export async function markUsed(mirrorDir: string, now: number): Promise<void> {
  const file = join(mirrorDir, USED_MARKER);
  await writeFile(file, String(now));
  const when = new Date(now);
  await utimes(file, when, when);
}

export async function lastUsed(mirrorDir: string): Promise<number> {
  const text = await readFile(join(mirrorDir, USED_MARKER), "utf8").catch(() => null);
  const value = text === null ? Number.NaN : Number(text.trim());
  if (Number.isFinite(value)) return value;
  return (await stat(mirrorDir)).mtimeMs;
}
