import { z } from "zod";
import { type JobRequest, jobRequestSchema, type Person } from "../job/request.js";

/**
 * Webhook payload -> JobRequest, and the pure checks that decide whether a
 * request may start a job. Nothing here talks to GitHub: the permission gate
 * and the answers to refused requests live with the caller.
 */

/** A payload for a handled event lacked a field we need; names the field. */
export class TriggerPayloadError extends Error {
  override name = "TriggerPayloadError";
}

const userSchema = z.object({
  login: z.string().min(1),
  id: z.number().int(),
  type: z.string().optional(),
  name: z.string().nullish(),
});

const repositorySchema = z.object({
  name: z.string(),
  owner: z.object({ login: z.string() }),
  clone_url: z.string(),
  default_branch: z.string(),
  html_url: z.string().optional(),
});

const issueSchema = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullish(),
  html_url: z.string().optional(),
  state: z.string(),
  locked: z.boolean().optional(),
  /** Present (an object of links) when the issue is a pull request. */
  pull_request: z.unknown().optional(),
  updated_at: z.string().optional(),
});

const pullRequestSchema = z.object({
  number: z.number().int(),
  title: z.string(),
  body: z.string().nullish(),
  html_url: z.string().optional(),
  state: z.string(),
  locked: z.boolean().optional(),
  head: z.object({
    ref: z.string(),
    sha: z.string(),
    label: z.string().optional(),
    /** Null when the fork the PR came from was deleted. */
    repo: z.object({ full_name: z.string() }).nullable(),
  }),
  base: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }) }),
});

const commentSchema = z.object({
  id: z.number().int(),
  body: z.string().nullish(),
  created_at: z.string().optional(),
  html_url: z.string().optional(),
});

const envelopeSchema = z.object({
  repository: repositorySchema,
  sender: userSchema,
  installation: z.object({ id: z.number().int() }).nullish(),
});

const issueCommentPayload = envelopeSchema.extend({ issue: issueSchema, comment: commentSchema });
const reviewCommentPayload = envelopeSchema.extend({
  pull_request: pullRequestSchema,
  comment: commentSchema.extend({ diff_hunk: z.string().optional(), path: z.string().optional() }),
});
const reviewPayload = envelopeSchema.extend({
  pull_request: pullRequestSchema,
  review: z.object({
    id: z.number().int(),
    body: z.string().nullish(),
    submitted_at: z.string().nullish(),
    html_url: z.string().optional(),
  }),
});
const labeledPayload = envelopeSchema.extend({
  issue: issueSchema,
  label: z.object({ name: z.string() }),
});

type Envelope = z.infer<typeof envelopeSchema>;
type PullRequestPayload = z.infer<typeof pullRequestSchema>;
type IssuePayload = z.infer<typeof issueSchema>;

function read<T>(schema: z.ZodType<T>, payload: unknown, event: string): T {
  const result = schema.safeParse(payload);
  if (!result.success) {
    throw new TriggerPayloadError(
      `The ${event} payload is missing fields we need:\n${z.prettifyError(result.error)}`,
    );
  }
  return result.data;
}

const PERSON_TYPES = ["User", "Bot", "Organization", "Mannequin"] as const;

function toPerson(user: z.infer<typeof userSchema>): Person {
  const known = PERSON_TYPES.find((type) => type === user.type);
  // App accounts are always `name[bot]`; trust the suffix even if `type` is missing.
  const type = user.login.endsWith("[bot]") ? "Bot" : (known ?? "User");
  return { login: user.login, id: user.id, type, ...(user.name ? { name: user.name } : {}) };
}

function common(envelope: Envelope, deliveryId: string) {
  const { repository } = envelope;
  return {
    deliveryId,
    ...(envelope.installation ? { installationId: envelope.installation.id } : {}),
    repo: {
      owner: repository.owner.login,
      name: repository.name,
      cloneUrl: repository.clone_url,
      defaultBranch: repository.default_branch,
      ...(repository.html_url ? { htmlUrl: repository.html_url } : {}),
    },
    requester: toPerson(envelope.sender),
  };
}

function targetOf(item: IssuePayload | PullRequestPayload, kind: "issue" | "pull_request") {
  return {
    kind,
    number: item.number,
    title: item.title,
    body: item.body ?? "",
    ...(item.html_url ? { htmlUrl: item.html_url } : {}),
    state: item.state === "closed" ? ("closed" as const) : ("open" as const),
    locked: item.locked ?? false,
  };
}

function pullRequestOf(pr: PullRequestPayload): NonNullable<JobRequest["pullRequest"]> {
  const headRepo = pr.head.repo?.full_name;
  return {
    headRef: pr.head.ref,
    headSha: pr.head.sha,
    // A deleted fork leaves no repository; its label ("user:branch") is all that is left to name it.
    headRepoFullName: headRepo ?? pr.head.label ?? "(deleted fork)",
    baseRef: pr.base.ref,
    isFork: headRepo === undefined || headRepo !== pr.base.repo.full_name,
  };
}

/** Spreads `{ key: value }` only when there is a value (exactOptionalPropertyTypes). */
function optional(key: string, value: string | number | null | undefined) {
  return value === null || value === undefined ? {} : { [key]: value };
}

function build(candidate: unknown): JobRequest {
  const result = jobRequestSchema.safeParse(candidate);
  if (!result.success) {
    throw new TriggerPayloadError(
      `Could not build a job request:\n${z.prettifyError(result.error)}`,
    );
  }
  return result.data;
}

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

  if (event === "issue_comment" && action === "created") {
    const data = read(issueCommentPayload, payload, eventName);
    return build({
      ...common(data, deliveryId),
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
    const data = read(reviewCommentPayload, payload, eventName);
    return build({
      ...common(data, deliveryId),
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
    const data = read(reviewPayload, payload, eventName);
    // An approval or a review made only of line comments has no body to act on.
    if (!data.review.body?.trim()) return null;
    return build({
      ...common(data, deliveryId),
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

  if (event === "issues" && action === "labeled") {
    const data = read(labeledPayload, payload, eventName);
    const { issue } = data;
    return build({
      ...common(data, deliveryId),
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
