import { type Identity, identityEnv } from "../../git/commit/commits.js";
import { createGit, type GitEnv } from "../../git/git-client.js";
import { readWorkspaceFile, writeWorkspaceFile } from "../../sandbox/host-files.js";
import { TOOL_CACHE } from "../managers/warm-install.js";

/**
 * Git chores of the bump job inside its workspace: start an existing bump
 * branch again from the base without force-pushing, and put the checkout
 * back between attempts.
 */

/**
 * Makes HEAD's tree the base's tree with a merge commit whose parents are
 * the branch tip and the base: the branch keeps its history (so the push is
 * a fast-forward and nobody's commits vanish) while its content starts over,
 * and the pull request's diff is only what this run adds.
 */
export async function restartFromBase(options: {
  dir: string;
  baseSha: string;
  baseBranch: string;
  identity: Identity;
  env: GitEnv;
}): Promise<boolean> {
  const git = createGit(options.dir, {
    env: options.env,
    extraEnv: identityEnv(options.identity),
  });
  const head = (await git.raw(["rev-parse", "HEAD"])).trim();
  if (head === options.baseSha) return false;
  const message = `Start the dependency update again from ${options.baseBranch}`;
  const commit = (
    await git.raw([
      "commit-tree",
      `${options.baseSha}^{tree}`,
      "-p",
      head,
      "-p",
      options.baseSha,
      "-m",
      message,
    ])
  ).trim();
  await git.raw(["reset", "--quiet", "--hard", commit]);
  return true;
}

/**
 * Authors of the branch's commits that are not in the base, other than the
 * bot: someone who pushed a fix to a bump branch expects it to stay.
 */
export async function otherAuthors(options: {
  dir: string;
  baseSha: string;
  identity: Identity;
  env: GitEnv;
}): Promise<string[]> {
  const git = createGit(options.dir, { env: options.env });
  const out = await git.raw(["log", "--format=%an <%ae>", `${options.baseSha}..HEAD`]);
  const mine = `<${options.identity.email}>`;
  return [...new Set(out.split("\n").filter((line) => line && !line.endsWith(mine)))];
}

/**
 * Drops every change to tracked files and untracked files that are not
 * ignored (node_modules stays), and keeps the package manager's cache (see warm-install.ts).
 */
export async function resetCheckout(dir: string, env: GitEnv): Promise<void> {
  const git = createGit(dir, { env });
  await git.raw(["reset", "--quiet", "--hard", "HEAD"]);
  await git.raw(["clean", "-fdq", "-e", `/${TOOL_CACHE}`]);
}

export async function readFiles(
  dir: string,
  paths: Iterable<string>,
): Promise<Map<string, Buffer | null>> {
  const out = new Map<string, Buffer | null>();
  for (const path of paths) out.set(path, await readWorkspaceFile(dir, path).catch(() => null));
  return out;
}

export async function writeFiles(
  dir: string,
  files: ReadonlyMap<string, Buffer | null>,
): Promise<void> {
  for (const [path, content] of files) await writeWorkspaceFile(dir, path, content);
}
