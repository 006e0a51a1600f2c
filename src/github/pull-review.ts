import type { GitHubClient, RepoRef } from "./octokit.js";
import {
  type CheckedComments,
  checkComments,
  type DiffLines,
  diffLines,
  linesInBoth,
  type PatchedFile,
  type ProposedComment,
} from "./review-diff.js";

/**
 * A pull request review as the bot posts it: the diff it covers (all of
 * it, or only what changed since the bot's last review), and one review
 * whose inline comments are all on lines of the pull request's own diff
 * (and of what changed since, for a re-review). Should GitHub still refuse
 * an anchor, the review goes up with every comment in its text instead.
 */

export const REVIEW_MARKER = "<!-- patchwright review -->";

export interface ReviewScope {
  /** What the agent reviews: the pull request's diff, or the part of it changed since `since`. */
  files: PatchedFile[];
  /** The pull request's own diff: the only lines GitHub anchors a review comment to. */
  pullFiles: PatchedFile[];
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
  const whole: ReviewStart = { kind: "review", scope: { files, pullFiles: files } };
  if (!last) return whole;
  if (last === pull.headSha) return { kind: "up_to_date", sha: last };
  try {
    const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
      ...repo,
      basehead: `${last}...${pull.headSha}`,
    });
    // A force push leaves the old head off the branch: then the whole diff is new.
    if (data.status !== "ahead") return whole;
    const inPull = new Set(files.map((f) => f.filename));
    const changed = (data.files ?? []).filter((f) => inPull.has(f.filename));
    return { kind: "review", scope: { files: changed, pullFiles: files, since: last } };
  } catch {
    return whole;
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

/**
 * The lines a review may comment on: the pull request's diff (the only
 * lines GitHub anchors a comment to), and for a re-review only those of
 * them that changed since.
 */
export function commentableLines(scope: ReviewScope): DiffLines {
  const pullLines = diffLines(scope.pullFiles);
  return scope.since ? linesInBoth(pullLines, diffLines(scope.files)) : pullLines;
}

export interface PostedReview {
  url: string;
  checked: CheckedComments;
  /** GitHub refused the inline comments: every one is in the review's text. */
  inlineRefused?: boolean;
}

export async function postReview(
  octokit: GitHubClient,
  repo: RepoRef,
  pull: { number: number; headSha: string },
  review: { summary: string; comments: ProposedComment[]; scope: ReviewScope },
): Promise<PostedReview> {
  const { scope } = review;
  const checked = checkComments(review.comments, commentableLines(scope));
  const post = (comments: CheckedComments) =>
    octokit.rest.pulls.createReview({
      ...repo,
      pull_number: pull.number,
      commit_id: pull.headSha,
      event: "COMMENT",
      body: reviewBody(review.summary, scope, comments.outside),
      comments: comments.inline,
    });
  try {
    const { data } = await post(checked);
    return { url: data.html_url, checked };
  } catch (error) {
    // One anchor GitHub will not take (422) refuses the whole review: the
    // review is still worth having, with its comments as notes in the text.
    if ((error as { status?: unknown }).status !== 422 || checked.inline.length === 0) throw error;
    const asNotes = { inline: [], outside: [...review.comments] };
    const { data } = await post(asNotes);
    return { url: data.html_url, checked: asNotes, inlineRefused: true };
  }
}

function reviewBody(summary: string, scope: ReviewScope, outside: ProposedComment[]): string {
  return [
    summary || "Reviewed; nothing to add.",
    scope.since ? `_This review covers the changes since \`${scope.since.slice(0, 7)}\`._` : "",
    outside.length > 0
      ? [
          scope.since
            ? "**Notes on lines outside the changes since the last review**"
            : "**Notes on lines outside the diff**",
          ...outside.map(renderNote),
        ].join("\n")
      : "",
    REVIEW_MARKER,
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** A comment kept in the review's text; its suggestion stays as a plain code block. */
function renderNote(comment: ProposedComment): string {
  const range = comment.startLine !== undefined && comment.startLine < comment.line;
  const where = range ? `${comment.startLine}-${comment.line}` : `${comment.line}`;
  const note = `- \`${comment.path}:${where}\`: ${comment.body.trim()}`;
  if (comment.suggestion === undefined) return note;
  const code = comment.suggestion.replace(/\n$/, "");
  const fence = "`".repeat(Math.max(3, ...[...code.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  const indent = (text: string) => text.replace(/^/gm, "  ");
  return `${note}\n\n${indent(`Suggested:\n${fence}\n${code}\n${fence}`)}`;
}
