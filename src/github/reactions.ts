import type { JobRequest } from "../requests/request.js";
import type { GitHubClient, RepoRef } from "./octokit.js";

export type ReactionContent = "eyes" | "rocket" | "confused" | "+1" | "-1" | "hooray" | "heart";

/**
 * Puts a reaction on whatever started the job: the comment itself when there
 * is one, otherwise the issue or pull request (labels, reviews, other events
 * have nothing smaller to react to).
 */
export async function reactToTrigger(
  octokit: GitHubClient,
  repo: RepoRef,
  issueNumber: number,
  source: JobRequest["source"],
  content: ReactionContent,
): Promise<void> {
  const { owner, repo: name } = repo;
  if (source.kind === "issue_comment" && source.id !== undefined) {
    await octokit.rest.reactions.createForIssueComment({
      owner,
      repo: name,
      comment_id: source.id,
      content,
    });
  } else if (source.kind === "review_comment" && source.id !== undefined) {
    await octokit.rest.reactions.createForPullRequestReviewComment({
      owner,
      repo: name,
      comment_id: source.id,
      content,
    });
  } else {
    await octokit.rest.reactions.createForIssue({
      owner,
      repo: name,
      issue_number: issueNumber,
      content,
    });
  }
}
