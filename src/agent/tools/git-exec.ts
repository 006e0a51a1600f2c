import { execFile } from "node:child_process";
import { buildGitEnv } from "../../git/git-client.js";

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  env: Record<string, string>;
  signal?: AbortSignal;
}

/** Large enough for `ls-files` of a monorepo; output is parsed, not shown whole. */
const MAX_BUFFER = 512 * 1024 * 1024;

/**
 * Runs git with an argument array (never a shell string) and reports the exit
 * code instead of throwing, since for git grep "1" just means "no match".
 */
export function runGit(args: string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      {
        cwd: options.cwd,
        env: toolGitEnv(options.env),
        maxBuffer: MAX_BUFFER,
        encoding: "utf8",
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(error);
          return;
        }
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
  });
}

/**
 * The environment of the tools' own git (ls-files, grep): our git's (no
 * global or system config, no fsmonitor or hooks), no locks taken, and no
 * pager or colour from the repository's config in output we parse.
 */
export function toolGitEnv(env: Record<string, string>): Record<string, string> {
  return buildGitEnv({
    env,
    config: [
      ["core.quotePath", "false"],
      ["color.ui", "false"],
    ],
    extraEnv: { GIT_OPTIONAL_LOCKS: "0" },
  });
}

/** Exit code git uses for "not a git repository" and other fatal errors. */
export const GIT_FATAL = 128;

export function isNotARepository(result: GitResult): boolean {
  return result.code === GIT_FATAL && /not a git repository/i.test(result.stderr);
}
