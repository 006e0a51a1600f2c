import { abortError, buildGitEnv } from "../../git/git-client.js";
import { runInGroup } from "../../spawner.js";

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

/**
 * Runs git with an argument array (never a shell string) and reports the exit
 * code instead of throwing, since for git grep "1" just means "no match".
 * Started by the spawner's helper when it is up (a tool call's git would
 * otherwise fork the App); a cancelled run stops it and rejects with an
 * AbortError, as execFile's signal did.
 */
export async function runGit(args: string[], options: GitOptions): Promise<GitResult> {
  const { signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const run = runInGroup("git", args, { cwd: options.cwd, env: toolGitEnv(options.env) });
  const stop = () => run.killGroup("SIGTERM");
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const { code, stdout, stderr } = await run.done;
    if (signal?.aborted) throw abortError(signal);
    if (code === null) throw new Error(`git ${args[0] ?? ""} was ended by a signal`);
    return { code, stdout: stdout.toString("utf8"), stderr: stderr.toString("utf8") };
  } finally {
    signal?.removeEventListener("abort", stop);
  }
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
