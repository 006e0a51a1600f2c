import { createCommandLog } from "../agent/command-log.js";
import type { AgentEvent } from "../agent/events.js";
import { FileHistory } from "../agent/file-history.js";
import { createRedactor } from "../agent/redact.js";
import { runAgentSession } from "../agent/session.js";
import { defaultTools } from "../agent/tools/index.js";
import { buildShellEnv } from "../agent/tools/shell-env.js";
import { errorMessage } from "../error-message.js";
import { branchName } from "../git/branch.js";
import { deleteCheckpoint, pushCheckpoint } from "../git/checkpoint-ref.js";
import { captureWorkspaceTree } from "../git/exact-tree.js";
import { runGit } from "../git/git-client.js";
import { workspacePatch } from "../git/patch.js";
import type { PushTarget } from "../git/push-context.js";
import { remoteDefaultBranch } from "../git/remote-head.js";
import { plural } from "../github/markdown.js";
import { jobMcp } from "../kernel/mcp-servers.js";
import { pushJobCommits } from "../kernel/push-work.js";
import { prepareJobWorkspace } from "../kernel/repository.js";
import { runVerify } from "../kernel/run-command.js";
import { openJobRoom } from "../kernel/worksite.js";
import type { GitJobDeps, GitJobInput, GitJobResult } from "./change.js";
import { type CheckpointChain, createCheckpointer } from "./checkpoints.js";
import { commitWork } from "./commit-work.js";
import { resumeFromCheckpoint, resumeNote } from "./resume.js";

/**
 * One job without the GitHub API: workspace -> setup -> agent -> commits ->
 * verify -> push. The CLI's `run --repo` calls it directly; the App and the
 * Action wrap it with the GitHub parts (trigger, status, PR).
 */
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
      const resumed = await resumeFromCheckpoint({
        ...checkpoints.target,
        base: workspace.baseSha,
      });
      if (resumed) {
        result.resumed = resumed;
        step(`Resuming from an earlier run's ${plural(resumed.commits.length, "commit")}`);
      }
    } catch (error) {
      warn(`could not read the job's checkpoint, starting over: ${errorMessage(error)}`);
    }
  }

  try {
    for (const command of input.setup) {
      const label = `Running setup: \`${command}\``;
      step(label);
      const outcome = await runVerify({
        command,
        cwd: workspace.dir,
        env: shellEnv,
        sandbox: sandboxes.setup,
        signal,
        clock: deps.clock,
        timeoutSeconds: input.verifyTimeoutSeconds,
        networkSetting: "setup_network",
        onNetworkTrouble: (note) => step(label, note),
      });
      if (!outcome.passed) {
        const trouble = outcome.networkTrouble ? `\n${outcome.networkTrouble}` : "";
        result.error = {
          stage: "setup",
          message: signal.aborted
            ? `the job was stopped during setup command \`${command}\``
            : `setup command \`${command}\` failed (exit ${outcome.exit})${trouble}\n\nIts last output:\n${outcome.outputTail}`,
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
      ...(input.tools?.length ? { tools: [...defaultTools(), ...input.tools] } : {}),
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
      const label = `Verifying: \`${input.verify}\``;
      step(label);
      result.verify = await runVerify({
        command: input.verify,
        cwd: workspace.dir,
        env: shellEnv,
        sandbox: sandboxes.agent,
        signal,
        clock: deps.clock,
        timeoutSeconds: input.verifyTimeoutSeconds,
        onNetworkTrouble: (note) => step(label, note),
      });
    }

    if (input.push && result.commits.length > 0) {
      step(`Pushing \`${branch}\``);
      const { pushed, commits } = await pushJobCommits(
        {
          workspace,
          branchPrefix: input.branchPrefix,
          prHead: input.existingBranch,
          defaultBranch: input.defaultBranch ?? baseBranch,
          env: gitEnv,
          secrets: deps.secrets,
          token: input.token,
          retry: deps.gitRetry,
          via: input.pushVia,
          onto: workspace.startSha,
          exists: input.existingBranch !== undefined,
          workflowsLocked: input.workflowsLocked,
        },
        result.commits,
      );
      Object.assign(result, pushed);
      result.commits = commits;
      // The work is on its branch; the checkpoint goes once it is published
      // too (pipeline.ts). Deleted from the mirror: the worktree is gone by then.
      if (checkpoints && result.push) {
        const { mirrorDir: _worktreeOf, ...target } = checkpoints.target;
        result.dropCheckpoint = () => deleteCheckpoint({ ...target, dir: workspace.mirrorDir });
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
