import type { GitHubClient, RepoRef } from "./octokit.js";
import {
  type CheckedComments,
  checkComments,
  diffLines,
  type PatchedFile,
  type ProposedComment,
} from "./review-diff.js";

/**
 * A pull request review as the bot posts it: the diff it covers (all of
 * it, or only what changed since the bot's last review), and one review
 * whose inline comments are all on lines of that diff.
 */

export const REVIEW_MARKER = "<!-- patchwright review -->";

export interface ReviewScope {
  files: PatchedFile[];
  /** The commit the bot last reviewed, when this review covers only what came after it. */
  since?: string | undefined;
}

export type ReviewStart =
  | { kind: "up_to_date"; sha: string }
  | { kind: "review"; scope: ReviewScope };

export async function reviewScope(
  octokit: GitHubClient,
  repo: RepoRef,
  pull: { number: number; headSha: string },
  botLogin: string,
): Promise<ReviewStart> {
  const files: PatchedFile[] = await octokit.paginate(octokit.rest.pulls.listFiles, {
    ...repo,
    pull_number: pull.number,
    per_page: 100,
  });
  const reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
    ...repo,
    pull_number: pull.number,
    per_page: 100,
  });
  const bot = botLogin.toLowerCase();
  const last = reviews
    .filter((r) => r.user?.login.toLowerCase() === bot && (r.body ?? "").includes(REVIEW_MARKER))
    .at(-1)?.commit_id;
  if (!last) return { kind: "review", scope: { files } };
  if (last === pull.headSha) return { kind: "up_to_date", sha: last };
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...repo,
      basehead: `${last}...${pull.headSha}`,
    });
    // A force push leaves the old head off the branch: then the whole diff is new.
    if (data.status !== "ahead") return { kind: "review", scope: { files } };
    const inPull = new Set(files.map((f) => f.filename));
    const changed = (data.files ?? []).filter((f) => inPull.has(f.filename));
    return { kind: "review", scope: { files: changed, since: last } };
  } catch {
    return { kind: "review", scope: { files } };
  }
}

/** The diff as one text for the agent, at most about `maxChars`. */
export function renderDiff(files: readonly PatchedFile[], maxChars = 40_000): string {
  let out = "";
  for (const file of files) {
    const part = `--- ${file.filename}\n${file.patch ?? "(binary or too large to show)"}\n`;
    if (out.length + part.length > maxChars) {
      out += `[... ${files.length - out.split("\n--- ").length} more files not shown; read them with git diff ...]\n`;
      break;
    }
    out += part;
  }
  return out;
}

export interface PostedReview {
  url: string;
  checked: CheckedComments;
}

export async function postReview(
  octokit: GitHubClient,
  repo: RepoRef,
  pull: { number: number; headSha: string },
  review: { summary: string; comments: ProposedComment[]; scope: ReviewScope },
): Promise<PostedReview> {
  const checked = checkComments(review.comments, diffLines(review.scope.files));
  const body = [
    review.summary || "Reviewed; nothing to add.",
    review.scope.since
      ? `_This review covers the changes since \`${review.scope.since.slice(0, 7)}\`._`
      : "",
    checked.outside.length > 0
      ? [
          "**Notes on lines outside the diff**",
          ...checked.outside.map((c) => `- \`${c.path}:${c.line}\`: ${c.body.trim()}`),
        ].join("\n")
      : "",
    REVIEW_MARKER,
  ]
    .filter(Boolean)
    .join("\n\n");
  const { data } = await octokit.rest.pulls.createReview({
    ...repo,
    pull_number: pull.number,
    commit_id: pull.headSha,
    event: "COMMENT",
    body,
    comments: checked.inline,
  });
  return { url: data.html_url, checked };
}
