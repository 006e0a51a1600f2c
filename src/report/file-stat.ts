/**
 * A file's line counts, apart from how they are counted (diff-stats.ts, with
 * the diff library): what reports and summaries read of them.
 */

export type FileStatus = "added" | "modified" | "deleted" | "binary";

/** One file's line counts, as `git diff --numstat` would give them. */
export interface FileStat {
  path: string;
  additions: number;
  deletions: number;
  status: FileStatus;
}

export function totalStats(files: readonly FileStat[]): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const file of files) {
    additions += file.additions;
    deletions += file.deletions;
  }
  return { additions, deletions };
}
