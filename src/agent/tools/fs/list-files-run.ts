import picomatch from "picomatch";
import { type ToolContext, ToolError } from "../define-tool.js";
import { commaListToBraces } from "./glob-braces.js";
import { type ListFilesInput, MAX_LISTED_FILES } from "./list-files-input.js";
import { searchBase } from "./not-found.js";
import { keepExisting, listWorkspaceFiles } from "./workspace-files.js";

/** list_files's work, loaded at its first call (define-tool.ts runOnFirstCall). */
export async function listFilesRun(args: ListFilesInput, ctx: ToolContext): Promise<string> {
  const { base, info } = await searchBase(ctx, args.path);
  if (!info.isDirectory()) {
    throw new ToolError(
      `${base.relative} is a file, not a folder; use read_file to read it, or give its folder as path`,
    );
  }
  const matches = compileGlob(args.pattern);
  const listing = await listWorkspaceFiles({
    root: ctx.root,
    env: ctx.env,
    signal: ctx.signal,
    under: base.relative,
  });
  const prefix = base.relative === "." ? "" : `${base.relative}/`;
  const relativeFiles = listing.files.map((path) => path.slice(prefix.length));
  const found = listing.files.filter((_path, i) => matches(relativeFiles[i] ?? ""));
  const where = base.relative === "." ? "the workspace" : base.relative;
  const partial = listing.complete
    ? ""
    : "\n[the folder is large and was only partly searched; give a narrower path]";
  const none = (): string =>
    `No files match "${args.pattern}" in ${where}.${noMatchHint(args.pattern, base.relative, relativeFiles)}${partial}`;
  if (found.length === 0) return none();
  // Tracked files deleted from the work tree are weeded out only among those shown.
  const { kept: shown, examined } = await keepExisting(ctx.root, found, MAX_LISTED_FILES);
  if (shown.length === 0) return none();
  const more = found.length - examined;
  const tail = more > 0 ? `\n[${more} more files not shown; narrow the pattern or the path]` : "";
  return shown.join("\n") + tail + partial;
}

function cleanGlob(pattern: string): string {
  return commaListToBraces(pattern.replace(/^\.\//, "").replace(/^\/+/, ""));
}

function compileGlob(pattern: string, nocase = false): (path: string) => boolean {
  // A backslash before an ordinary character is a Windows separator, not an escape.
  if (/\\[^*?[\]{}()!+@\\]/.test(pattern)) {
    throw new ToolError(
      `pattern "${pattern}" contains backslashes; separate folders with forward slashes: "${pattern.replace(/\\/g, "/")}"`,
    );
  }
  if (pattern.startsWith("~")) {
    throw new ToolError(
      `pattern "${pattern}" starts with "~", which is not expanded to a home folder; patterns are relative to the workspace root (or to path), e.g. "src/**/*.ts"`,
    );
  }
  const cleaned = cleanGlob(pattern);
  try {
    return picomatch(cleaned, { dot: true, basename: !cleaned.includes("/"), nocase });
  } catch (error) {
    throw new ToolError(
      `invalid glob "${pattern}": ${(error as Error).message}; write a glob such as "**/*.ts" or "src/*.{js,json}"`,
    );
  }
}

/** Why a pattern found nothing, when a common slip explains it. */
function noMatchHint(pattern: string, base: string, files: string[]): string {
  const cleaned = cleanGlob(pattern).replace(/\/+$/, "");
  if (cleaned !== "" && files.some((path) => path.startsWith(`${cleaned}/`))) {
    return ` "${cleaned}" is a folder: list the files in it with pattern "${cleaned}/**" (or path "${base === "." ? cleaned : `${base}/${cleaned}`}" and pattern "**/*").`;
  }
  if (base !== "." && cleaned.startsWith(`${base}/`)) {
    return ` Patterns are matched relative to path "${base}": drop the "${base}/" at the start of the pattern.`;
  }
  if (pattern.includes("\\")) {
    return " A backslash in a glob escapes the next character; separate folders with /.";
  }
  const loose = compileGlob(pattern, true);
  const caseless = files.filter((path) => loose(path));
  if (caseless.length > 0) {
    return ` ${caseless.length} file${caseless.length === 1 ? " matches" : "s match"} if case is ignored (e.g. ${caseless[0]}); file names are case-sensitive here.`;
  }
  return ' A pattern without "/" matches file names at any depth; use "**" for any number of folders (e.g. "src/**/*.ts").';
}
