import type { GitEnv } from "../git/git-client.js";
import { runGit, runGitBuffer } from "../git/git-client.js";
import {
  findSecretsInNewCommits,
  type KnownSecret,
  SecretInCommitError,
} from "../git/push/secret-scan.js";
import type { GitHubClient, RepoRef } from "./octokit.js";

/**
 * Pushes the job's commits through the Git Data API instead of git: each
 * commit is created again (blobs, a tree on its parent's, the commit with its
 * message and author, no committer), so GitHub signs it for the App and shows
 * it as Verified. Messages, authors, dates and trailers are kept; the branch
 * stays an ordinary branch. Blobs always go through the blob API as base64,
 * so large and binary files arrive byte for byte.
 */

export interface SignedPushOptions {
  octokit: GitHubClient;
  repo: RepoRef;
  /** The workspace holding the commits. */
  dir: string;
  env: GitEnv;
  branch: string;
  /** Where the job's commits start: a commit GitHub has (the branch's tip, or the base's). */
  onto: string;
  /** The branch exists on GitHub: it is moved (fast-forward, or forced over `lease`). */
  exists: boolean;
  /** For a rewritten branch: force the update, but only if the branch is still at this sha. */
  lease?: string | undefined;
  secrets: readonly KnownSecret[];
}

export interface SignedPush {
  sha: string;
  /** Local commit -> the commit GitHub created for it. */
  created: Map<string, string>;
}

interface TreeEntry {
  path: string;
  mode: "100644" | "100755" | "040000" | "160000" | "120000";
  type: "blob" | "tree" | "commit";
  sha: string | null;
}

export async function pushSigned(options: SignedPushOptions): Promise<SignedPush> {
  const { octokit, repo, dir, env } = options;
  const git = (args: string[]) => runGit(dir, args, { env });
  const findings = await findSecretsInNewCommits({ dir, env, secrets: options.secrets });
  if (findings.length > 0) throw new SecretInCommitError(findings);

  // Commits GitHub already has (the base's, merged in) are parents, not new commits.
  const order = (
    await git([
      "rev-list",
      "--reverse",
      "--topo-order",
      "--parents",
      "HEAD",
      "--not",
      options.onto,
      "--remotes",
    ])
  )
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" "));
  const created = new Map<string, string>();
  const blobs = new Map<string, string>();
  // The trees GitHub made for the commits it created, by local commit.
  const remoteTrees = new Map<string, string>();
  let tip = options.onto;
  for (const [sha = "", ...parents] of order) {
    const first = parents[0];
    const entries = first ? await changedEntries(dir, env, first, sha, blobs, options) : [];
    const baseTree = first
      ? (remoteTrees.get(first) ?? (await git(["rev-parse", `${first}^{tree}`])).trim())
      : undefined;
    const tree =
      entries.length === 0 && baseTree
        ? baseTree
        : (
            await octokit.rest.git.createTree({
              ...repo,
              ...(baseTree ? { base_tree: baseTree } : {}),
              tree: entries,
            })
          ).data.sha;
    // Git objects are named by their content, so GitHub's tree for the
    // commit must be the very tree the workspace committed: anything else
    // (an entry lost or changed on the way) would push other code than was
    // verified. Checked before any ref moves, so nothing is published.
    const local = (await git(["rev-parse", `${sha}^{tree}`])).trim();
    if (tree !== local) {
      throw new Error(
        `GitHub's tree for commit ${sha.slice(0, 7)} (${tree.slice(0, 7)}) is not the one committed in the workspace (${local.slice(0, 7)}); nothing was pushed`,
      );
    }
    const [name = "", email = "", date = "", ...rest] = (
      await git(["log", "-1", "--format=%an%x00%ae%x00%aI%x00%B", sha])
    ).split("\0");
    const { data } = await octokit.rest.git.createCommit({
      ...repo,
      message: rest.join("\0").replace(/\n+$/, ""),
      tree,
      parents: parents.map((p) => created.get(p) ?? p),
      author: { name, email, date },
    });
    created.set(sha, data.sha);
    remoteTrees.set(sha, tree);
    tip = data.sha;
  }
  await moveBranch(options, tip);
  return { sha: tip, created };
}

async function changedEntries(
  dir: string,
  env: GitEnv,
  from: string,
  to: string,
  blobs: Map<string, string>,
  options: SignedPushOptions,
): Promise<TreeEntry[]> {
  const out = await runGit(dir, ["diff-tree", "-r", "-z", "--no-renames", from, to], { env });
  const fields = out.split("\0");
  const entries: TreeEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = fields[i] ?? "";
    const path = fields[i + 1] ?? "";
    const [oldMode = "", newMode = "", , newSha = "", status = ""] = meta
      .replace(/^:/, "")
      .split(/\s+/);
    if (!meta.startsWith(":")) continue;
    if (status.startsWith("D")) {
      const gone = oldMode as TreeEntry["mode"];
      entries.push({ path, mode: gone, type: gone === "160000" ? "commit" : "blob", sha: null });
      continue;
    }
    const mode = newMode as TreeEntry["mode"];
    if (mode === "160000") {
      entries.push({ path, mode, type: "commit", sha: newSha });
      continue;
    }
    let sha = blobs.get(newSha);
    if (!sha) {
      const content = await runGitBuffer(dir, ["cat-file", "blob", newSha], { env });
      const { data } = await options.octokit.rest.git.createBlob({
        ...options.repo,
        content: content.toString("base64"),
        encoding: "base64",
      });
      sha = data.sha;
      blobs.set(newSha, sha);
    }
    entries.push({ path, mode, type: "blob", sha });
  }
  return entries;
}

async function moveBranch(options: SignedPushOptions, sha: string): Promise<void> {
  const { octokit, repo, branch } = options;
  if (!options.exists) {
    await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha });
    return;
  }
  if (options.lease) {
    const { data } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` });
    if (data.object.sha !== options.lease) {
      throw new Error(
        `"${branch}" moved on GitHub (now ${data.object.sha.slice(0, 7)}) while the job rewrote it; nothing was forced over it`,
      );
    }
  }
  await octokit.rest.git.updateRef({
    ...repo,
    ref: `heads/${branch}`,
    sha,
    force: options.lease !== undefined,
  });
}
