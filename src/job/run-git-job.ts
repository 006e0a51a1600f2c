import { type CommandRecord, createCommandLog } from "../agent/command-log.js";
import type { AgentEvent, AgentEventListener } from "../agent/events.js";
import type { NetChange } from "../agent/file-history.js";
import { FileHistory } from "../agent/file-history.js";
import type { AgentLimits, AgentResult } from "../agent/loop.js";
import type { McpServersConfig } from "../agent/mcp/config.js";
import type { Model } from "../agent/model.js";
import type { PolicyConfig } from "../agent/policy.js";
import type { InstructionFile } from "../agent/prompt.js";
import { createRedactor } from "../agent/redact.js";
import { runAgentSession } from "../agent/session.js";
import { buildShellEnv } from "../agent/tools/shell-env.js";
import { errorMessage } from "../error-message.js";
import { branchName } from "../git/branch.js";
import { deleteCheckpoint, pushCheckpoint } from "../git/checkpoint-ref.js";
import type { CoAuthor } from "../git/commit-message.js";
import type { CreatedCommit, Identity } from "../git/commits.js";
import { captureWorkspaceTree } from "../git/exact-tree.js";
import { runGit } from "../git/git-client.js";
import { partialFetchFor } from "../git/mirror.js";
import { workspacePatch } from "../git/patch.js";
import type { PushResult } from "../git/push.js";
import type { PushTarget } from "../git/push-context.js";
import { remoteDefaultBranch } from "../git/remote-head.js";
import type { RetryOptions } from "../git/retry.js";
import type { KnownSecret } from "../git/secret-scan.js";
import {
  type FetchedMirror,
  fetchMirror,
  type MirrorOptions,
  prepareWorkspace,
} from "../git/workspace.js";
import type { NetworkPolicy } from "../sandbox/network.js";
import type { SandboxLauncher } from "../sandbox/sandbox.js";
import { type CheckpointChain, createCheckpointer } from "./checkpoints.js";
import { commitWork } from "./commit-work.js";
import { jobMcp } from "./job-mcp.js";
import { openJobRoom } from "./job-room.js";
import { type CommitPusher, pushWork, pushWorkVia } from "./push-work.js";
import { resumeFromCheckpoint, resumeNote } from "./resume.js";
import { runVerify, type VerifyResult } from "./verify.js";

/**
 * One job without the GitHub API: workspace -> setup -> agent -> commits ->
 * verify -> push. The CLI's `run --repo` calls it directly; the App and the
 * Action wrap it with the GitHub parts (trigger, status, PR).
 */
export interface GitJobInput {
  cloneUrl: string;
  /** Used only by the git commands that need it; never reaches the agent. */
  token?: string | undefined;
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
  /** The repository's `mcp_servers:` (see job-mcp.ts). */
  mcpServers?: McpServersConfig | undefined;
}

export interface GitJobDeps {
  cacheDir: string;
  /** Every command the job runs from the repository or the agent runs in one of its sandboxes. */
  sandbox: SandboxLauncher;
  /** Every secret the process holds: none may leave in a commit (see secret-scan.ts). */
  secrets: readonly KnownSecret[];
  /** The process environment: git gets what it needs, the agent's shell only an allowlist. */
  envSource: Record<string, string | undefined>;
  clock: { now(): number };
  signal?: AbortSignal | undefined;
  onEvent?: AgentEventListener | undefined;
  /** Job-level progress ("Preparing the workspace", "Verifying"...). */
  onStep?: ((step: string) => void) | undefined;
  /** Something went wrong that does not stop the job (a checkpoint not saved). */
  onWarning?: ((message: string) => void) | undefined;
  /**
   * How fetches, ls-remote and pushes that failed on the transport (server
   * down, 5xx, reset) are retried; default 4 tries over about 10 s.
   */
  gitRetry?: RetryOptions | undefined;
  /**
   * For a job that may be cut short (the App's): every turn that changed
   * files is committed and saved under `ref` on the remote as the agent
   * goes, the saved commits become the branch, and a job that finds a
   * checkpoint there resumes from it (see checkpoints.ts). Needs `push`.
   */
  checkpoints?: CheckpointSettings | undefined;
}

export interface CheckpointSettings {
  /** refs/patchwright/wip/<job id> (checkpointRef). */
  ref: string;
  /** Told each checkpoint once it is on the remote (a job record keeps it). */
  onSaved?: ((sha: string) => Promise<void> | void) | undefined;
}

type RepositoryInput = Pick<GitJobInput, "cloneUrl" | "token" | "repoSizeKb">;
type MirrorDeps = Pick<GitJobDeps, "cacheDir" | "envSource" | "signal" | "gitRetry">;

export function mirrorOptions(deps: MirrorDeps, input: RepositoryInput): MirrorOptions {
  return {
    cloneUrl: input.cloneUrl,
    cacheDir: deps.cacheDir,
    env: deps.envSource,
    partial: partialFetchFor(input.repoSizeKb),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(input.token ? { token: input.token } : {}),
    ...(deps.gitRetry ? { retry: deps.gitRetry } : {}),
  };
}

/** The job's worktree: on its existing branch (a PR head), or on a new one from the base. */
export function prepareJobWorkspace(
  deps: MirrorDeps,
  input: GitJobInput,
  baseBranch: string,
  branch: Parameters<typeof prepareWorkspace>[0]["branch"],
) {
  return prepareWorkspace({
    ...mirrorOptions(deps, input),
    baseBranch,
    branch,
    createBranch: input.existingBranch === undefined,
    // A parked, scrubbed worktree from an earlier job only needs the files
    // that differ checked out: the fast path for repeat jobs on a repository.
    keepIdle: 1,
    ...(input.fetched ? { fetched: input.fetched } : {}),
  });
}

/**
 * Starts fetching the repository's mirror now, so that a job started soon
 * after (pass the result as `fetched`) finds it ready: callers overlap the
 * fetch with their GitHub API calls. Never rejects; when it fails, the job
 * fetches itself and reports what went wrong.
 */
export function prefetchRepository(
  deps: MirrorDeps,
  input: RepositoryInput,
): Promise<FetchedMirror | null> {
  return fetchMirror(mirrorOptions(deps, input)).catch(() => null);
}

export type JobStage = "workspace" | "sandbox" | "setup" | "agent" | "verify" | "push";

export interface GitJobResult {
  branch: string;
  baseBranch: string;
  agent?: AgentResult;
  changes: NetChange[];
  commits: CreatedCommit[];
  verify?: VerifyResult;
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
  durationMs: number;
}

export async function runGitJob(deps: GitJobDeps, input: GitJobInput): Promise<GitJobResult> {
  const started = deps.clock.now();
  const step = deps.onStep ?? (() => {});
  const gitEnv = deps.envSource;
  const shellEnv = buildShellEnv(deps.envSource);
  const auth = input.token ? { token: input.token } : {};
  const retry = deps.gitRetry ? { retry: deps.gitRetry } : {};
  const signal = deps.signal ?? new AbortController().signal;

  step("Preparing the workspace");
  let baseBranch = input.baseBranch ?? "";
  let branch = input.existingBranch ?? "";
  const result: GitJobResult = {
    branch,
    baseBranch,
    changes: [],
    commits: [],
    commands: [],
    durationMs: 0,
  };
  const finish = (): GitJobResult => ({ ...result, durationMs: deps.clock.now() - started });

  const opened = await openJobRoom({
    launcher: deps.sandbox,
    env: gitEnv,
    networks: input,
    prepare: async () => {
      baseBranch ||= await remoteDefaultBranch({
        url: input.cloneUrl,
        env: gitEnv,
        ...auth,
        ...retry,
      });
      result.baseBranch = baseBranch;
      // A new branch is named from the mirror's refs after the fetch: no extra round trip.
      return prepareJobWorkspace(
        deps,
        input,
        baseBranch,
        branch ||
          ((isTaken) =>
            branchName({
              prefix: input.branchPrefix,
              title: input.branchTitle,
              ...(input.issueNumber !== undefined ? { issueNumber: input.issueNumber } : {}),
              existing: isTaken,
            })),
      );
    },
  });
  if ("error" in opened) {
    result.error = opened.error;
    return finish();
  }
  const { workspace, sandboxes } = opened.room;
  branch = workspace.branch;
  result.branch = branch;
  const warn = deps.onWarning ?? (() => {});
  // Where checkpoints go: the job's remote, with its token, never cut short
  // by the job's own signal (a checkpoint is what a shutdown saves).
  const checkpoints =
    deps.checkpoints && input.push
      ? {
          settings: deps.checkpoints,
          target: {
            dir: workspace.dir,
            remoteUrl: workspace.remoteUrl,
            mirrorDir: workspace.mirrorDir,
            env: gitEnv,
            identity: input.identity,
            ...auth,
            ...retry,
            ref: deps.checkpoints.ref,
          } satisfies PushTarget & { ref: string },
        }
      : undefined;
  if (checkpoints) {
    try {
      const resumed = await resumeFromCheckpoint(checkpoints.target);
      if (resumed) {
        result.resumed = resumed;
        step(`Resuming from an earlier run's ${resumed.commits.length} commit(s)`);
      }
    } catch (error) {
      warn(`could not read the job's checkpoint, starting over: ${errorMessage(error)}`);
    }
  }

  try {
    for (const command of input.setup) {
      step(`Running setup: \`${command}\``);
      const outcome = await runVerify({
        command,
        cwd: workspace.dir,
        env: shellEnv,
        sandbox: sandboxes.setup,
        signal,
        clock: deps.clock,
        timeoutSeconds: input.verifyTimeoutSeconds,
      });
      if (!outcome.passed) {
        result.error = {
          stage: "setup",
          message: signal.aborted
            ? `the job was stopped during setup command \`${command}\``
            : `setup command \`${command}\` failed (exit ${outcome.exit}):\n${outcome.outputTail}`,
        };
        return finish();
      }
    }

    step("Running the agent");
    // The workspace as the agent finds it, hashed from scratch beside the
    // first model request (no tool runs before it is taken): what the commits
    // are checked against before anything is pushed.
    const startTree = captureWorkspaceTree(workspace.dir, gitEnv);
    const commandLog = createCommandLog();
    const head = await headOf(workspace.dir, gitEnv);
    const history = new FileHistory();
    const checkpointer = checkpoints
      ? createCheckpointer({
          dir: workspace.dir,
          env: gitEnv,
          start: head,
          history,
          identity: input.identity,
          coAuthor: input.coAuthor,
          requestUrl: input.requestUrl,
          redact: createRedactor(deps.secrets.map((secret) => secret.value)),
          save: async (sha) => {
            await pushCheckpoint({ ...checkpoints.target, sha, secrets: deps.secrets });
            await checkpoints.settings.onSaved?.(sha);
          },
          onError: (error) => warn(`a checkpoint was not saved: ${errorMessage(error)}`),
        })
      : undefined;
    const onEvent = (event: AgentEvent) => {
      commandLog.listener(event);
      checkpointer?.listener(event);
      deps.onEvent?.(event);
    };
    const session = await runAgentSession({
      root: workspace.dir,
      task: result.resumed ? `${input.task}\n\n${resumeNote(result.resumed)}` : input.task,
      history,
      model: input.model,
      policy: input.policy,
      limits: input.limits,
      envSource: deps.envSource,
      sandbox: sandboxes.agent,
      clock: deps.clock,
      signal,
      onEvent,
      extraRules: input.extraRules,
      instructions: input.instructions,
      secrets: deps.secrets.map((secret) => secret.value),
      beforeTools: startTree,
      ...(input.mcpServers && Object.keys(input.mcpServers).length > 0
        ? {
            mcp: await jobMcp({
              servers: input.mcpServers,
              env: gitEnv,
              launcher: deps.sandbox,
              dir: workspace.dir,
            }),
          }
        : {}),
    });
    const endTree = await captureWorkspaceTree(workspace.dir, gitEnv);
    const chain = await checkpointer?.finish();
    result.agent = session.result;
    result.commands = commandLog.commands();
    result.changes = session.history.netChanges();
    result.commits = [...(result.resumed?.commits ?? [])];
    if (session.result.stopReason === "error") {
      result.error = { stage: "agent", message: session.result.error ?? "the agent failed" };
    }
    // Cut short by a shutdown: the checkpoints hold the work; the next run
    // resumes from them, verifies and pushes.
    if (chain && signal.aborted) {
      result.interrupted = { checkpoint: chain.saved ? chain.tip : result.resumed?.from };
      return finish();
    }

    // The agent may have committed in its shell (where git may write): its
    // commits are built on, and the checkpoints, made on the old HEAD, are not used.
    const after = await headOf(workspace.dir, gitEnv);
    const trees = { start: await startTree, end: endTree };
    const nothingNew = session.history.turns().length === 0 && trees.start === trees.end;
    if (nothingNew && !result.resumed && after === head) return finish();

    // Partial work is committed and pushed even when the agent stopped early.
    step("Committing");
    const work = await commitWork({
      dir: workspace.dir,
      env: gitEnv,
      session,
      trees,
      head: after,
      checkpoints: usableChain(chain, head, after),
      redact: createRedactor(deps.secrets.map((secret) => secret.value)),
      identity: input.identity,
      squash: input.squash,
      coAuthor: input.coAuthor,
      requestUrl: input.requestUrl,
    });
    result.commits.push(...work.commits);
    if (work.drift) result.drift = work.drift;
    if (input.wantPatch)
      result.patch = await workspacePatch(workspace.dir, workspace.startSha, gitEnv);

    // Stopped (Ctrl+C, a deploy): the work so far is committed and pushed, but
    // not checked, since a check cut short says nothing.
    if (input.verify && !result.error && !signal.aborted) {
      step(`Verifying: \`${input.verify}\``);
      result.verify = await runVerify({
        command: input.verify,
        cwd: workspace.dir,
        env: shellEnv,
        sandbox: sandboxes.agent,
        signal,
        clock: deps.clock,
        timeoutSeconds: input.verifyTimeoutSeconds,
      });
    }

    if (input.push && result.commits.length > 0) {
      step(`Pushing \`${branch}\``);
      if (input.pushVia) {
        const { created, ...pushed } = await pushWorkVia(
          input.pushVia,
          {
            dir: workspace.dir,
            env: gitEnv,
            branch,
            onto: workspace.startSha,
            exists: input.existingBranch !== undefined,
            secrets: deps.secrets,
          },
          {
            branchPrefix: input.branchPrefix,
            prHead: input.existingBranch,
            defaultBranch: input.defaultBranch ?? baseBranch,
          },
        );
        Object.assign(result, pushed);
        result.commits = result.commits.map((c) => ({ ...c, sha: created?.get(c.sha) ?? c.sha }));
      } else
        Object.assign(
          result,
          await pushWork({
            workspace,
            branchPrefix: input.branchPrefix,
            prHead: input.existingBranch,
            defaultBranch: input.defaultBranch ?? baseBranch,
            env: gitEnv,
            secrets: deps.secrets,
            token: input.token,
            retry: deps.gitRetry,
          }),
        );
      // The work is on its branch: the checkpoints are not needed any more.
      if (checkpoints && result.push) {
        await deleteCheckpoint(checkpoints.target).catch((error: unknown) =>
          warn(`could not delete the checkpoint ref: ${errorMessage(error)}`),
        );
      }
    }
    return finish();
  } catch (error) {
    result.error ??= { stage: "agent", message: errorMessage(error) };
    return finish();
  } finally {
    await opened.room.close();
  }
}

async function headOf(dir: string, env: GitJobDeps["envSource"]): Promise<string> {
  return (await runGit(dir, ["rev-parse", "HEAD"], { env })).trim();
}

/** The checkpoints become the branch only when they are all there and HEAD is where they start. */
function usableChain(
  chain: CheckpointChain | undefined,
  head: string,
  after: string,
): CheckpointChain | undefined {
  return chain?.complete && after === head && chain.commits.length > 0 ? chain : undefined;
}
