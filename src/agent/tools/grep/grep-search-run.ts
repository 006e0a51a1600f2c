import type { Stats } from "node:fs";
import { type ToolContext, ToolError } from "../define-tool.js";
import { commaListToBraces, expandBraces } from "../fs/glob-braces.js";
import { searchBase } from "../fs/not-found.js";
import type { WorkspacePath } from "../fs/paths.js";
import { walkCandidates } from "./grep-fallback.js";
import { gitSearch } from "./grep-git.js";
import { MatchCollector } from "./grep-matches.js";
import { otherReadings, regexQuery, type SearchQuery } from "./grep-retry.js";
import { scanFiles } from "./grep-scan.js";
import type { GrepSearchInput } from "./grep-search-input.js";

/** grep_search's work, loaded at its first call (define-tool.ts runOnFirstCall). */
export async function grepSearchRun(args: GrepSearchInput, ctx: ToolContext): Promise<string> {
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
}

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
