import { rm } from "node:fs/promises";
import { join } from "node:path";
import { makeScratchDir } from "../../scratch.js";
import { type GitEnv, gitRunner } from "../git-client.js";

/**
 * Config for our own index work in a workspace, overriding whatever its
 * config files say: every stat field is checked, no cache decides for git
 * that a file or folder is unchanged, and modes and links are what they are.
 * A workspace whose config turned these off would hide changes from us.
 */
export const EXACT_INDEX_CONFIG: Array<[string, string]> = [
  ["core.trustctime", "true"],
  ["core.checkStat", "default"],
  ["core.ignoreStat", "false"],
  ["core.untrackedCache", "false"],
  ["core.splitIndex", "false"],
  ["core.fileMode", "true"],
  ["core.symlinks", "true"],
];

/**
 * The workspace's tree as git would add it from scratch: every file is
 * hashed (nothing is taken from a stat cache), ignored files stay out, and
 * files HEAD tracks stay in even where an ignore rule matches them. Costs a
 * read of every file (about 0.3 s for 20k files); the real index is untouched.
 */
export async function captureWorkspaceTree(dir: string, env: GitEnv): Promise<string> {
  const scratch = await makeScratchDir("tree");
  try {
    const git = gitRunner(dir, {
      env,
      config: EXACT_INDEX_CONFIG,
      extraEnv: { GIT_INDEX_FILE: join(scratch, "index") },
    });
    // read-tree leaves every entry without stat data, so `add` hashes each
    // file. With no commit yet it fails and writes nothing: the tree is then
    // the files alone (one process, not a rev-parse before it).
    await git(["read-tree", "HEAD"]).catch(() => {});
    await git(["add", "-A", "--", "."]);
    return (await git(["write-tree"])).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
