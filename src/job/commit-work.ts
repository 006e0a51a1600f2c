import type { AgentSessionResult } from "../agent/session.js";
import type { CoAuthor } from "../git/commit-message.js";
import { type CreatedCommit, createCommits, type Identity } from "../git/commits.js";
import type { GitEnv } from "../git/git-client.js";
import { commitDrift, findCommitDrift } from "../git/tree-guard.js";

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
  const { session } = options;
  const turns = session.history.turns().map((t) => ({
    turn: t.turn,
    text: options.redact(session.result.turnTexts.get(t.turn) ?? ""),
    files: t.files,
  }));
  const created = await createCommits({
    dir: options.dir,
    turns,
    identity: options.identity,
    squash: options.squash,
    squashText: options.redact(session.result.finalText),
    env: options.env,
    ...(options.coAuthor ? { coAuthor: options.coAuthor } : {}),
    ...(options.requestUrl ? { requestUrl: options.requestUrl } : {}),
  });
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
