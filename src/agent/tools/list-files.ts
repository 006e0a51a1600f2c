import { stat } from "node:fs/promises";
import picomatch from "picomatch";
import { z } from "zod";
import { defineTool, ToolError } from "./define-tool.js";
import { isNotFound, resolveInWorkspace } from "./paths.js";
import { keepExisting, listWorkspaceFiles } from "./workspace-files.js";

export const MAX_LISTED_FILES = 200;

const input = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Glob such as "**/*.ts", "src/**/*.test.ts" or "*.{json,yml}"; a pattern without "/" matches file names at any depth',
    ),
  path: z
    .string()
    .optional()
    .describe("Folder to search in, relative to the workspace root (default: the whole workspace)"),
});

export const listFilesTool = defineTool({
  name: "list_files",
  description: [
    "Finds files by glob pattern among the files git would see (tracked and untracked; .gitignore is honoured, node_modules and .git are never listed).",
    "Patterns are matched against paths relative to `path` (or the workspace root); a pattern without a slash matches the file name at any depth.",
    `Returns matching paths relative to the workspace root, sorted, at most ${MAX_LISTED_FILES}.`,
  ].join(" "),
  input,
  readOnly: true,
  concurrencySafe: true,
  summarize: (args) => `list_files ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
  async run(args, ctx) {
    const base = args.path
      ? await resolveInWorkspace(ctx.root, args.path)
      : { absolute: ctx.root, relative: "." };
    const info = await stat(base.absolute).catch((error: unknown) => {
      if (isNotFound(error)) throw new ToolError(`folder ${base.relative} does not exist`);
      throw error;
    });
    if (!info.isDirectory()) {
      throw new ToolError(`${base.relative} is a file, not a folder; use read_file to read it`);
    }
    const matches = compileGlob(args.pattern);
    const listing = await listWorkspaceFiles({
      root: ctx.root,
      env: ctx.env,
      signal: ctx.signal,
      under: base.relative,
    });
    const prefix = base.relative === "." ? "" : `${base.relative}/`;
    const found = listing.files.filter((path) => matches(path.slice(prefix.length)));
    const where = base.relative === "." ? "the workspace" : base.relative;
    const partial = listing.complete
      ? ""
      : "\n[the folder is large and was only partly searched; give a narrower path]";
    if (found.length === 0) return `No files match "${args.pattern}" in ${where}.${partial}`;
    // Tracked files deleted from the work tree are weeded out only among those shown.
    const { kept: shown, examined } = await keepExisting(ctx.root, found, MAX_LISTED_FILES);
    if (shown.length === 0) return `No files match "${args.pattern}" in ${where}.${partial}`;
    const more = found.length - examined;
    const tail = more > 0 ? `\n[${more} more files not shown; narrow the pattern or the path]` : "";
    return shown.join("\n") + tail + partial;
  },
});

function compileGlob(pattern: string): (path: string) => boolean {
  const cleaned = pattern.replace(/^\.\//, "").replace(/^\/+/, "");
  try {
    return picomatch(cleaned, { dot: true, basename: !cleaned.includes("/") });
  } catch (error) {
    throw new ToolError(`invalid glob "${pattern}": ${(error as Error).message}`);
  }
}
