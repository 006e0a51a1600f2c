import type { Git, GitRunner } from "../git-client.js";

/** One side of a tree entry: its mode and blob. */
export interface TreeBlob {
  mode: string;
  sha: string;
}

/** A path that differs between two trees; null on the side where it is absent. */
export interface DiffTreeEntry {
  path: string;
  old: TreeBlob | null;
  new: TreeBlob | null;
}

const NULL_SHA = /^0+$/;
const GITLINK = "160000";

/**
 * Parses `git diff-tree -r -z` output: ":mode mode sha sha status\0path\0"
 * repeated. Submodule entries (gitlinks) are commits, not file contents, so
 * they are left out.
 */
export function parseDiffTree(raw: string): DiffTreeEntry[] {
  const parts = raw.split("\0");
  const entries: DiffTreeEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const entry = diffTreeEntry(parts[i] ?? "", parts[i + 1] ?? "");
    if (entry) entries.push(entry);
  }
  return entries;
}

/** One ":mode mode sha sha status" line and its path; undefined for a gitlink or a malformed line. */
export function diffTreeEntry(line: string, path: string): DiffTreeEntry | undefined {
  const meta = line.trim().replace(/^:/, "").split(" ");
  const [oldMode, newMode, oldSha, newSha] = [meta[0], meta[1], meta[2], meta[3]];
  if (!oldMode || !newMode || !oldSha || !newSha || !path) return undefined;
  if (oldMode === GITLINK || newMode === GITLINK) return undefined;
  return {
    path,
    old: NULL_SHA.test(oldSha) ? null : { mode: oldMode, sha: oldSha },
    new: NULL_SHA.test(newSha) ? null : { mode: newMode, sha: newSha },
  };
}

/** What differs between two trees (or commits), by path. */
export async function diffTrees(git: GitRunner, a: string, b: string): Promise<DiffTreeEntry[]> {
  if (a === b) return [];
  return parseDiffTree(await git(["diff-tree", "-r", "-z", "--no-renames", a, b]));
}

export function readBlob(git: Git, sha: string): Promise<Buffer> {
  return git.binaryCatFile(["blob", sha]);
}
