import { createHash } from "node:crypto";
import { mkdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SimpleGit } from "simple-git";
import { createGit, GitCommandError, type GitEnv } from "./git-client.js";

/**
 * One bare repository per remote, kept between jobs. It is a "mirror" of the
 * remote's branches and tags, but branches land in refs/remotes/origin/* (not
 * refs/heads/*) so that the job worktrees' own local branches never collide
 * with, or get pruned by, the next fetch.
 */
export const MIRRORS_DIR = "mirrors";
export const READY_MARKER = "patchwright-mirror.json";
export const USED_MARKER = "patchwright-last-used";

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

export interface SyncMirrorOptions {
  dir: string;
  url: string;
  token?: string;
  env: GitEnv;
  partial: boolean;
  depth?: number;
  signal?: AbortSignal;
}

/**
 * Creates the mirror on first use, fetches it afterwards. The caller holds
 * the mirror's lock.
 */
export async function syncMirror(options: SyncMirrorOptions): Promise<{ created: boolean }> {
  const ready = await stat(join(options.dir, READY_MARKER)).then(
    () => true,
    () => false,
  );
  if (!ready) {
    // A mirror without the marker is the remains of a crashed first fetch.
    await rm(options.dir, { recursive: true, force: true });
    await mkdir(options.dir, { recursive: true });
    const local = mirrorGit(options, false);
    await local.raw(["init", "--bare", "--quiet"]);
  }
  const git = mirrorGit(options, true);
  await assertRemoteConfig(git, options.url);
  const fetchArgs = ["fetch", "--prune", "--verbose"];
  if (options.depth !== undefined) fetchArgs.push(`--depth=${options.depth}`);
  if (ready) {
    await git.raw([...fetchArgs, "origin"]);
  } else {
    await firstFetch(git, fetchArgs, options);
    await writeFile(
      join(options.dir, READY_MARKER),
      JSON.stringify({ url: options.url, partial: options.partial }),
    );
  }
  return { created: !ready };
}

/**
 * Re-asserted before every fetch: a job's agent shares this config through
 * its worktree and must not be able to redirect the next job's fetch (which
 * carries the token). Read first, since rewriting costs four git calls.
 */
async function assertRemoteConfig(git: SimpleGit, url: string): Promise<void> {
  const current = await git
    .raw(["config", "--get-regexp", "^remote\\.origin\\.(url|fetch|tagopt)$"])
    .catch(() => "");
  const expected = [
    `remote.origin.url ${url}`,
    ...REFSPECS.map((spec) => `remote.origin.fetch ${spec}`),
    "remote.origin.tagopt --no-tags",
  ];
  if (current.trim().split("\n").sort().join("\n") === expected.sort().join("\n")) return;
  await git.raw(["config", "remote.origin.url", url]);
  await git.raw(["config", "--replace-all", "remote.origin.fetch", REFSPECS[0] as string]);
  await git.raw(["config", "--add", "remote.origin.fetch", REFSPECS[1] as string]);
  await git.raw(["config", "remote.origin.tagOpt", "--no-tags"]);
}

async function firstFetch(git: SimpleGit, fetchArgs: string[], options: SyncMirrorOptions) {
  if (!options.partial) {
    await git.raw([...fetchArgs, "origin"]);
    return;
  }
  try {
    // Servers that do not support filters just ignore this (git warns and
    // fetches everything); this catch is for those that reject it outright.
    await git.raw([...fetchArgs, "--filter=blob:none", "origin"]);
  } catch (error) {
    if (!(error instanceof GitCommandError) || !/filter/i.test(error.message)) throw error;
    await git.raw(["config", "--unset", "remote.origin.promisor"]).catch(() => {});
    await git.raw(["config", "--unset", "remote.origin.partialclonefilter"]).catch(() => {});
    await git.raw([...fetchArgs, "origin"]);
  }
}

function mirrorGit(options: SyncMirrorOptions, withAuth: boolean): SimpleGit {
  return createGit(options.dir, {
    env: options.env,
    noHooks: true,
    ...(withAuth && options.token ? { auth: { url: options.url, token: options.token } } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
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
