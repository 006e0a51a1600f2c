import * as z from "../zod.js";
import {
  buildRequest,
  commentSchema,
  envelopeSchema,
  issueSchema,
  optional,
  pullRequestOf,
  pullRequestSchema,
  readPayload,
  requestBase,
  targetOf,
} from "./payload.js";
import type { JobRequest } from "./request.js";
import { parseCiFailure } from "./upkeep-triggers.js";

export { TriggerPayloadError } from "./payload.js";

/**
 * Webhook payload -> JobRequest, and the pure checks that decide whether a
 * request may start a job. Nothing here talks to GitHub: the permission gate
 * and the answers to refused requests live with the caller. The payload
 * pieces shared with the Action are in payload.ts.
 */

const issueCommentPayload = z.extend(envelopeSchema, {
  issue: issueSchema,
  comment: commentSchema,
});
const reviewCommentPayload = z.extend(envelopeSchema, {
  pull_request: pullRequestSchema,
  comment: z.extend(commentSchema, {
    diff_hunk: z.optional(z.string()),
    path: z.optional(z.string()),
  }),
});
const reviewPayload = z.extend(envelopeSchema, {
  pull_request: pullRequestSchema,
  review: z.object({
    id: z.number().check(z.int()),
    body: z.nullish(z.string()),
    submitted_at: z.nullish(z.string()),
    html_url: z.optional(z.string()),
  }),
});
const openedPayload = z.extend(envelopeSchema, {
  issue: z.extend(issueSchema, {
    id: z.number().check(z.int()),
    created_at: z.optional(z.string()),
  }),
});
const labeledPayload = z.extend(envelopeSchema, {
  issue: issueSchema,
  label: z.object({ name: z.string() }),
});

/**
 * Builds the job request for the events that can start a job, or null for
 * every other event or action (edits, deletions, dismissed reviews, ...).
 * `instruction` is the full triggering text; whether it holds the phrase is
 * `shouldStart`'s question, and `stripPhrase` removes it. For comments on a
 * pull request's conversation tab the payload has no head details, so
 * `pullRequest` stays undefined and the job fetches the PR.
 * Throws TriggerPayloadError when a handled event's payload lacks a field.
 */
export function parseTrigger(
  eventName: string,
  payload: unknown,
  deliveryId: string,
): JobRequest | null {
  const [event, actionInName] = eventName.split(".");
  const action = (payload as { action?: unknown } | null)?.action;
  if (typeof action !== "string" || (actionInName !== undefined && actionInName !== action)) {
    return null;
  }

  if ((event === "workflow_run" || event === "check_suite") && action === "completed") {
    return parseCiFailure(event, payload, deliveryId);
  }

  if (event === "issue_comment" && action === "created") {
    const data = readPayload(issueCommentPayload, payload, eventName);
    return buildRequest({
      ...requestBase(data, deliveryId),
      trigger: "issue_comment",
      target: targetOf(data.issue, data.issue.pull_request ? "pull_request" : "issue"),
      instruction: data.comment.body ?? "",
      source: {
        kind: "issue_comment",
        id: data.comment.id,
        ...optional("createdAt", data.comment.created_at),
        ...optional("htmlUrl", data.comment.html_url),
      },
    });
  }

  if (event === "pull_request_review_comment" && action === "created") {
    const data = readPayload(reviewCommentPayload, payload, eventName);
    return buildRequest({
      ...requestBase(data, deliveryId),
      trigger: "pull_request_review_comment",
      target: targetOf(data.pull_request, "pull_request"),
      pullRequest: pullRequestOf(data.pull_request),
      instruction: data.comment.body ?? "",
      source: {
        kind: "review_comment",
        id: data.comment.id,
        ...optional("createdAt", data.comment.created_at),
        ...optional("htmlUrl", data.comment.html_url),
        ...optional("diffHunk", data.comment.diff_hunk),
        ...optional("path", data.comment.path),
      },
    });
  }

  if (event === "pull_request_review" && action === "submitted") {
    const data = readPayload(reviewPayload, payload, eventName);
    // An approval or a review made only of line comments has no body to act on.
    if (!data.review.body?.trim()) return null;
    return buildRequest({
      ...requestBase(data, deliveryId),
      trigger: "pull_request_review",
      target: targetOf(data.pull_request, "pull_request"),
      pullRequest: pullRequestOf(data.pull_request),
      instruction: data.review.body,
      source: {
        kind: "review",
        id: data.review.id,
        ...optional("createdAt", data.review.submitted_at),
        ...optional("htmlUrl", data.review.html_url),
      },
    });
  }

  if (event === "issues" && action === "opened") {
    const data = readPayload(openedPayload, payload, eventName);
    const { issue } = data;
    // Only an issue's: a pull request's own text arrives as pull_request.opened, which runs configured prompts.
    if (issue.pull_request) return null;
    return buildRequest({
      ...requestBase(data, deliveryId),
      trigger: "issue_opened",
      target: targetOf(issue, "issue"),
      // The description, as a comment's body: GitHub notifies no one of a mention in a title.
      instruction: issue.body ?? "",
      source: {
        kind: "issue",
        id: issue.id,
        ...optional("createdAt", issue.created_at),
        ...optional("htmlUrl", issue.html_url),
      },
    });
  }

  if (event === "issues" && action === "labeled") {
    const data = readPayload(labeledPayload, payload, eventName);
    const { issue } = data;
    return buildRequest({
      ...requestBase(data, deliveryId),
      trigger: "issue_labeled",
      target: targetOf(issue, issue.pull_request ? "pull_request" : "issue"),
      // A label carries no words of its own: the issue itself is the request.
      instruction: [issue.title, issue.body ?? ""].join("\n\n").trim(),
      source: {
        kind: "label",
        label: data.label.name,
        ...optional("createdAt", issue.updated_at),
        ...optional("htmlUrl", issue.html_url),
      },
    });
  }

  return null;
}
