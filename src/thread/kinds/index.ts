import { loadOnFirstCall } from "../../load-on-first-call.js";
import type { JobRequest, JobTask } from "../../requests/request.js";
import type { TaskContext, TaskPlan, ThreadKind } from "./kind.js";

type Planners = typeof import("./planners.js");

/** A kind's planner, from kinds/planners.ts, loaded at its first plan. */
function planner(pick: (planners: Planners) => ThreadKind["plan"]): ThreadKind["plan"] {
  return loadOnFirstCall(() => import("./planners.js").then(pick));
}

const planFirst = planner((planners) => planners.planFirst);

/**
 * Every kind of thread job, one row each: a request to the agent, and the
 * jobs that keep a pull request mergeable (a review, a CI fix, bringing the
 * branch up to date). A new kind is a planner in a file beside this one
 * (exported through planners.ts) and a row here (plus its trigger in
 * requests/, and its JobTask). The rows hold what a job's start needs (the
 * tracking comment's headline, the pull-request rule); the planning loads
 * when a job plans that kind (18 kB out of the Action's start; valgrind's
 * count to an issue comment's first model request: 528-530M -> 525-528M
 * instructions with a warm compile cache, 729-731M -> 725-726M with a cold one).
 */
export const THREAD_KINDS: Record<JobTask, ThreadKind> = {
  agent: {
    headline: (request) => `Working on @${request.requester.login}'s request`,
    // plan_first: planned by a read-only run first (kinds/plan-task.ts).
    plan: (ctx) => (ctx.config.planFirst.mode === "never" ? ctx.planRequest() : planFirst(ctx)),
  },
  review: {
    headline: () => "Reviewing this pull request",
    pullRequestOnly: {},
    plan: planner((planners) => planners.reviewPlanner),
  },
  fix_ci: {
    headline: () => "Fixing the failing CI",
    pullRequestOnly: { forkRefusal: "fix CI on" },
    plan: planner((planners) => planners.fixCiPlanner),
  },
  update_branch: {
    headline: () => "Bringing this branch up to date with its base",
    pullRequestOnly: { forkRefusal: "update" },
    plan: planner((planners) => planners.updateBranchPlanner),
  },
  plan: {
    headline: (request) => `Planning @${request.requester.login}'s request (reading only)`,
    plan: planner((planners) => planners.planPlanner),
  },
  go: {
    headline: (request) => `Carrying out the plan: @${request.requester.login} said go`,
    plan: planner((planners) => planners.goPlanner),
  },
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
