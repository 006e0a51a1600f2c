import { CI_FIX_MARKER, ciFixContext, prepareCiFix } from "./ci-fix.js";
import { planDependencyPrFix } from "./dependency-pr.js";
import type { PullTarget, TaskContext, TaskPlan, ThreadKind } from "./kind.js";
import { isTendedBot } from "./tended.js";

/** A CI fix: a flaky check is run again first; then the agent, with the failing logs in hand. */
export const fixCi: ThreadKind = {
  headline: () => "Fixing the failing CI",
  pullRequestOnly: { forkRefusal: "fix CI on" },
  plan: (ctx, target) => planCiFix(ctx, target as PullTarget),
};

async function planCiFix(ctx: TaskContext, target: PullTarget): Promise<TaskPlan> {
  const { repo, pull } = target;
  const bot = await dependencyBotOf(ctx, target);
  if (bot) return planDependencyPrFix(ctx, target, bot);
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

/**
 * The dependency bot that opened the pull request, when `tend_bot_prs`
 * lists it (a CI failure the event tended, see tended.ts); else undefined.
 * A writer's `@agent fix CI` on such a pull request is a CI fix like any other.
 */
async function dependencyBotOf(ctx: TaskContext, { repo, pull }: PullTarget) {
  if (!ctx.config.tendBotPrs || ctx.request.source.kind !== "event") return undefined;
  const { data } = await ctx.services.octokit.rest.pulls.get({ ...repo, pull_number: pull.number });
  const author = data.user?.login ?? "";
  return isTendedBot(ctx.config, author) ? author : undefined;
}
