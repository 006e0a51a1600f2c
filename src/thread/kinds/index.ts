import type { JobRequest, JobTask } from "../../requests/request.js";
import { fixCi } from "./fix-ci.js";
import { goKind } from "./go.js";
import type { TaskContext, TaskPlan, ThreadKind } from "./kind.js";
import { planFirst, planKind } from "./plan-task.js";
import { review } from "./review.js";
import { updateBranch } from "./update-branch.js";

/**
 * Every kind of thread job, one row each: a request to the agent, and the
 * jobs that keep a pull request mergeable (a review, a CI fix, bringing the
 * branch up to date). A new kind is a file beside this one and a row here
 * (plus its trigger in requests/, and its JobTask).
 */
export const THREAD_KINDS: Record<JobTask, ThreadKind> = {
  agent: {
    headline: (request) => `Working on @${request.requester.login}'s request`,
    // plan_first: planned by a read-only run first (kinds/plan-task.ts).
    plan: (ctx) => (ctx.config.planFirst.mode === "never" ? ctx.planRequest() : planFirst(ctx)),
  },
  review,
  fix_ci: fixCi,
  update_branch: updateBranch,
  plan: planKind,
  go: goKind,
};

export function headlineOf(task: JobTask, request: JobRequest): string {
  return THREAD_KINDS[task].headline(request);
}

export async function planTask(task: JobTask, ctx: TaskContext): Promise<TaskPlan> {
  const kind = THREAD_KINDS[task];
  if (!kind.pullRequestOnly) return kind.plan(ctx);
  const pr = await ctx.pullRequest();
  if (!pr) return { done: { markdown: "This works on pull requests only.", outcome: "failure" } };
  const refusal = kind.pullRequestOnly.forkRefusal;
  if (pr.isFork && refusal) {
    return {
      done: {
        outcome: "failure",
        markdown: `I can't ${refusal} a pull request from a fork: its branch is in the fork, where I can't push. Ask its author to allow edits by maintainers, or to do it there.`,
      },
    };
  }
  return kind.plan(ctx, {
    repo: { owner: ctx.request.repo.owner, repo: ctx.request.repo.name },
    pull: { number: ctx.request.target.number, headSha: pr.headSha },
    pr,
  });
}
