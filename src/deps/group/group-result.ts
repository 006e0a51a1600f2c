import type { AgentStopReason } from "../../agent/events.js";
import type { CreatedCommit } from "../../git/commit/commits.js";
import type { PushResult } from "../../git/push/push.js";
import type { PullRequestResult } from "../../github/pulls.js";
import type { CommandResult } from "../../kernel/run-command.js";
import type { BumpFailure } from "../fix/task.js";
import type { UpdateGroup } from "../plan/groups.js";
import type { UnreviewedPackage } from "../plan/install-scripts.js";
import type { Update } from "../update.js";

/** What happened to one group: the pull request body and the callers' reports are built from it. */

/**
 * green: all updates pass; partial: some left out; failed: nothing passes;
 * skipped: someone else pushed to the branch, so it is left as it is;
 * split: some updates pass as they are and some need fixes; the job runs
 * the two parts as two groups (`split` says which is which);
 * error: the job broke.
 */
export type GroupStatus = "green" | "partial" | "failed" | "skipped" | "error" | "split";

export interface LeftOut {
  update: Update;
  /** The failure with it in the set, after the agent's attempt. */
  failure: BumpFailure | undefined;
}

export interface AgentAttempt {
  stopReason: AgentStopReason | "error";
  /** Why it stopped, when it stopped on an error (the model could not be reached, a bad key). */
  error?: string;
  /** The agent's own account of what it changed and why. */
  summary: string;
  /** Files it changed that are kept (lockfile and node_modules excluded). */
  files: string[];
  costUsd: number;
  /** Whether its changes made the checks pass with every update of the group. */
  fixed: boolean;
}

export interface DepsGroupResult {
  group: UpdateGroup;
  branch: string;
  status: GroupStatus;
  /** The updates on the branch. */
  applied: Update[];
  leftOut: LeftOut[];
  /** The first failure, before the agent ran. */
  firstFailure?: BumpFailure;
  agent?: AgentAttempt;
  /** The final check on what is pushed. */
  verify?: CommandResult;
  /** The verify command was not configured and package.json has no test script. */
  unverified?: boolean;
  commits: CreatedCommit[];
  /**
   * Paths where the agent's recorded changes did not match its workspace;
   * the workspace's content was used. Reported loudly.
   */
  drift?: string[];
  push?: PushResult;
  pullRequest?: PullRequestResult;
  error?: { stage: string; message: string };
  /** With status split: the updates that pass as they are, and those that need fixes. */
  split?: { asIs: Update[]; fixes: Update[] };
  /**
   * Packages with install scripts the lockfile newly locks (transitive ones
   * too) that package.json's `allowScripts` leaves unreviewed: npm 12 skips them.
   */
  unreviewedScripts?: UnreviewedPackage[];
  /**
   * What the agent's fix loosened of the project's dependency safeguards
   * (script approvals, release-age and trust exemptions, gates lowered;
   * deps/fix/safeguards.ts), which its rules forbid: said first among the
   * pull request's warnings.
   */
  agentLoosened?: string[];
  /** Things that went wrong around a shipped group (a label that could not be set). */
  warnings?: string[];
  durationMs: number;
}
