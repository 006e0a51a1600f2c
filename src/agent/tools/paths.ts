import { readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "./define-tool.js";

export interface WorkspacePath {
  /** Real absolute path (symlinks resolved as far as the path exists). */
  absolute: string;
  /** Path relative to the workspace root, forward slashes; "." for the root itself. */
  relative: string;
}

export interface ResolveOptions {
  /** Refuses paths a tool must never write, such as anything under `.git`. */
  forWrite?: boolean;
}

const MAX_LINK_HOPS = 40;

/**
 * Turns a path the model gave into a real path inside the workspace, or
 * refuses it. Symlinks are followed before the check, so a link that points
 * out of the workspace cannot be used to read or write outside it.
 *
 * `root` must already be a real path (ToolContext.root is).
 */
export async function resolveInWorkspace(
  root: string,
  input: string,
  options: ResolveOptions = {},
): Promise<WorkspacePath> {
  if (input.trim() === "")
    throw new ToolError("path is empty; give a path relative to the workspace root");
  if (input.includes("\0")) throw new ToolError("path contains a NUL character");
  const lexical = isAbsolute(input) ? resolve(input) : resolve(root, input);
  const real = await realPathLoose(lexical, 0);
  if (!isInside(root, real)) {
    const how = isInside(root, lexical)
      ? `resolves through a symlink to ${real}, which is outside the workspace`
      : "is outside the workspace";
    throw new ToolError(
      `path "${input}" ${how}; use a path inside the workspace (relative to its root, e.g. "src/index.ts")`,
    );
  }
  const rel = relative(root, real).split(sep).join("/");
  if (options.forWrite && touchesGitDir(rel)) {
    throw new ToolError(
      `path "${input}" is inside .git; git metadata is never written by tools (the job makes the commits)`,
    );
  }
  return { absolute: real, relative: rel === "" ? "." : rel };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** A `.git` directory, or the `.git` file of a worktree or submodule, at any depth. */
function touchesGitDir(rel: string): boolean {
  return rel.split("/").some((segment) => segment.toLowerCase() === ".git");
}

/**
 * realpath() for paths that may not exist yet: the deepest existing ancestor
 * is resolved and the missing rest appended. A dangling symlink is followed
 * to its target, since writing through it would create the target.
 */
async function realPathLoose(path: string, hops: number): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const joined = join(await realPathLoose(parent, hops), basename(path));
  const target = await readlink(joined).catch(() => null);
  if (target === null) return joined;
  if (hops >= MAX_LINK_HOPS) throw new ToolError(`too many levels of symbolic links at ${joined}`);
  return realPathLoose(resolve(dirname(joined), target), hops + 1);
}

/** Tells "does not exist" apart from other I/O failures. */
export function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
