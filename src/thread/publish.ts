import type { ChangeResult } from "../change/change.js";
import type { RepoConfig } from "../config/schema.js";
import { openOrUpdatePullRequest } from "../github/pulls.js";
import type { PullRequestLink } from "../report/final-report.js";
import { markInvisible } from "../secrets/invisible.js";
import { renderForkPatchAnswer } from "./kinds/answers.js";
import { publishReview } from "./kinds/review-publish.js";
import type { Publish, ThreadPlan } from "./plan.js";
import { failureOf, opensAsDraft, pullRequestBody } from "./report.js";
import type { ThreadServices } from "./services.js";

/**
 * Makes pushed work visible, as its plan says: a pull request opened or
 * updated, or an answer of the kind's own that stands instead of the final
 * report (a fork's patch, a review, a branch that needed nothing).
 */
export type Published =
  | { pullRequest?: PullRequestLink | undefined; answer?: undefined }
  | { answer: string; pullRequest?: undefined };

export async function publishResult(
  services: ThreadServices,
  config: RepoConfig,
  plan: Pick<ThreadPlan, "publish" | "followsPlan">,
  job: ChangeResult,
): Promise<Published> {
  const publish = plan.publish;
  const answer = await answerOf(services, publish, job);
  if (answer !== undefined) return { answer };
  if (publish.kind !== "pull_request" || !job.push) return {};
  if (publish.existing && job.branch === publish.headRef) return { pullRequest: publish.existing };
  const { owner, repo } = publish.repo;
  return {
    pullRequest: await openOrUpdatePullRequest(services.octokit, {
      owner,
      repo,
      head: job.branch,
      base: job.baseBranch,
      // The title is untrusted text like an issue's body.
      title: markInvisible(services.redact(publish.title)),
      body: pullRequestBody(
        job,
        { ...publish.origin, jobPage: services.jobPage },
        config,
        services.redact,
        plan.followsPlan,
      ),
      draft: opensAsDraft(job, config),
    }),
  };
}

async function answerOf(
  services: ThreadServices,
  publish: Publish,
  job: ChangeResult,
): Promise<string | undefined> {
  switch (publish.kind) {
    case "patch":
      return job.patch && !job.error
        ? renderForkPatchAnswer({ patch: job.patch, summary: job.agent?.finalText ?? "" })
        : undefined;
    case "review":
      return publishReview(services.octokit, services.redact, publish, job);
    case "branch_update": {
      const update = job.update;
      if (update?.upToDate)
        return `This branch already contains \`${publish.baseRef}\`: nothing to update.`;
      if (update?.unresolved) {
        return [
          `I couldn't resolve the conflicts with \`${publish.baseRef}\`, so the branch was left untouched. These files need a person:`,
          ...update.unresolved.map((file) => `- \`${file}\``),
        ].join("\n");
      }
      return undefined;
    }
    case "plan":
      // The plan kind reads the answer itself; a run that failed gets the usual report.
      return failureOf(job) ? undefined : "";
    default:
      return undefined;
  }
}
