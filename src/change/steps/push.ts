import { deleteCheckpoint } from "../../git/commit/checkpoint-ref.js";
import type { Workspace } from "../../git/workspace/workspace.js";
import { type JobPushOptions, pushJobCommits } from "../../kernel/push-work.js";
import { type ChangeContext, type ChangeState, type ChangeStep, siteOf } from "../context.js";

/** How a kind's push differs: which branch it may push beside its prefix, and how. */
type PushShape = Pick<
  JobPushOptions,
  "prHead" | "onto" | "exists" | "forceWithLease" | "workflowsAlsoFrom"
>;

/**
 * The commits go to the job's branch (pushWork keeps them somewhere
 * whatever the server does). Once they are on it, the checkpoint may go
 * too, but only after the work is published (kernel/sequence.ts): a job
 * that dies in between still finds its work.
 */
export function pushStep(
  shape: (workspace: Workspace, ctx: ChangeContext) => PushShape,
): ChangeStep {
  return {
    stage: "push",
    async run(state, ctx) {
      const { input } = ctx;
      if (!input.push || state.result.commits.length === 0) return state;
      const { workspace } = siteOf(state);
      ctx.events.step(`Pushing \`${workspace.branch}\``);
      const { pushed, commits } = await pushJobCommits(
        {
          workspace,
          branchPrefix: input.branchPrefix,
          defaultBranch: input.defaultBranch ?? state.result.baseBranch,
          env: ctx.gitEnv,
          secrets: ctx.services.secrets,
          token: input.token,
          retry: ctx.services.gitRetry,
          via: input.pushVia,
          workflowsLocked: input.workflowsLocked,
          ...shape(workspace, ctx),
        },
        state.result.commits,
      );
      const result = { ...state.result, ...pushed, commits };
      return {
        ...state,
        result: { ...result, ...dropper(state, workspace, result.push !== undefined) },
      };
    },
  };
}

/** The agent's change: a new branch from the base, or more commits on a pull request's head. */
export const push = pushStep((workspace, ctx) => ({
  prHead: ctx.input.existingBranch,
  onto: workspace.startSha,
  exists: ctx.input.existingBranch !== undefined,
}));

function dropper(state: ChangeState, workspace: Workspace, pushed: boolean) {
  const target = state.checkpoints;
  if (!target || !pushed) return {};
  // Run from the mirror (no worktree to check it against): the worktree is gone by then.
  const { mirrorDir: _, ...remote } = target;
  return { dropCheckpoint: () => deleteCheckpoint({ ...remote, dir: workspace.mirrorDir }) };
}
