import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** The filesystem facts the policy needs; injected so `evaluate` stays testable without disk. */
export interface PolicyFs {
  /** Real path of `absolutePath` (symlinks resolved); the missing tail of the path is kept as is. */
  realpath(absolutePath: string): string;
  exists(absolutePath: string): boolean;
  /** The file's text (a sed or awk program file, checked like an inline one), or undefined if unreadable. */
  readText(absolutePath: string): string | undefined;
}

export function createNodePolicyFs(): PolicyFs {
  return {
    realpath(absolutePath) {
      let existing = absolutePath;
      let tail = "";
      while (!existsSync(existing)) {
        const parent = path.dirname(existing);
        if (parent === existing) return absolutePath;
        tail = tail ? path.join(path.basename(existing), tail) : path.basename(existing);
        existing = parent;
      }
      return path.join(realpathSync.native(existing), tail);
    },
    exists: existsSync,
    readText(absolutePath) {
      try {
        return statSync(absolutePath).isFile() ? readFileSync(absolutePath, "utf8") : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

export type ResolvedPath =
  | { inside: true; relative: string; inGit: boolean; isRoot: boolean }
  | { inside: false };

const GLOB_CHARS = /[*?[]/;

/** Bash-style glob for one path segment; only used to ask "could this match `..` or `.git`?". */
function segmentCouldMatch(segment: string, name: string): boolean {
  if (!GLOB_CHARS.test(segment)) return segment === name;
  // Bash only matches a leading dot written out explicitly.
  if (!segment.startsWith(".") && !segment.startsWith("[")) return false;
  let source = "";
  for (let i = 0; i < segment.length; i += 1) {
    const char = segment[i] ?? "";
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else if (char === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close < 0) source += "\\[";
      else {
        source += `[${segment
          .slice(i + 1, close)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else source += char.replace(/[.+^${}()|\\/]/g, "\\$&");
  }
  return new RegExp(`^${source}$`).test(name);
}

function relativeInside(root: string, absolute: string): string | undefined {
  const relative = path.relative(root, absolute);
  if (relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    return undefined;
  }
  return relative.split(path.sep).join("/");
}

/**
 * The path the kernel opens: it resolves a symlink before the `..` that
 * follows it, so `escape/../x` is next to the link's target, not `./x`.
 */
function physicalPath(root: string, written: string, fs: PolicyFs): string {
  let current = path.isAbsolute(written) ? "/" : root;
  for (const segment of written.split("/")) {
    if (segment === "" || segment === ".") continue;
    current = segment === ".." ? path.dirname(current) : fs.realpath(path.join(current, segment));
  }
  return current;
}

/**
 * Where `written` (as a tool or command names it, relative to the workspace
 * root) points: inside the workspace or not, and whether inside `.git/`.
 * Globs count as escaping if one of their segments could match `..` or a
 * `..` follows them (they may match a symlink), and as `.git` if the first
 * could match `.git`. Symlinks are followed when `fs` is given.
 */
export function resolveInWorkspace(written: string, root: string, fs?: PolicyFs): ResolvedPath {
  if (written.startsWith("~")) return { inside: false };
  const segments = written.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.some((segment) => segment !== ".." && segmentCouldMatch(segment, ".."))) {
    return { inside: false };
  }
  const firstPattern = segments.findIndex((segment) => GLOB_CHARS.test(segment));
  if (firstPattern >= 0 && segments.indexOf("..", firstPattern) > 0) return { inside: false };
  const absolute = path.resolve(root, written);
  const lexical = relativeInside(root, absolute);
  if (lexical === undefined) return { inside: false };
  const physical =
    fs && (segments.includes("..") ? physicalPath(root, written, fs) : fs.realpath(absolute));
  const relative = physical ? relativeInside(root, physical) : lexical;
  if (relative === undefined) return { inside: false };
  const first = (
    path.isAbsolute(written) ? lexical : path.posix.normalize(segments.join("/"))
  ).split("/")[0];
  const inGit = [relative.split("/")[0], first].some(
    (segment) => segment !== undefined && segmentCouldMatch(segment.toLowerCase(), ".git"),
  );
  return { inside: true, relative, inGit, isRoot: relative === "" };
}
