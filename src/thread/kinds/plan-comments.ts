import type { GitHubClient } from "../../github/octokit.js";
import type { JobRequest } from "../../requests/request.js";
import { type PlanMarker, readPlanMarker, withWent } from "./plan-output.js";

/**
 * The plans in a thread: the bot's own comments that start with a plan
 * marker (plan-output.ts), on the conversation and, on a pull request, in
 * its review threads (a plan asked for in a review comment is answered
 * there). Anyone else's comment holding a marker is no plan.
 */

export interface PlanComment {
  id: number;
  url: string;
  kind: "issue_comment" | "review_comment";
  body: string;
  createdAt: string;
  marker: PlanMarker;
}

interface RawComment {
  id: number;
  html_url: string;
  body?: string | null | undefined;
  created_at: string;
  user?: { login: string } | null | undefined;
}

export async function plansInThread(
  octokit: GitHubClient,
  request: Pick<JobRequest, "repo" | "target">,
  botLogin: string,
): Promise<PlanComment[]> {
  const params = { owner: request.repo.owner, repo: request.repo.name, per_page: 100 };
  const number = request.target.number;
  const bot = botLogin.toLowerCase();
  const plans: PlanComment[] = [];
  const keep = (comments: RawComment[], kind: PlanComment["kind"]) => {
    for (const comment of comments) {
      if (comment.user?.login.toLowerCase() !== bot) continue;
      const body = comment.body ?? "";
      const marker = readPlanMarker(body);
      if (!marker) continue;
      plans.push({
        id: comment.id,
        url: comment.html_url,
        kind,
        body,
        createdAt: comment.created_at,
        marker,
      });
    }
  };
  keep(
    await octokit.paginate(octokit.rest.issues.listComments, { ...params, issue_number: number }),
    "issue_comment",
  );
  if (request.target.kind === "pull_request") {
    keep(
      await octokit.paginate(octokit.rest.pulls.listReviewComments, {
        ...params,
        pull_number: number,
      }),
      "review_comment",
    );
  }
  return plans;
}

/**
 * The plan a go is for: the one it names (a 👍 names the comment it was
 * on), else the latest.
 */
export function planFor(plans: readonly PlanComment[], named?: number): PlanComment | undefined {
  const exact = named === undefined ? undefined : plans.find((plan) => plan.id === named);
  if (exact) return exact;
  const time = (plan: PlanComment) => Date.parse(plan.createdAt) || 0;
  return [...plans].sort((a, b) => time(a) - time(b) || a.id - b.id).at(-1);
}

/** Marks the plan as taken by a go: its marker names the go, and a line under the plan says so. */
export async function markWent(
  octokit: GitHubClient,
  repo: { owner: string; name: string },
  plan: PlanComment,
  went: NonNullable<PlanMarker["went"]>,
): Promise<void> {
  const body = withWent(plan.body, went);
  const where = { owner: repo.owner, repo: repo.name, comment_id: plan.id, body };
  if (plan.kind === "review_comment") await octokit.rest.pulls.updateReviewComment(where);
  else await octokit.rest.issues.updateComment(where);
}
