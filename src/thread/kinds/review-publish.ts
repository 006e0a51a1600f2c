import type { ChangeResult } from "../../change/change.js";
import type { GitHubClient } from "../../github/octokit.js";
import { postReview } from "../../github/pull-review.js";
import type { Publish } from "../plan.js";
import { parseReview } from "./review-output.js";

type ReviewPublish = Extract<Publish, { kind: "review" }>;

/**
 * A review's result becomes one pull request review: the comments the
 * agent left through its tool, and any its answer still carried as JSON,
 * redacted. Returns the words for the tracking comment; none when the
 * agent failed (the usual report says why).
 */
export async function publishReview(
  octokit: GitHubClient,
  redact: (text: string) => string,
  plan: ReviewPublish,
  job: ChangeResult,
): Promise<string | undefined> {
  if (job.error || !job.agent) return undefined;
  const parsed = parseReview(job.agent.finalText);
  const comments = [...plan.tool.comments(), ...parsed.comments];
  const posted = await postReview(octokit, plan.repo, plan.pull, {
    summary: redact(parsed.summary),
    comments: comments.map((c) => ({
      ...c,
      body: redact(c.body),
      ...(c.suggestion !== undefined ? { suggestion: redact(c.suggestion) } : {}),
    })),
    scope: plan.scope,
  });
  const inline = posted.checked.inline.length;
  const outside = posted.checked.outside.length;
  return [
    `Posted [a review](${posted.url}) with ${inline} inline comment${inline === 1 ? "" : "s"}.`,
    outside > 0
      ? `${outside} comment${outside === 1 ? " was" : "s were"} on lines outside the diff and went into the review's text.`
      : "",
    parsed.problem ? `The inline comments could not be read (${parsed.problem}).` : "",
  ]
    .filter(Boolean)
    .join(" ");
}
