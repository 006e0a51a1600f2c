import { renderDiff, reviewScope } from "../../github/pull-review.js";
import type { PullTarget, TaskContext, TaskPlan, ThreadKind } from "./kind.js";
import { REVIEW_FORMAT } from "./review-output.js";
import { createReviewCommentTool } from "./review-tool.js";

/** A review: read-only, answered with one pull request review (kinds/review-publish.ts). Forks too. */
export const reviewPlanner: ThreadKind["plan"] = (ctx, target) =>
  planReview(ctx, target as PullTarget);

async function planReview(ctx: TaskContext, { repo, pull }: PullTarget): Promise<TaskPlan> {
  const start = await reviewScope(ctx.services.octokit, repo, pull, ctx.services.botLogin);
  if (start.kind === "up_to_date") {
    return {
      done: {
        outcome: "success",
        markdown: `I already reviewed \`${start.sha.slice(0, 7)}\`, the head of this pull request: there is nothing new to review.`,
      },
    };
  }
  const { scope } = start;
  const since = scope.since ? ` since your last review (commit ${scope.since.slice(0, 7)})` : "";
  const reviewTool = createReviewCommentTool(scope);
  const plan = await ctx.planRequest({
    instruction: [
      `Review the changes of this pull request${since}. Read the diff (attached) and the code around it in the workspace; look for bugs, missing tests, unclear names and risky changes. Do not change any file.`,
      REVIEW_FORMAT,
    ].join("\n\n"),
    attachments: [
      {
        name: "diff",
        note: scope.since
          ? `The changes since commit ${scope.since.slice(0, 7)}, the one you reviewed last.`
          : "The pull request's diff against its base.",
        text: renderDiff(scope.files),
        language: "diff",
      },
    ],
    input: {
      policy: { ...ctx.config.policy, preset: "read-only", allow: [] },
      push: false,
      verify: null,
      setup: [],
      wantPatch: false,
      tools: [reviewTool.tool],
    },
  });
  return {
    ...plan,
    // Nothing is pushed: nothing to resume from.
    input: { ...plan.input, checkpointRef: undefined },
    publish: { kind: "review", repo, pull, scope, tool: reviewTool },
  };
}
