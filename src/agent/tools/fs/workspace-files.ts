import type { Dirent } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isNotARepository, runGit } from "../git-exec.js";

/** Folders never listed or searched: git metadata and installed dependencies. */
const SKIPPED_DIRS = new Set([".git", "node_modules"]);

export function isSkippedPath(relative: string): boolean {
  return relative.split("/").some((segment) => SKIPPED_DIRS.has(segment));
}

export interface FileListing {
  /** Paths relative to the workspace root, forward slashes, sorted. */
  files: string[];
  /** False when the directory walk stopped at its cap. */
  complete: boolean;
  /** True when git listed the files (so .gitignore was honoured). */
  fromGit: boolean;
}

export interface ListOptions {
  root: string;
  env: Record<string, string>;
  signal?: AbortSignal;
  /** Folder to list, relative to the root ("." for all). */
  under: string;
  /** Cap on entries visited by the fallback walk. */
  maxWalkEntries?: number;
}

/**
 * The files git would see under a folder: tracked and untracked but not
 * ignored. Tracked files deleted from the work tree are still listed, since
 * finding them costs an lstat of every file; callers that show paths check
 * those few themselves (see `keepExisting`). Outside a git repository (or
 * without git) it falls back to a bounded walk.
 */
export async function listWorkspaceFiles(options: ListOptions): Promise<FileListing> {
  const listed = await runGit(
    [
      "ls-files",
      "-z",
      "--cached",
      "--others",
      "--exclude-standard",
      "--",
      `:(literal)${options.under}`,
    ],
    { cwd: options.root, env: options.env, ...(options.signal ? { signal: options.signal } : {}) },
  ).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  });
  if (listed === null || isNotARepository(listed)) {
    const walked = await walkFiles(options.root, options.under, options.maxWalkEntries);
    return { ...walked, fromGit: false };
  }
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr.trim()}`);
  const listedPaths = listed.stdout.split("\0");
  const files: string[] = [];
  for (const path of listedPaths) {
    // The substring test first: splitting every path of a big repository is slow.
    if (path && !(path.includes("node_modules") && isSkippedPath(path))) files.push(path);
  }
  files.sort(compareStrings);
  // A file with merge conflicts is listed once per stage; sorted, repeats are neighbours.
  const unique = files.filter((path, i) => path !== files[i - 1]);
  return { files: unique, complete: true, fromGit: true };
}

/**
 * The first `limit` paths that still exist on disk, in order, and how many
 * candidates were looked at to find them.
 */
export async function keepExisting(
  root: string,
  paths: readonly string[],
  limit: number,
): Promise<{ kept: string[]; examined: number }> {
  const kept: string[] = [];
  let examined = 0;
  while (kept.length < limit && examined < paths.length) {
    const batch = paths.slice(examined, examined + (limit - kept.length));
    examined += batch.length;
    const exists = await Promise.all(
      batch.map((path) =>
        lstat(join(root, path)).then(
          () => true,
          () => false,
        ),
      ),
    );
    batch.forEach((path, i) => {
      if (exists[i]) kept.push(path);
    });
  }
  return { kept, examined };
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function walkFiles(
  root: string,
  under: string,
  maxEntries = 100_000,
): Promise<{ files: string[]; complete: boolean }> {
  const files: string[] = [];
  const queue: string[] = [under === "." ? "" : under];
  let seen = 0;
  for (let next = 0; next < queue.length; next++) {
    const prefix = queue[next] ?? "";
    let entries: Dirent[];
    try {
      entries = await readdir(join(root, prefix), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++seen > maxEntries) return { files: files.sort(compareStrings), complete: false };
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) queue.push(relative);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        files.push(relative);
      }
    }
  }
  return { files: files.sort(compareStrings), complete: true };
}
