import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { type ToolContext, ToolError } from "./define-tool.js";
import { GIT_FATAL, toolGitEnv } from "./git-exec.js";
import type { MatchCollector } from "./grep-matches.js";
import { isSkippedPath } from "./workspace-files.js";

/** What git grep is asked to find. */
export interface GitGrepQuery {
  /** A POSIX extended expression, or plain text when `fixed`. */
  expression: string;
  fixed: boolean;
  ignoreCase: boolean;
  /** The pattern as the model wrote it, for error messages. */
  written: string;
}

export type GrepOutcome = "done" | "not-a-repository";

/**
 * Streams `git grep` output so a pattern matching half the repository costs
 * memory only for the lines kept; the rest are counted.
 */
export function gitGrep(
  ctx: ToolContext,
  query: GitGrepQuery,
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
    query.fixed ? "-F" : "-E",
    "--untracked",
    "--null",
    ...(query.ignoreCase ? ["-i"] : []),
    "-e",
    query.expression,
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
      else if (code === GIT_FATAL) reject(new ToolError(grepFailure(query.written, stderr)));
      else reject(new Error(`git grep exited with ${code}: ${stderr.trim()}`));
    });
  });
}

function grepFailure(pattern: string, stderr: string): string {
  const detail = stderr.replace(/^fatal:\s*/m, "").trim();
  if (/-e option|regex|unmatched|invalid/i.test(detail)) {
    return `invalid regular expression "${pattern}": ${detail.replace(/^-e option, '.*?': /s, "")}. Escape a literal ( ) [ ] { } . * + ? | with a backslash and call grep_search again.`;
  }
  return `git grep failed: ${detail}; narrow the search with path or include, or search with run_shell (grep -rn)`;
}
