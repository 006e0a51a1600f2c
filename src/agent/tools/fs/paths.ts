import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "../define-tool.js";

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
  const malformed = malformedPath(input);
  if (malformed) throw new ToolError(malformed);
  const lexical = isAbsolute(input) ? resolve(input) : resolve(root, input);
  const real = await realPathLoose(root, lexical, 0);
  if (!isInside(root, real)) {
    // The link's target is a host path; the model is told only that it leaves.
    const how = isInside(root, lexical)
      ? "goes through a symlink that points outside the workspace"
      : "is outside the workspace";
    // "/src/index.ts" written for "src/index.ts": say so when that file exists.
    const relativeGuess = input.replace(/^\/+/, "");
    const exists =
      isAbsolute(input) && relativeGuess !== "" && !relativeGuess.split("/").includes("..")
        ? await lstat(join(root, relativeGuess)).then(
            () => true,
            () => false,
          )
        : false;
    const guess = exists
      ? `; for the workspace's own "${relativeGuess}", leave out the leading "/"`
      : "";
    throw new ToolError(
      `path "${input}" ${how}; use a path inside the workspace (relative to its root, e.g. "src/index.ts")${guess}`,
    );
  }
  const rel = relative(root, real).split(sep).join("/");
  if (options.forWrite && touchesGitDir(rel)) {
    throw new ToolError(
      `path "${input}" is inside .git; git metadata is never written by tools (the job makes the commits); change files in the working tree instead`,
    );
  }
  return { absolute: real, relative: rel === "" ? "." : rel };
}

/**
 * Paths that would silently mean something else here: a backslash is an
 * ordinary file-name character on Linux (so "lib\\a.js" would be one odd file
 * in the root), and nothing expands "~" to a home folder. Spaces around a
 * path are part of the name: a file may really have them, so they are
 * judged by whether it exists (not-found.ts, write_file).
 */
export function malformedPath(input: string): string | null {
  if (input.trim() === "") return "path is empty; give a path relative to the workspace root";
  if (input.includes("\0")) return `path "${input}" contains a NUL character; remove it`;
  if (/^[A-Za-z]:[\\/]/.test(input)) {
    return `path "${input}" is a Windows drive path, which does not exist here; give the path relative to the workspace root, with forward slashes (e.g. "src/index.ts")`;
  }
  if (input.includes("\\")) {
    const fixed = input.replace(/\\+/g, "/");
    return `path "${input}" contains backslashes, which are ordinary file-name characters here, not folder separators; use forward slashes: "${fixed}"`;
  }
  if (input.startsWith("~")) {
    return `path "${input}" starts with "~", which tools do not expand to a home folder; give a path relative to the workspace root (e.g. "src/index.ts"); files outside the workspace cannot be reached`;
  }
  return null;
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
async function realPathLoose(root: string, path: string, hops: number): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (isLinkLoop(error)) throw linkLoop(root, path);
    if (!isNotFound(error)) throw error;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const joined = join(await realPathLoose(root, parent, hops), basename(path));
  const target = await readlink(joined).catch(() => null);
  if (target === null) return joined;
  if (hops >= MAX_LINK_HOPS) throw linkLoop(root, joined);
  return realPathLoose(root, resolve(dirname(joined), target), hops + 1);
}

function isLinkLoop(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ELOOP";
}

function linkLoop(root: string, at: string): ToolError {
  const where = isInside(root, at) ? ` at "${relative(root, at).split(sep).join("/")}"` : "";
  return new ToolError(
    `too many levels of symbolic links${where}; the links form a loop. Look at them with run_shell (\`ls -l\`) and use a path that does not go through them`,
  );
}

/** Tells "does not exist" apart from other I/O failures. */
export function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
