import { execFile } from "node:child_process";

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
      // Config from the repository must not turn on pagers or colour in parsed output.
      ["-c", "core.quotePath=false", "-c", "color.ui=false", ...args],
      {
        cwd: options.cwd,
        env: { ...options.env, GIT_OPTIONAL_LOCKS: "0" },
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

/** Exit code git uses for "not a git repository" and other fatal errors. */
export const GIT_FATAL = 128;

export function isNotARepository(result: GitResult): boolean {
  return result.code === GIT_FATAL && /not a git repository/i.test(result.stderr);
}
