import type { Stats } from "node:fs";
import * as z from "../../../zod.js";
import { defineTool, type ToolContext, ToolError } from "../define-tool.js";
import { commaListToBraces, expandBraces } from "../fs/glob-braces.js";
import { searchBase } from "../fs/not-found.js";
import type { WorkspacePath } from "../fs/paths.js";
import { INPUT_SCHEMAS } from "../input-schemas.js";
import { walkCandidates } from "./grep-fallback.js";
import { gitSearch } from "./grep-git.js";
import { MAX_MATCHES, MatchCollector } from "./grep-matches.js";
import { otherReadings, regexQuery, type SearchQuery } from "./grep-retry.js";
import { scanFiles } from "./grep-scan.js";

const input = z.object({
  pattern: z
    .string()
    .check(
      z.minLength(1),
      z.describe(
        'JavaScript regular expression matched against each line, e.g. "function\\s+\\w+", "TODO|FIXME", "(?:get|post)\\(", "(?<=require\\()\\S+"',
      ),
    ),
  path: z
    .optional(z.string())
    .check(
      z.describe(
        "Folder or file to search, relative to the workspace root (default: the whole workspace)",
      ),
    ),
  include: z
    .optional(z.string())
    .check(
      z.describe('Only search files whose names match this glob, e.g. "*.ts" or "*.{ts,tsx}"'),
    ),
  case_insensitive: z
    .optional(z.boolean())
    .check(
      z.describe(
        "Match letters in either case (default false); use this rather than an inline (?i)",
      ),
    ),
});

export const grepSearchTool = defineTool({
  name: "grep_search",
  description: [
    "Searches file contents one line at a time over the files git would see (.gitignore is honoured; binary files, node_modules and .git are skipped).",
    "The pattern is a JavaScript (ECMAScript) regular expression, with the same meaning in every workspace:",
    ". [...] [^...] \\d \\w \\s \\b (\\d and \\w are ASCII), * + ? {n,m} and their lazy forms, (...) (?:...) (?<name>...) | \\1 \\k<name>,",
    "lookahead (?=...) (?!...), lookbehind (?<=...) (?<!...), \\p{L}-style Unicode properties, \\t \\xHH \\u{HHHH}.",
    "^ and $ are the start and end of a line; a line never holds its line break, so \\n cannot match.",
    "Case-sensitive unless case_insensitive is true.",
    "Also taken, meaning exactly the same: a leading (?i), POSIX classes such as [[:alpha:]] (ASCII), \\h, \\A, \\z, \\< \\>, (?P<name>...), \\Q...\\E.",
    "Anything else (inline flags elsewhere, possessive or atomic groups, \\K, recursion) is refused with the rewrite to use; an invalid pattern is refused with where it is wrong.",
    `Returns matching lines as path:line:text, at most ${MAX_MATCHES}; narrow with path or include when there are more.`,
  ].join(" "),
  input,
  inputJsonSchema: INPUT_SCHEMAS.grep_search,
  kind: "search",
  pathFields: ["path"],
  globFields: ["include"],
  concurrencySafe: true,
  summarize: (args) => `grep_search ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
  async run(args, ctx) {
    const caseInsensitive = args.case_insensitive ?? false;
    const query = regexQuery(args.pattern, caseInsensitive);
    const include = args.include === undefined ? undefined : checkInclude(args.include);
    const { base, info } = await searchBase(ctx, args.path);
    const scope = { base, info, include };
    const found = await search(ctx, scope, query);
    if (found.matches.total > 0) return found.matches.format("") + found.partial;
    for (const reading of otherReadings(args.pattern, caseInsensitive)) {
      const other = await search(ctx, scope, reading.query);
      if (other.matches.total > 0) {
        return `${reading.intro}\n${other.matches.format("")}${other.partial}`;
      }
    }
    const where = base.relative === "." ? "the workspace" : base.relative;
    const files = args.include ? ` (files matching ${args.include})` : "";
    const how = query.ignoreCase ? " (case-insensitive)" : "";
    return `No matches for /${args.pattern}/${how} in ${where}${files}.${includeHint(include, base.relative)}${found.partial}`;
  },
});

function checkInclude(include: string): string {
  if (include.startsWith("~")) {
    throw new ToolError(
      `include "${include}" starts with "~", which is not expanded to a home folder; include matches file names inside the workspace, e.g. "*.ts"`,
    );
  }
  if (include.includes("\\")) {
    throw new ToolError(
      `include "${include}" contains backslashes; globs use forward slashes between folders (e.g. "src/**/*.ts"), and a backslash would only escape the next character`,
    );
  }
  return commaListToBraces(include.replace(/^\.\//, ""));
}

/** include is matched below path, so repeating path in it finds nothing. */
function includeHint(include: string | undefined, base: string): string {
  if (include === undefined || base === "." || !include.startsWith(`${base}/`)) return "";
  return ` include is matched below path "${base}": drop the "${base}/" at its start.`;
}

interface Scope {
  base: WorkspacePath;
  info: Stats;
  include: string | undefined;
}

/** One search: with git's help (see grep-git.ts), or outside a repository the bounded walk. */
async function search(
  ctx: ToolContext,
  scope: Scope,
  query: SearchQuery,
): Promise<{ matches: MatchCollector; partial: string }> {
  const matches = new MatchCollector();
  const specs = pathspecs(scope.base, scope.info.isFile(), scope.include);
  const git = await gitSearch(ctx, specs, query, matches);
  if (git) {
    const files = "files" in git ? git.files : git.rescan;
    await scanFiles(ctx.root, files, query, matches, ctx.signal);
    return { matches, partial: "" };
  }
  const walked = await walkCandidates({
    root: ctx.root,
    env: ctx.env,
    signal: ctx.signal,
    under: scope.base.relative,
    underIsFile: scope.info.isFile(),
    include: scope.include,
  });
  await scanFiles(ctx.root, walked.files, query, matches, ctx.signal);
  const partial = walked.complete
    ? ""
    : "\n[the folder is large and was only partly searched; give a narrower path]";
  return { matches, partial };
}

function pathspecs(base: WorkspacePath, isFile: boolean, include: string | undefined): string[] {
  const specs: string[] = [];
  if (isFile || !include) {
    specs.push(`:(literal)${base.relative}`);
  } else {
    const prefix = base.relative === "." ? "" : `${escapeGlob(base.relative)}/`;
    for (const glob of expandBraces(include)) {
      specs.push(`:(glob)${prefix}${glob.includes("/") ? "" : "**/"}${glob}`);
    }
  }
  specs.push(":(exclude,glob)**/node_modules/**");
  return specs;
}

function escapeGlob(path: string): string {
  return path.replace(/[*?[\]\\]/g, "\\$&");
}
