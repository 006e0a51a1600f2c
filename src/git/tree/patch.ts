import { createGit, type GitEnv } from "../git-client.js";

/**
 * The job's change as one patch `git apply` accepts (binary files included),
 * for answering where the App cannot push: a pull request from a fork.
 */
export async function workspacePatch(dir: string, fromSha: string, env: GitEnv): Promise<string> {
  const git = createGit(dir, { env });
  return git.raw(["diff", "--binary", "--no-color", "--no-ext-diff", fromSha, "HEAD"]);
}
