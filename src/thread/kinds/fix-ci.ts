import { CI_FIX_MARKER, prepareCiFix } from "./ci-fix.js";
import {
  type PullTarget,
  sleepFor,
  type TaskContext,
  type TaskPlan,
  type ThreadKind,
} from "./kind.js";

/** A CI fix: a flaky check is run again first; then the agent, with the failing logs in hand. */
export const fixCi: ThreadKind = {
  headline: () => "Fixing the failing CI",
  pullRequestOnly: { forkRefusal: "fix CI on" },
  plan: (ctx, target) => planCiFix(ctx, target as PullTarget),
};

async function planCiFix(ctx: TaskContext, { repo, pull }: PullTarget): Promise<TaskPlan> {
  const prep = await prepareCiFix({
    octokit: ctx.services.octokit,
    repo,
    pull,
    config: ctx.config,
    botLogin: ctx.services.botLogin,
    step: (text) => ctx.status.step(text),
    clock: ctx.services.clock,
    sleep: ctx.sleep ?? sleepFor,
  });
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
