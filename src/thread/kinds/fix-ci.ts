import { CI_FIX_MARKER, ciFixContext, prepareCiFix } from "./ci-fix.js";
import { planDependencyPrFix } from "./dependency-pr.js";
import type { PullTarget, TaskContext, TaskPlan, ThreadKind } from "./kind.js";

/** A CI fix: a flaky check is run again first; then the agent, with the failing logs in hand. */
export const fixCiPlanner: ThreadKind["plan"] = (ctx, target) =>
  planCiFix(ctx, target as PullTarget);

async function planCiFix(ctx: TaskContext, target: PullTarget): Promise<TaskPlan> {
  const { repo, pull } = target;
  if (ctx.dependencyBot) return planDependencyPrFix(ctx, target, ctx.dependencyBot);
  const prep = await prepareCiFix(ciFixContext(ctx, { repo, pull }));
  if (prep.kind === "done") return { done: prep };
  const attempt = `CI fix attempt ${prep.attempt} of ${prep.maxAttempts}`;
  ctx.status.note(attempt);
  const plan = await ctx.planRequest({
    instruction: `CI fails on this pull request (${prep.failing.join(", ")}). Find the cause in the failing jobs' output (attached) and fix it in the code, so the checks pass. Fix the cause, not the test, unless the test itself is wrong; do not disable or skip checks. Run the failing command locally when you can.`,
    attachments: prep.attachments,
  });
  return {
    ...plan,
    frame: {
      before: `**${attempt}** (failure fingerprint \`${prep.fingerprint}\`)`,
      after: CI_FIX_MARKER,
    },
  };
}
