import type { AgentLimits } from "../../agent/loop.js";
import type { ModelSettings } from "../../agent/model/factory.js";
import type { Model } from "../../agent/model/model.js";
import type { PolicyConfig } from "../../agent/policy/policy.js";
import type { Identity } from "../../git/commit/commits.js";
import type { GitToken } from "../../git/credentials.js";
import type { GitEnv } from "../../git/git-client.js";
import type { GitHubClient } from "../../github/octokit.js";
import type { JobEvents } from "../../kernel/events.js";
import type { ProjectTools } from "../../kernel/project-tools.js";
import type { JobServices } from "../../kernel/services.js";
import type { NetworkPolicy } from "../../sandbox/network.js";
import type { LockfileCommand } from "../managers/bump.js";
import type { ManagerTools } from "../managers/types.js";
import type { WarmInstall } from "../managers/warm-install.js";
import type { ReleaseBytes } from "../managers/yarn/release-file.js";
import type { UpdateGroup } from "../plan/groups.js";
import type { PlanWarning } from "../plan/plan.js";
import type { UpstreamSource } from "../registry/upstream.js";
import type { PassedLocks, PassedTries } from "./passed-tries.js";

/**
 * What a dependency job and its groups run with. The shapes live here, in
 * the lowest file that uses them, so the group's steps, the fix and the
 * publishing share them without importing each other.
 */

/** The job services, plus what a dependency job alone needs. */
export interface DepsServices extends JobServices {
  /** Builds the model for a model id; called only when a bump breaks something. */
  createModel: (modelId: string, settings?: ModelSettings) => Model;
  /** Groups run side by side (default 2); 1 runs them one after another. */
  groupConcurrency?: number | undefined;
  /** How to start pnpm, yarn and bun (default: corepack, which honours the project's pinned version; bun from the PATH). */
  packageManagers?: ManagerTools | undefined;
  /** Absent: branches are pushed but no pull requests are opened (the CLI). */
  octokit?: GitHubClient | undefined;
  /**
   * Where the agent's release notes come from; default: the repositories'
   * GitHub releases through `octokit`. The CLI passes its own (a token from
   * its environment) without an octokit that would open pull requests.
   */
  releases?: UpstreamSource["releases"] | undefined;
  /**
   * The job can be cut short and run again (the App's queue): each group's
   * agent fix is saved on a checkpoint ref of this job as the agent goes,
   * and the next run takes it up instead of starting the fix over.
   */
  checkpoints?: { jobId: string } | undefined;
}

/** Where a group's branch and pull request go. */
export interface GroupTarget {
  cloneUrl: string;
  /** Used by git only, asked for anew by each command; never reaches the agent or the repository's commands. */
  token: GitToken | undefined;
  owner: string;
  repo: string;
  baseBranch: string;
  defaultBranch: string;
  branchPrefix: string;
  identity: Identity;
  /** false: commit in the workspace only. */
  push: boolean;
  /** deps.labels: on every bump pull request (security fixes get `security` too). */
  labels: readonly string[];
  /** The plan's checks that could not run: every pull request says so at the top. */
  planWarnings?: readonly PlanWarning[] | undefined;
}

/** How the repository's package manager and checks run in a group's workspace. */
export interface GroupTools {
  install: string;
  /** Used instead of `install` when node_modules is already there (an earlier try or group left it). */
  reinstall?: string | undefined;
  /** The package manager's lockfile command (default npm's). */
  lockfileCommand?: LockfileCommand | undefined;
  /** The tool's cache inside the workspace (the only place a sandboxed install may write). */
  cacheEnv?: ((dir: string) => Record<string, string>) | undefined;
  /** What verify needs to start the tool the lockfile step fetched into that cache (corepack's home). */
  launchEnv?: ((dir: string) => Record<string, string>) | undefined;
  /** The tool by its name on the PATH of its commands and verify (ManagerCommands.shims). */
  shims?: ((root: string) => Record<string, string>) | undefined;
  /**
   * The same tool for the agent's shell, in the worksite's tools folder
   * (kernel/project-tools.ts): the tool cache above is hidden from it.
   */
  agentTools?: ((root: string) => ProjectTools | undefined) | undefined;
  /** A new release's file from the registry, for the `packageManager` update that replaces the project's (yarn's yarnPath). */
  releaseBytes?: ReleaseBytes | undefined;
  /** npm only: its lockfile step must not see an installed tree (it would reuse its versions). */
  hideTreeFromLockfile?: boolean | undefined;
  verify: string | null;
  /** How long the install, the lockfile step and verify may each run (the config's verify_timeout). */
  commandTimeoutSeconds?: number | undefined;
  manifests: string[];
  lockfilePath: string | undefined;
  /**
   * A registry version's install scripts, for what pnpm's lockfile newly
   * locks (it does not mark them, npm's does); none: that check is skipped.
   */
  installScripts?: ((name: string, version: string) => Promise<string[]>) | undefined;
  /** npm's --before cutoff: the cooldown; security fixes skip it (`securityBefore`: the age gate only). */
  before: Date | undefined;
  securityBefore: Date | undefined;
  /** The environment of the repository's own commands: the agent's scrubbed one. */
  shellEnv: Record<string, string>;
  /** For npm's steps: the scrubbed one plus the variables .npmrc refers to (registry tokens). */
  npmEnv: Record<string, string>;
  /** The checks' and the agent's network, and the installs'. */
  network: NetworkPolicy;
  setupNetwork: NetworkPolicy;
}

/** The agent that fixes what a bump broke. */
export interface GroupAgent {
  model: () => Model;
  policy: PolicyConfig;
  limits: AgentLimits;
  /** Where the agent's upstream changes come from (tarballs, release notes); none: links only. */
  upstream: UpstreamSource | undefined;
  /** The most checks a bisection may run. */
  maxBisectChecks: number;
}

/** One group's run: the job's parts, the same for every group, and the group's own. */
export interface GroupContext {
  services: DepsServices;
  /** The group's events (prefixed with its name when groups run side by side). */
  events: JobEvents;
  /** The services' signal, or one that never fires. */
  signal: AbortSignal;
  gitEnv: GitEnv;
  target: GroupTarget;
  tools: GroupTools;
  agent: GroupAgent;
  /** The tries whose checks passed in this job, for every group (passed-tries.ts). */
  passed?: PassedTries | undefined;
  /** The lockfile steps that passed in this job, for every group (passed-tries.ts). */
  locked?: PassedLocks | undefined;
  /** Carries the installed tree from group to group (one install per job). */
  warm: WarmInstall | undefined;
  /** The group's branch is already on the remote (an earlier run's). */
  branchExists: boolean;
  /** The job can be cut short and run again: the agent's fix is saved under this ref per group. */
  checkpointRef?: ((group: UpdateGroup) => string) | undefined;
}
