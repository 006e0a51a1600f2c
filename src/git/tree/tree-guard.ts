import { type CreatedCommit, type Identity, identityEnv } from "../commit/commits.js";
import { createGit, type GitEnv, gitRunner } from "../git-client.js";
import { type DiffTreeEntry, diffTrees, readBlob, type TreeBlob } from "./diff-tree.js";
import { EXACT_INDEX_CONFIG } from "./exact-tree.js";

/**
 * The last check before a push: the job's commits must hold exactly what the
 * agent left in the workspace. Commits are built from recorded changes;
 * this compares them with the workspace itself, hashed from scratch when the
 * agent started and when it ended, so a change the recording missed or got
 * wrong cannot reach the branch unnoticed.
 */

export interface CommitDriftOptions {
  dir: string;
  env: GitEnv;
  /** captureWorkspaceTree when the agent started (after setup) and when it ended. */
  start: string;
  end: string;
  /**
   * The commit the job's own commits were made on. Given, a path those
   * commits changed that the agent did not change is drift too.
   */
  base?: string | undefined;
  /** Paths the job commits on its own terms (the deps job's lockfile), left out of the check. */
  exclude?: ((path: string) => boolean) | undefined;
}

/** A path whose committed content is not what the agent left. */
export interface DriftedFile {
  path: string;
  /** What HEAD holds (null: absent). */
  committed: TreeBlob | null;
  /** What it should hold (null: absent). */
  expected: TreeBlob | null;
}

export async function findCommitDrift(options: CommitDriftOptions): Promise<DriftedFile[]> {
  const git = exactGit(options.dir, options.env);
  const keep = (entry: DiffTreeEntry) => !options.exclude?.(entry.path);
  const head = (await git(["rev-parse", "HEAD^{tree}"])).trim();
  const [agent, headVsEnd, committed] = await Promise.all([
    diffTrees(git, options.start, options.end),
    diffTrees(git, head, options.end),
    options.base ? diffTrees(git, `${options.base}^{tree}`, head) : Promise.resolve([]),
  ]);
  const agentPaths = new Set(agent.map((entry) => entry.path));
  const drift: DriftedFile[] = [];
  for (const entry of headVsEnd.filter(keep)) {
    // HEAD differs from the workspace here, and the difference is the agent's.
    if (agentPaths.has(entry.path)) {
      drift.push({ path: entry.path, committed: entry.old, expected: entry.new });
    }
  }
  for (const entry of committed.filter(keep)) {
    // The commits changed a path the agent left alone.
    if (!agentPaths.has(entry.path)) {
      drift.push({ path: entry.path, committed: entry.new, expected: entry.old });
    }
  }
  return drift.sort((a, b) => a.path.localeCompare(b.path));
}

export interface DriftCommitOptions {
  dir: string;
  env: GitEnv;
  drift: DriftedFile[];
  identity: Identity;
}

/**
 * One commit that puts every drifted path to what the workspace held, with
 * a message that names them. Hooks stay off: this is the bot's own repair.
 */
export async function commitDrift(options: DriftCommitOptions): Promise<CreatedCommit> {
  const git = gitRunner(options.dir, {
    env: options.env,
    config: EXACT_INDEX_CONFIG,
    extraEnv: identityEnv(options.identity),
  });
  await git(["reset", "--quiet"]);
  const update = ["update-index", "--add"];
  const removals: string[] = [];
  for (const file of options.drift) {
    if (file.expected) {
      update.push("--cacheinfo", `${file.expected.mode},${file.expected.sha},${file.path}`);
    } else removals.push(file.path);
  }
  if (removals.length > 0) update.push("--force-remove", "--", ...removals);
  await git(update);
  const files = options.drift.map((file) => file.path);
  const subject = "Include what the workspace held but the commits missed";
  const body = [
    "The per-turn commits did not match the workspace the agent left.",
    "This commit sets these paths to the workspace's content:",
    "",
    ...files.map((path) => `- ${path}`),
  ].join("\n");
  await git(["commit", "--no-verify", "--cleanup=whitespace", "-m", `${subject}\n\n${body}`]);
  await git(["update-index", "-q", "--refresh"]).catch(() => {});
  const sha = (await git(["rev-parse", "HEAD"])).trim();
  return { sha, subject, files, turns: [] };
}

function exactGit(dir: string, env: GitEnv) {
  return gitRunner(dir, { env, config: EXACT_INDEX_CONFIG });
}

/** A file's content in two workspace trees (null: absent). */
export interface TreeChange {
  path: string;
  before: Buffer | null;
  after: Buffer | null;
}

/**
 * What changed between two workspace trees, with contents: the agent's work
 * as the workspace shows it, for jobs that apply it again after resetting
 * the tree (the deps job's retries) rather than from the recorded turns.
 */
export async function treeChanges(
  dir: string,
  env: GitEnv,
  start: string,
  end: string,
): Promise<TreeChange[]> {
  const blobs = createGit(dir, { env });
  const changes: TreeChange[] = [];
  for (const entry of await diffTrees(exactGit(dir, env), start, end)) {
    changes.push({
      path: entry.path,
      before: entry.old ? await readBlob(blobs, entry.old.sha) : null,
      after: entry.new ? await readBlob(blobs, entry.new.sha) : null,
    });
  }
  return changes;
}
