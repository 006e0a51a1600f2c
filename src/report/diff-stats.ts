import { diffLines } from "diff";
import type { NetChange } from "../agent/file-history.js";
import type { FileStat } from "./file-stat.js";

/**
 * Myers' diff costs time in proportion to the size of the change; beyond this
 * edit distance (a rewritten generated file, say) the counts are estimated by
 * matching lines as a multiset instead, which is close and always fast.
 */
const MAX_EDIT_LENGTH = 1_000;

/** Lines added and removed per file, sorted by path. */
export function fileStats(changes: readonly NetChange[]): FileStat[] {
  return changes.map(statOf).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function statOf(change: NetChange): FileStat {
  const { path, before, after } = change;
  if (isBinary(before) || isBinary(after)) {
    return { path, additions: 0, deletions: 0, status: "binary" };
  }
  const oldText = before?.toString("utf8") ?? "";
  const newText = after?.toString("utf8") ?? "";
  if (before === null) {
    return { path, additions: countLines(newText), deletions: 0, status: "added" };
  }
  if (after === null) {
    return { path, additions: 0, deletions: countLines(oldText), status: "deleted" };
  }
  const parts = diffLines(oldText, newText, { maxEditLength: MAX_EDIT_LENGTH });
  if (!parts) return { path, ...estimateCounts(oldText, newText), status: "modified" };
  let additions = 0;
  let deletions = 0;
  for (const part of parts) {
    if (part.added) additions += part.count;
    else if (part.removed) deletions += part.count;
  }
  return { path, additions, deletions, status: "modified" };
}

function estimateCounts(oldText: string, newText: string) {
  const unmatched = new Map<string, number>();
  const oldLines = splitLines(oldText);
  for (const line of oldLines) unmatched.set(line, (unmatched.get(line) ?? 0) + 1);
  let additions = 0;
  for (const line of splitLines(newText)) {
    const count = unmatched.get(line) ?? 0;
    if (count > 0) unmatched.set(line, count - 1);
    else additions += 1;
  }
  let deletions = 0;
  for (const count of unmatched.values()) deletions += count;
  return { additions, deletions };
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

function countLines(text: string): number {
  return splitLines(text).length;
}

/** Git's heuristic: a NUL byte near the start means binary. */
function isBinary(content: Buffer | null): boolean {
  return content?.subarray(0, 8000).includes(0) === true;
}
