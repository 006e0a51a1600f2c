import { relative, sep } from "node:path";
import { errorMessage } from "../../error-message.js";
import { type AnyTool, ToolError, toToolSpec } from "./define-tool.js";

/** What to do after a file-system error, by errno code. */
const ADVICE: Readonly<Record<string, string>> = {
  EACCES: "permission denied: check the file's permissions with run_shell (`ls -l`)",
  EPERM: "the operation is not permitted: check the file's permissions with run_shell (`ls -l`)",
  EROFS: "that part of the file system is read-only; change files elsewhere in the workspace",
  ENOSPC: "the disk is full; remove build output or temporary files with run_shell, then retry",
  ENAMETOOLONG: "the path or one of its names is too long; use a shorter name",
  EISDIR: "the path is a folder, not a file; give a file path (list_files shows them)",
  ENOTDIR: "a part of the path is a file, not a folder; check the path with list_files",
  ELOOP: "the path goes through a loop of symbolic links; inspect them with run_shell (`ls -l`)",
  EMFILE: "too many files are open at once; retry the call",
  EBUSY: "the file is busy; retry the call",
};

/**
 * The text of a failed call as the model sees it. Host paths never show: the
 * workspace's own absolute path becomes relative, and a path outside it is
 * not named; an error from the file system says what to do next.
 */
export function failureText(tool: AnyTool, error: unknown, root: string): string {
  if (error instanceof ToolError) return scrubHostPaths(error.message, root);
  let message = errorMessage(error);
  const errno = error as NodeJS.ErrnoException & { dest?: unknown };
  for (const path of [errno.path, errno.dest]) {
    if (typeof path === "string" && path !== "") {
      message = message.split(path).join(shownPath(path, root));
    }
  }
  const advice = typeof errno.code === "string" ? ADVICE[errno.code] : undefined;
  return `${tool.name} failed: ${scrubHostPaths(message, root)}${advice ? `; ${advice}` : ""}`;
}

function shownPath(path: string, root: string): string {
  const rel = relative(root, path);
  if (rel === "") return ".";
  if (rel.startsWith("..") || rel.startsWith(sep)) return "(a path outside the workspace)";
  return rel.split(sep).join("/");
}

function scrubHostPaths(message: string, root: string): string {
  if (root === "" || root === "/") return message;
  // The root followed by "/" or by something that cannot continue a file name.
  const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const within = new RegExp(`${escaped}(/|(?![\\w-]|\\.[\\w-]))`, "g");
  return message.replace(within, (_root, slash: string) => (slash ? "" : "."));
}

/** The fields a tool takes, for an invalid-input error: the model may have used other names. */
export function describeFields(tool: AnyTool): string {
  const schema = toToolSpec(tool).input_schema as {
    properties?: Record<string, { type?: string }>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(
    ([name, property]) =>
      `${name} (${property.type ?? "value"}${required.has(name) ? "" : ", optional"})`,
  );
  return `${tool.name} takes: ${fields.join(", ")}.`;
}
