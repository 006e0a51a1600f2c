import type { RepoConfig } from "../../config/schema.js";
import { renderDiff, reviewScope } from "../../github/pull-review.js";
import type { StatusReporter } from "../../github/status.js";
import type { JobRequest, JobTask } from "../../requests/request.js";
import type { DonePlan, PlanKind, ThreadPlan } from "../plan.js";
import type { ThreadServices } from "../services.js";
import { CI_FIX_MARKER, prepareCiFix } from "./ci-fix.js";
import { REVIEW_FORMAT } from "./review-output.js";
import { createReviewCommentTool } from "./review-tool.js";

/**
 * The jobs that keep a pull request mergeable, as plans of the one
 * pipeline: a review (read-only, answered with one PR review), a CI fix
 * (flaky check first, then the agent with the failing logs in hand), and
 * bringing the branch up to date with its base (conflicts resolved by the
 * agent). Each reuses the request's plan and changes what it needs.
 */

export const HEADLINES: Record<JobTask, (request: JobRequest) => string> = {
  agent: (request) => `Working on @${request.requester.login}'s request`,
  review: () => "Reviewing this pull request",
  fix_ci: () => "Fixing the failing CI",
  update_branch: () => "Bringing this branch up to date with its base",
};

export type TaskPlan = ThreadPlan | DonePlan;

export interface TaskContext {
  services: ThreadServices;
  request: JobRequest;
  config: RepoConfig;
  status: StatusReporter;
  planRequest: (kind?: PlanKind) => Promise<ThreadPlan>;
  pullRequest: () => Promise<JobRequest["pullRequest"]>;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function planTask(task: JobTask, ctx: TaskContext): Promise<TaskPlan> {
  if (task === "agent") return ctx.planRequest();
  const pr = await ctx.pullRequest();
  if (!pr) return { done: { markdown: "This works on pull requests only.", outcome: "failure" } };
  if (pr.isFork && task !== "review") {
    return {
      done: {
        outcome: "failure",
        markdown: `I can't ${task === "fix_ci" ? "fix CI on" : "update"} a pull request from a fork: its branch is in the fork, where I can't push. Ask its author to allow edits by maintainers, or to do it there.`,
      },
    };
  }
  const repo = { owner: ctx.request.repo.owner, repo: ctx.request.repo.name };
  const pull = { number: ctx.request.target.number, headSha: pr.headSha };
  if (task === "review") return planReview(ctx, repo, pull);
  if (task === "fix_ci") return planCiFix(ctx, repo, pull);
  // A rebase is force-pushed: only ever on the bot's own branches; others get a merge.
  const ownBranch = pr.headRef.startsWith(ctx.config.branchPrefix);
  return planUpdate(ctx, pr.baseRef, ownBranch ? ctx.config.updateStrategy : "merge");
}

async function planReview(
  ctx: TaskContext,
  repo: { owner: string; repo: string },
  pull: { number: number; headSha: string },
): Promise<TaskPlan> {
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

async function planCiFix(
  ctx: TaskContext,
  repo: { owner: string; repo: string },
  pull: { number: number; headSha: string },
): Promise<TaskPlan> {
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

/**
 * Whether an event's pull request is one the bot tends and needs it now:
 * open, the bot's own (its branch, from this repository), and for a CI
 * failure, with CI fixing on and the failed commit still its head; for a
 * moved base, conflicting.
 */
export async function tendedPullRequest(
  services: Pick<ThreadServices, "octokit" | "botLogin">,
  request: JobRequest,
  config: RepoConfig,
  sleep: (ms: number) => Promise<void> = sleepFor,
): Promise<boolean> {
  const params = {
    owner: request.repo.owner,
    repo: request.repo.name,
    pull_number: request.target.number,
  };
  let { data } = await services.octokit.rest.pulls.get(params);
  const bot = services.botLogin.toLowerCase().replace(/\[bot\]$/, "");
  const own =
    data.state === "open" &&
    data.head.ref.startsWith(config.branchPrefix) &&
    data.head.repo?.full_name === data.base.repo.full_name &&
    (data.user?.login ?? "").toLowerCase().replace(/\[bot\]$/, "") === bot;
  if (!own) return false;
  if (request.task === "fix_ci") {
    return config.ciFix.enabled && data.head.sha === request.ci?.headSha;
  }
  if (request.task === "update_branch") {
    // GitHub works mergeability out in the background after a push: null until then.
    for (let i = 0; i < 5 && data.mergeable === null; i++) {
      await sleep(2_000);
      ({ data } = await services.octokit.rest.pulls.get(params));
    }
    return data.mergeable === false || data.mergeable_state === "dirty";
  }
  return true;
}
