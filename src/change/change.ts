import type { CommandRecord } from "../agent/command-log.js";
import type { NetChange } from "../agent/file-history.js";
import type { AgentLimits, AgentResult } from "../agent/loop.js";
import type { McpServersConfig } from "../agent/mcp/config.js";
import type { Model } from "../agent/model/model.js";
import type { PolicyConfig } from "../agent/policy/policy.js";
import type { InstructionFile } from "../agent/prompt.js";
import type { AnyTool } from "../agent/tools/define-tool.js";
import type { CoAuthor } from "../git/commit/commit-message.js";
import type { CreatedCommit, Identity } from "../git/commit/commits.js";
import type { GitToken } from "../git/credentials.js";
import type { PushResult } from "../git/push/push.js";
import type { FetchedMirror } from "../git/workspace/workspace.js";
import type { CommitPusher } from "../kernel/push-work.js";
import type { CommandResult } from "../kernel/run-command.js";
import type { NetworkPolicy } from "../sandbox/network.js";

/**
 * What a change (run-change.ts: a list of steps) takes and gives back: the
 * shapes every job kind and entry point shares.
 */
export interface ChangeInput {
  cloneUrl: string;
  /** Used only by the git commands that need it, asked for anew by each; never reaches the agent. */
  token?: GitToken | undefined;
  /** The branch new work starts from; default: the remote's default branch. */
  baseBranch?: string | undefined;
  /** The repository's default branch, never pushed to; default: the base branch. */
  defaultBranch?: string | undefined;
  /** Work on this existing branch (a PR head) instead of creating one. */
  existingBranch?: string | undefined;
  /** GitHub's size estimate of the repository; small ones are fetched whole (partialFetchFor). */
  repoSizeKb?: number | undefined;
  /** From `prefetchRepository`, started while the caller made its API calls. */
  fetched?: Promise<FetchedMirror | null> | undefined;
  /** For naming a new branch: `<prefix>issue-<n>-<slug of title>`. */
  branchTitle: string;
  issueNumber?: number | undefined;
  branchPrefix: string;
  task: string;
  extraRules?: string | undefined;
  /** Agent instructions from a trusted place (see AgentSessionOptions.instructions). */
  instructions?: InstructionFile[] | undefined;
  model: Model;
  policy: PolicyConfig;
  limits: AgentLimits;
  setup: string[];
  verify?: string | null | undefined;
  /** How long verify (and each setup command) may run, in seconds (default 15 minutes). */
  verifyTimeoutSeconds?: number | undefined;
  /** The network of the agent's commands and verify. */
  network: NetworkPolicy;
  /** The network of the setup commands. */
  setupNetwork: NetworkPolicy;
  squash: boolean;
  identity: Identity;
  coAuthor?: CoAuthor | undefined;
  requestUrl?: string | undefined;
  /** false: commit in the workspace but do not push (dry runs, fork PRs). */
  push: boolean;
  /** Keep a unified diff of the job's net change (to answer fork PRs with a patch). */
  wantPatch?: boolean | undefined;
  /** Push through this instead of git (`signed_commits`: the Git Data API). */
  pushVia?: CommitPusher | undefined;
  /** The token lacks `workflows: write`: commits changing .github/workflows/ are not pushed (workflow-files.ts). */
  workflowsLocked?: boolean | undefined;
  /** The repository's `mcp_servers:` (see job-mcp.ts). */
  mcpServers?: McpServersConfig | undefined;
  /** Tools of this job beside the built-in ones (a review's add_review_comment). */
  tools?: readonly AnyTool[] | undefined;
  /**
   * For a job that may be cut short (the App's): every turn that changed
   * files is committed and saved under this ref (refs/patchwright/wip/<job
   * id>) on the remote as the agent goes, the saved commits become the
   * branch, and a job that finds a checkpoint there resumes from it (see
   * checkpoints.ts). Each one saved is told to `events.checkpoint`. Needs `push`.
   */
  checkpointRef?: string | undefined;
}

export type UpdateStrategy = "merge" | "rebase";

/** What bringing a branch up to date found and did (update-branch.ts). */
export interface Integration {
  strategy: UpdateStrategy;
  baseSha: string;
  conflicted: string[];
  /** Files the agent could not resolve: the branch was left as it was. */
  unresolved?: string[];
  upToDate?: boolean;
}

export type JobStage = "workspace" | "sandbox" | "setup" | "agent" | "verify" | "push";

export interface ChangeResult {
  branch: string;
  baseBranch: string;
  agent?: AgentResult;
  changes: NetChange[];
  commits: CreatedCommit[];
  verify?: CommandResult;
  push?: PushResult;
  /** Where the work went when the job's own branch could not take it. */
  fallbackBranch?: string;
  /**
   * The server declined the job's branch (protected branch, pre-receive
   * hook). The commits went to `sideBranch` (also fallbackBranch) or, when
   * no branch took them, are kept in `patch`.
   */
  pushDeclined?: { branch: string; reason: string; sideBranch?: string };
  /** Every command the agent ran through run_shell, with its exit status, from the tool log. */
  commands: CommandRecord[];
  /**
   * Paths whose recorded changes did not match the workspace the agent left;
   * a last commit set them to the workspace's content. Reported loudly.
   */
  drift?: string[];
  patch?: string;
  /** Where an earlier, interrupted run of the job got to: its commits start this branch. */
  resumed?: { from: string; commits: CreatedCommit[] };
  /**
   * Stopped (a shutdown) with checkpoints on: nothing was verified or
   * pushed to the branch; the work so far is at `checkpoint` on the remote.
   */
  interrupted?: { checkpoint?: string | undefined };
  /** The first thing that went wrong; stages after it did not run, work before it is kept. */
  error?: { stage: JobStage; message: string };
  /** What a step found that the reviewer should know, said in the thread's answer (markdown lines). */
  notices?: string[];
  /**
   * What went wrong without stopping the job (the project's tool not
   * fetched, a checkpoint not saved, a package not put back), as the job's
   * events said it: the thread's answer, the CLI's summary and the Action's
   * log say it too, so a check that could not run is never hidden.
   */
  warnings?: string[];
  durationMs: number;
  /** Bringing a branch up to date: what the update found and did. */
  update?: Integration;
  /**
   * Deletes the job's checkpoint ref. Set once the work is on its branch;
   * called once it is published (kernel/sequence.ts), so a job that dies between
   * the two still finds its work.
   */
  dropCheckpoint?: (() => Promise<void>) | undefined;
}
