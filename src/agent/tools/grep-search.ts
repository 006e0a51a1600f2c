import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { defineTool, type ToolContext, ToolError } from "./define-tool.js";
import { GIT_FATAL, toolGitEnv } from "./git-exec.js";
import { searchWithoutGit } from "./grep-fallback.js";
import { MAX_MATCHES, MatchCollector } from "./grep-matches.js";
import { expandBraces, toPosixRegex } from "./grep-pattern.js";
import { isNotFound, resolveInWorkspace, type WorkspacePath } from "./paths.js";
import { isSkippedPath } from "./workspace-files.js";

const input = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression (POSIX extended, e.g. "function\\s+\\w+", "TODO|FIXME"); \\d also works',
    ),
  path: z
    .string()
    .optional()
    .describe(
      "Folder or file to search, relative to the workspace root (default: the whole workspace)",
    ),
  include: z
    .string()
    .optional()
    .describe('Only search files whose names match this glob, e.g. "*.ts" or "*.{ts,tsx}"'),
});

export const grepSearchTool = defineTool({
  name: "grep_search",
  description: [
    "Searches file contents with a regular expression (case-sensitive, one line at a time) over the files git would see:",
    ".gitignore is honoured, binary files, node_modules and .git are skipped.",
    `Returns matching lines as path:line:text, at most ${MAX_MATCHES}; narrow with path or include when there are more.`,
  ].join(" "),
  input,
  readOnly: true,
  concurrencySafe: true,
  summarize: (args) => `grep_search ${args.pattern}${args.path ? ` in ${args.path}` : ""}`,
  async run(args, ctx) {
    const base = args.path
      ? await resolveInWorkspace(ctx.root, args.path)
      : { absolute: ctx.root, relative: "." };
    const info = await stat(base.absolute).catch((error: unknown) => {
      if (isNotFound(error)) throw new ToolError(`${base.relative} does not exist`);
      throw error;
    });
    const matches = new MatchCollector();
    const where = base.relative === "." ? "the workspace" : base.relative;
    const noMatch = `No matches for /${args.pattern}/ in ${where}${args.include ? ` (files matching ${args.include})` : ""}.`;
    const searched = await gitGrep(
      ctx,
      args.pattern,
      pathspecs(base, info.isFile(), args.include),
      matches,
    );
    if (searched === "not-a-repository") {
      const complete = await searchWithoutGit(
        {
          root: ctx.root,
          env: ctx.env,
          signal: ctx.signal,
          pattern: args.pattern,
          under: base.relative,
          underIsFile: info.isFile(),
          include: args.include,
        },
        matches,
      );
      const partial = complete
        ? ""
        : "\n[the folder is large and was only partly searched; give a narrower path]";
      return matches.format(noMatch) + partial;
    }
    return matches.format(noMatch);
  },
});

function pathspecs(base: WorkspacePath, isFile: boolean, include: string | undefined): string[] {
  const specs: string[] = [];
  if (isFile || !include) {
    specs.push(`:(literal)${base.relative}`);
  } else {
    const prefix = base.relative === "." ? "" : `${escapeGlob(base.relative)}/`;
    for (const glob of expandBraces(include.replace(/^\.\//, ""))) {
      specs.push(`:(glob)${prefix}${glob.includes("/") ? "" : "**/"}${glob}`);
    }
  }
  specs.push(":(exclude,glob)**/node_modules/**");
  return specs;
}

function escapeGlob(path: string): string {
  return path.replace(/[*?[\]\\]/g, "\\$&");
}

type GrepOutcome = "done" | "not-a-repository";

/**
 * Streams `git grep` output so a pattern matching half the repository costs
 * memory only for the lines kept; the rest are counted.
 */
function gitGrep(
  ctx: ToolContext,
  pattern: string,
  specs: string[],
  matches: MatchCollector,
): Promise<GrepOutcome> {
  const args = [
    "-c",
    "core.quotePath=false",
    "grep",
    "--no-color",
    "-n",
    "-I",
    "-E",
    "--untracked",
    "--null",
    "-e",
    toPosixRegex(pattern),
    "--",
    ...specs,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: ctx.root,
      env: toolGitEnv(ctx.env),
      stdio: ["ignore", "pipe", "pipe"],
      signal: ctx.signal,
    });
    const decoder = new StringDecoder("utf8");
    let pending = "";
    let stderr = "";
    const take = (line: string): void => {
      const [path = "", lineNo = "", ...rest] = line.split("\0");
      if (!isSkippedPath(path)) matches.add(path, lineNo, rest.join("\0"));
    };
    child.stdout.on("data", (chunk: Buffer) => {
      const lines = (pending + decoder.write(chunk)).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) take(line);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 10_000) stderr += chunk.toString("utf8");
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") resolve("not-a-repository");
      else reject(error);
    });
    child.on("close", (code) => {
      pending += decoder.end();
      if (pending) take(pending);
      if (code === 0 || code === 1) resolve("done");
      else if (code === GIT_FATAL && /not a git repository/i.test(stderr))
        resolve("not-a-repository");
      else if (code === GIT_FATAL) reject(new ToolError(grepFailure(pattern, stderr)));
      else reject(new Error(`git grep exited with ${code}: ${stderr.trim()}`));
    });
  });
}

function grepFailure(pattern: string, stderr: string): string {
  const detail = stderr.replace(/^fatal:\s*/m, "").trim();
  if (/-e option|regex|unmatched|invalid/i.test(detail)) {
    return `invalid regular expression "${pattern}": ${detail}. Patterns are POSIX extended regular expressions; escape literal ( ) [ ] { } . * + ? | with a backslash.`;
  }
  return `git grep failed: ${detail}`;
}
