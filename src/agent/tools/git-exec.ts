import { buildGitEnv, runGitCommand } from "../../git/git-client.js";

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
 * The environment of the tools' own git (ls-files, grep): our git's (no
 * global or system config, no fsmonitor or hooks), no locks taken, and no
 * pager or colour from the repository's config in output we parse.
 */
const TOOL_GIT = {
  config: [
    ["core.quotePath", "false"],
    ["color.ui", "false"],
  ] satisfies Array<[string, string]>,
  extraEnv: { GIT_OPTIONAL_LOCKS: "0" },
};

/**
 * Runs git with an argument array (never a shell string) and reports the exit
 * code instead of throwing, since for git grep "1" just means "no match".
 * As our own git runs (git-client.ts): from the spawner's helper when it is
 * up, and a cancelled run stops git's process group and rejects with an
 * AbortError.
 */
export async function runGit(args: string[], options: GitOptions): Promise<GitResult> {
  const { code, stdout, stderr } = await runGitCommand(options.cwd, args, {
    ...TOOL_GIT,
    env: options.env,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (code === null) throw new Error(`git ${args[0] ?? ""} was ended by a signal`);
  return { code, stdout: stdout.toString("utf8"), stderr: stderr.toString("utf8") };
}

/** The tools' git environment, for a git started otherwise (grep-git.ts streams). */
export function toolGitEnv(env: Record<string, string>): Record<string, string> {
  return buildGitEnv({ ...TOOL_GIT, env });
}

/** Exit code git uses for "not a git repository" and other fatal errors. */
export const GIT_FATAL = 128;

export function isNotARepository(result: GitResult): boolean {
  return result.code === GIT_FATAL && /not a git repository/i.test(result.stderr);
}
