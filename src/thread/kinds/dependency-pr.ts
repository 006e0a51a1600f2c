import { DEPS_FIX_RULES } from "../../deps/fix/rules.js";
import { bareLogin } from "../../github/logins.js";
import { ciFixContext, prepareCiFix } from "./ci-fix.js";
import type { PullTarget, TaskContext, TaskPlan } from "./kind.js";

/**
 * CI failing on another bot's dependency pull request (`tend_bot_prs`):
 * after the same flaky check as any CI fix, the dependency fix-forward on
 * the pull request's own branch. The agent gets the failing logs, what the
 * pull request updates and what changed upstream (read from the branch by
 * deps/pr/steps.ts), verify runs, and the fix is one commit on that branch.
 */

/** Hidden in each attempt's report, so the next job can count them. */
export const DEPENDENCY_FIX_MARKER = "<!-- patchwright dependency-pr-fix -->";

export async function planDependencyPrFix(
  ctx: TaskContext,
  { repo, pull }: PullTarget,
  bot: string,
): Promise<TaskPlan> {
  const maxAttempts = ctx.config.tendBotPrs?.maxAttempts ?? 1;
  const prep = await prepareCiFix({
    ...ciFixContext(ctx, { repo, pull }),
    config: { ciFix: { ...ctx.config.ciFix, maxAttempts } },
    attempts: { marker: DEPENDENCY_FIX_MARKER, setting: "tend_bot_prs.max_attempts" },
  });
  if (prep.kind === "done") return { done: prep };
  const attempt = `Dependency fix attempt ${prep.attempt} of ${prep.maxAttempts}`;
  ctx.status.note(attempt);
  const plan = await ctx.planRequest({
    instruction: [
      `CI fails on this dependency update pull request opened by ${bot} (${prep.failing.join(", ")}).`,
      "Make the repository's own code work with the new versions so the checks pass. The failing jobs' output is attached; what the pull request updates and what changed upstream in those packages follow.",
      "Run the failing command locally to confirm.",
    ].join(" "),
    attachments: prep.attachments,
  });
  return {
    input: {
      ...plan.input,
      extraRules: [plan.input.extraRules, DEPS_FIX_RULES].filter(Boolean).join("\n\n"),
      // One fix commit on the bot's branch, whatever the repository's squash setting.
      squash: true,
    },
    work: { kind: "dependency_pr", bot },
    publish: plan.publish,
    frame: {
      before: `**${attempt}** on ${bot}'s pull request (failure fingerprint \`${prep.fingerprint}\`)`,
      after: [handBackNote(bot), DEPENDENCY_FIX_MARKER].join("\n\n"),
    },
  };
}

/** How the bot's own upkeep comes back, once patchwright pushed to its branch. */
export function handBackNote(bot: string): string {
  const name = bareLogin(bot);
  const handBack =
    name === "dependabot"
      ? "comment `@dependabot recreate` (Dependabot rebuilds the branch from scratch, without this fix)"
      : name === "renovate"
        ? "tick the rebase/retry box in this pull request's description (Renovate rebuilds the branch, without this fix)"
        : `ask ${bot} to recreate the pull request (that drops this fix)`;
  return [
    `${bot} stops rebasing a pull request once someone else has pushed to it.`,
    "From here on patchwright keeps this one up to date with its base (it merges the base in and resolves conflicts).",
    `To hand it back to ${bot}, ${handBack}.`,
  ].join(" ");
}
