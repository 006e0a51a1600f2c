import { errorMessage } from "../../error-message.js";
import type { GitHubClient } from "../../github/octokit.js";
import type { UpdateGroup } from "../plan/groups.js";

/**
 * Labels on a bump pull request: deps.labels (default `dependencies`) on
 * every one, and `security` on those that fix advisories. A label that
 * cannot be set is a warning for the report, never a failed group: the pull
 * request itself is what matters.
 */

export function labelsFor(
  group: Pick<UpdateGroup, "security">,
  labels: readonly string[],
): string[] {
  return [...new Set([...labels, ...(group.security ? ["security"] : [])])];
}

export async function labelPullRequest(
  octokit: GitHubClient,
  target: { owner: string; repo: string; number: number },
  labels: readonly string[],
): Promise<string | undefined> {
  if (labels.length === 0) return undefined;
  try {
    await octokit.rest.issues.addLabels({
      owner: target.owner,
      repo: target.repo,
      issue_number: target.number,
      labels: [...labels],
    });
    return undefined;
  } catch (error) {
    return `could not label pull request #${target.number} with ${labels.join(", ")}: ${errorMessage(error)}`;
  }
}
