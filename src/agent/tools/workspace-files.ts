import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { isNotARepository, runGit } from "./git-exec.js";

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
 * ignored, minus tracked files deleted from the work tree. Outside a git
 * repository (or without git) it falls back to a bounded walk.
 */
export async function listWorkspaceFiles(options: ListOptions): Promise<FileListing> {
  const git = {
    cwd: options.root,
    env: options.env,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  const pathspec = ["--", options.under];
  const [listed, deleted] = await Promise.all([
    runGit(["ls-files", "-z", "--cached", "--others", "--exclude-standard", ...pathspec], git),
    runGit(["ls-files", "-z", "--deleted", ...pathspec], git),
  ]).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [null, null] as const;
    throw error;
  });
  if (listed === null || deleted === null || isNotARepository(listed)) {
    const walked = await walkFiles(options.root, options.under, options.maxWalkEntries);
    return { ...walked, fromGit: false };
  }
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr.trim()}`);
  const gone = new Set(deleted.stdout.split("\0"));
  const files = new Set<string>();
  for (const path of listed.stdout.split("\0")) {
    if (path && !gone.has(path) && !isSkippedPath(path)) files.add(path);
  }
  return { files: [...files].sort(compareStrings), complete: true, fromGit: true };
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
