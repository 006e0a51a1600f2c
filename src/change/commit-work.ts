import type { AgentSessionResult } from "../agent/session.js";
import type { CoAuthor } from "../git/commit/commit-message.js";
import { type CreatedCommit, createCommits, type Identity } from "../git/commit/commits.js";
import { type GitEnv, runGit } from "../git/git-client.js";
import { commitDrift, findCommitDrift } from "../git/tree/tree-guard.js";

export interface CommitWorkOptions {
  dir: string;
  env: GitEnv;
  session: AgentSessionResult;
  /** captureWorkspaceTree before the agent's first tool and after its last. */
  trees: { start: string; end: string };
  /** HEAD when the agent finished: the commits are made on it. */
  head: string;
  /** Commit messages are the model's words: redacted like everything else it says. */
  redact: (text: string) => string;
  identity: Identity;
  squash: boolean;
  coAuthor?: CoAuthor | undefined;
  requestUrl?: string | undefined;
  /**
   * The turns' commits, already built on `head` as checkpoints (see
   * checkpoints.ts): they become the branch as they are, instead of being
   * made again. Not with `squash`, which makes one commit of them all.
   */
  checkpoints?: { tip: string; commits: CreatedCommit[] } | undefined;
}

export interface CommittedWork {
  commits: CreatedCommit[];
  /** Paths a last commit had to put right (see findCommitDrift). */
  drift?: string[];
}

/**
 * Turns the agent's recorded changes into commits, then checks them against
 * the workspace itself and, where they differ, adds one commit that makes
 * them agree. The workspace wins: it is what the agent saw, what verify
 * runs on and what the model described.
 */
export async function commitWork(options: CommitWorkOptions): Promise<CommittedWork> {
  const created =
    options.checkpoints && !options.squash
      ? await adopt(options, options.checkpoints)
      : await commitTurns(options);
  const drift = await findCommitDrift({
    dir: options.dir,
    env: options.env,
    ...options.trees,
    base: options.head,
  });
  if (drift.length === 0) return { commits: created.commits };
  const commit = await commitDrift({
    dir: options.dir,
    env: options.env,
    drift,
    identity: options.identity,
  });
  return { commits: [...created.commits, commit], drift: commit.files };
}

/** The branch moves to the checkpoints' tip; the index follows, the working tree is left alone. */
async function adopt(
  options: CommitWorkOptions,
  checkpoints: { tip: string; commits: CreatedCommit[] },
): Promise<{ commits: CreatedCommit[] }> {
  const git = (args: string[]) => runGit(options.dir, args, { env: options.env });
  await git(["reset", "--quiet", checkpoints.tip]);
  // As after any commit: `git status` sees the tree as clean where it matches.
  await git(["update-index", "-q", "--refresh"]).catch(() => "");
  return { commits: checkpoints.commits };
}

function commitTurns(options: CommitWorkOptions): Promise<{ commits: CreatedCommit[] }> {
  const { session } = options;
  const turns = session.history.turns().map((t) => ({
    turn: t.turn,
    text: options.redact(session.result.turnTexts.get(t.turn) ?? ""),
    files: t.files,
  }));
  return createCommits({
    dir: options.dir,
    turns,
    identity: options.identity,
    squash: options.squash,
    squashText: options.redact(session.result.finalText),
    env: options.env,
    ...(options.coAuthor ? { coAuthor: options.coAuthor } : {}),
    ...(options.requestUrl ? { requestUrl: options.requestUrl } : {}),
  });
}
