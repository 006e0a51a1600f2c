import type { PullTarget, TaskContext, TaskPlan, ThreadKind } from "./kind.js";

/**
 * Bringing a branch up to date with its base, conflicts resolved by the
 * agent. A rebase is force-pushed: only ever on the bot's own branches;
 * others get a merge.
 */
export const updateBranchPlanner: ThreadKind["plan"] = (ctx, target) => {
  const { pr } = target as PullTarget;
  const ownBranch = pr.headRef.startsWith(ctx.config.branchPrefix);
  return planUpdate(ctx, pr.baseRef, ownBranch ? ctx.config.updateStrategy : "merge");
};

async function planUpdate(
  ctx: TaskContext,
  baseRef: string,
  strategy: "merge" | "rebase",
): Promise<TaskPlan> {
  const plan = await ctx.planRequest({
    instruction: `Bring this pull request's branch up to date with ${baseRef}. The job merges ${baseRef} in (or rebases onto it); resolve the conflicts it lists below.`,
    input: { baseBranch: baseRef },
  });
  return {
    ...plan,
    input: { ...plan.input, checkpointRef: undefined },
    work: { kind: "update_branch", strategy },
    publish: { kind: "branch_update", baseRef },
  };
}
