import { open } from "node:fs/promises";
import { join } from "node:path";
import picomatch from "picomatch";
import type { MatchCollector } from "./grep-matches.js";
import { listWorkspaceFiles } from "./workspace-files.js";

/** Files bigger than this are skipped: they are data or build output, not code. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;

export interface FallbackSearch {
  root: string;
  env: Record<string, string>;
  signal: AbortSignal;
  /** The pattern as a JavaScript regular expression (see grep-pattern.ts). */
  regex: RegExp;
  /** Folder or file to search, relative to the root. */
  under: string;
  underIsFile: boolean;
  include?: string | undefined;
}

/**
 * Searches with JavaScript regular expressions over a bounded directory walk,
 * for workspaces that are not git repositories. Binary files are skipped as
 * git grep -I would.
 */
export async function searchWithoutGit(
  search: FallbackSearch,
  matches: MatchCollector,
): Promise<boolean> {
  const { regex } = search;
  const listing = search.underIsFile
    ? { files: [search.under], complete: true }
    : await listWorkspaceFiles({
        root: search.root,
        env: search.env,
        signal: search.signal,
        under: search.under,
      });
  const included = search.include
    ? picomatch(search.include, { dot: true, basename: !search.include.includes("/") })
    : () => true;
  const prefix = search.under === "." ? "" : `${search.under}/`;
  for (const path of listing.files) {
    if (search.signal.aborted) break;
    if (!search.underIsFile && !included(path.slice(prefix.length))) continue;
    const text = await readSmallText(join(search.root, path));
    if (text === null) continue;
    const lines = text.split("\n");
    // The empty string after a final newline is not a line of the file.
    if (lines.at(-1) === "") lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] ?? "";
      if (regex.test(line)) matches.add(path, i + 1, line);
    }
  }
  return listing.complete;
}

async function readSmallText(path: string): Promise<string | null> {
  const handle = await open(path, "r").catch(() => null);
  if (!handle) return null;
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > MAX_FILE_BYTES) return null;
    const content = await handle.readFile();
    if (content.subarray(0, 8000).includes(0)) return null;
    return content.toString("utf8");
  } finally {
    await handle.close();
  }
}
