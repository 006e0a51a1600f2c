import { buildShellEnv } from "../agent/tools/shell-env.js";
import { errorMessage } from "../error-message.js";
import type { CreatedCommit } from "../git/commits.js";
import { type GitEnv, runGit } from "../git/git-client.js";
import type { Workspace } from "../git/workspace.js";
import { pushJobCommits } from "../kernel/push-work.js";
import { prepareJobWorkspace } from "../kernel/repository.js";
import { runVerify } from "../kernel/run-command.js";
import { openJobRoom } from "../kernel/worksite.js";
import type { JobSandboxes } from "../kernel/worksite-sandboxes.js";
import type { GitJobDeps, GitJobInput, GitJobResult } from "./change.js";
import {
  type Git,
  type Integration,
  integrateBase,
  succeeds,
  type UpdateStrategy,
} from "./integrate-base.js";

/**
 * Brings a pull request's branch up to date with its base (the job's own
 * runner, see JobPlan.run): the base merged in or rebased onto, conflicts
 * resolved by the agent (integrate-base.ts), then verify, and push: a merge
 * is a fast-forward of the branch, a rebase is forced with a lease on the
 * tip the job started from, and only ever to the job's own branch. A
 * conflict left unresolved pushes nothing.
 */

export type { UpdateStrategy };

export interface UpdateBranchResult extends GitJobResult {
  /** What the update found and did. */
  update?: Integration;
}

export function updateBranchRunner(strategy: UpdateStrategy) {
  return (deps: GitJobDeps, input: GitJobInput) => updateBranch(deps, input, strategy);
}

async function updateBranch(
  deps: GitJobDeps,
  input: GitJobInput,
  strategy: UpdateStrategy,
): Promise<UpdateBranchResult> {
  const started = deps.clock.now();
  const step = deps.onStep ?? (() => {});
  const baseBranch = input.baseBranch ?? input.defaultBranch ?? "";
  const branch = input.existingBranch ?? "";
  const result: UpdateBranchResult = {
    branch,
    baseBranch,
    changes: [],
    commits: [],
    commands: [],
    durationMs: 0,
  };
  const finish = () => ({ ...result, durationMs: deps.clock.now() - started });
  if (!branch || !baseBranch) {
    result.error = {
      stage: "workspace",
      message: "updating a branch needs the branch and its base",
    };
    return finish();
  }
  step("Preparing the workspace");
  const opened = await openJobRoom({
    launcher: deps.sandbox,
    env: deps.envSource,
    networks: input,
    prepare: () => prepareJobWorkspace(deps, input, baseBranch, branch),
  });
  if ("error" in opened) {
    result.error = opened.error;
    return finish();
  }
  const { workspace, sandboxes } = opened.room;
  // Commit messages are never edited: git's own for a rebase, ours for a merge.
  const git: Git = (args, env = deps.envSource) =>
    runGit(workspace.dir, args, { env, config: [["core.editor", "true"]] });
  const update: Integration = { strategy, baseSha: workspace.baseSha, conflicted: [] };
  result.update = update;
  try {
    if (
      await succeeds(() =>
        git(["merge-base", "--is-ancestor", workspace.baseSha, workspace.startSha]),
      )
    ) {
      update.upToDate = true;
      return finish();
    }
    const integrated = await integrateBase({
      deps,
      input,
      strategy,
      dir: workspace.dir,
      sandboxes,
      git,
      commitEnv: identityEnv(deps.envSource, input.identity),
      base: workspace.baseSha,
      start: workspace.startSha,
      baseBranch,
      branch,
      result,
      update,
      step,
    });
    if (!integrated) return finish();
    const head = (await git(["rev-parse", "HEAD"])).trim();
    result.commits = await commitsBetween(git, workspace.baseSha, head, strategy);
    await verifyAndPush({ deps, input, strategy, workspace, sandboxes, result, baseBranch, step });
    return finish();
  } catch (error) {
    result.error ??= { stage: "agent", message: errorMessage(error) };
    return finish();
  } finally {
    await opened.room.close();
  }
}

function identityEnv(env: GitEnv, identity: GitJobInput["identity"]): GitEnv {
  return {
    ...env,
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
  };
}

async function verifyAndPush(ctx: {
  deps: GitJobDeps;
  input: GitJobInput;
  strategy: UpdateStrategy;
  workspace: Workspace;
  sandboxes: JobSandboxes;
  result: GitJobResult;
  baseBranch: string;
  step(text: string): void;
}): Promise<void> {
  const { deps, input, strategy, workspace, result } = ctx;
  const env = deps.envSource;
  const signal = deps.signal ?? new AbortController().signal;
  if (input.verify && !signal.aborted) {
    ctx.step(`Verifying: ${input.verify}`);
    result.verify = await runVerify({
      command: input.verify,
      cwd: workspace.dir,
      env: buildShellEnv(env),
      sandbox: ctx.sandboxes.agent,
      signal,
      clock: deps.clock,
      timeoutSeconds: input.verifyTimeoutSeconds,
    });
  }
  if (!input.push) return;
  ctx.step(`Pushing ${workspace.branch}`);
  // A rebase rewrote the branch: forced, but only over the tip this job started from.
  const lease = strategy === "rebase" ? workspace.startSha : undefined;
  const { pushed, commits } = await pushJobCommits(
    {
      workspace,
      branchPrefix: input.branchPrefix,
      prHead: workspace.branch,
      defaultBranch: input.defaultBranch ?? ctx.baseBranch,
      env,
      secrets: deps.secrets,
      token: input.token,
      retry: deps.gitRetry,
      via: input.pushVia,
      // A rebase's commits start on the base; a merge's on the branch's old tip.
      onto: lease ? workspace.baseSha : workspace.startSha,
      exists: true,
      ...(lease ? { forceWithLease: lease } : {}),
      workflowsLocked: input.workflowsLocked,
      // What the base brought in is not the job's change: only the resolution is checked.
      workflowsAlsoFrom: [lease ? workspace.startSha : workspace.baseSha],
    },
    result.commits,
  );
  Object.assign(result, pushed);
  result.commits = commits;
}

async function commitsBetween(
  git: Git,
  base: string,
  to: string,
  strategy: UpdateStrategy,
): Promise<CreatedCommit[]> {
  // A merge: the merge commit itself; a rebase: every replayed commit.
  const range = strategy === "merge" ? ["-1", to] : [`${base}..${to}`];
  const out = await git(["log", "--format=%H%x00%s", ...range]).catch(() => "");
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [sha = "", subject = ""] = line.split("\0");
      return { sha, subject, files: [], turns: [] };
    });
}
