import * as z from "../zod.js";
import { type JobRequest, jobRequestSchema, type Person } from "./request.js";

/**
 * The webhook payload pieces every entry point reads (repository, sender,
 * issue, pull request) and how they become parts of a JobRequest. The App's
 * triggers and the Action's events share them, so one payload shape means
 * one request shape whichever entry point received it. Pure.
 */

/** A payload for a handled event lacked a field we need; names the field. */
export class TriggerPayloadError extends Error {
  override name = "TriggerPayloadError";
}

export const userSchema = z.object({
  login: z.string().check(z.minLength(1)),
  id: z.number().check(z.int()),
  type: z.optional(z.string()),
  name: z.nullish(z.string()),
});

export const repositorySchema = z.object({
  name: z.string(),
  owner: z.object({ login: z.string() }),
  clone_url: z.string(),
  default_branch: z.string(),
  /** GitHub's estimate of the repository's size, in kilobytes. */
  size: z.optional(z.number().check(z.nonnegative())),
  html_url: z.optional(z.string()),
});

/** What issues and pull requests share in payloads. */
const threadFields = {
  number: z.number().check(z.int()),
  title: z.string(),
  body: z.nullish(z.string()),
  html_url: z.optional(z.string()),
  state: z.string(),
  locked: z.optional(z.boolean()),
};

export const issueSchema = z.object({
  ...threadFields,
  /** Present (an object of links) when the issue is a pull request. */
  pull_request: z.optional(z.unknown()),
  updated_at: z.optional(z.string()),
});

export const pullRequestSchema = z.object({
  ...threadFields,
  head: z.object({
    ref: z.string(),
    sha: z.string(),
    label: z.optional(z.string()),
    /** Null when the fork the PR came from was deleted. */
    repo: z.nullable(z.object({ full_name: z.string() })),
  }),
  base: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }) }),
});

export const commentSchema = z.object({
  id: z.number().check(z.int()),
  body: z.nullish(z.string()),
  created_at: z.optional(z.string()),
  html_url: z.optional(z.string()),
});

export const envelopeSchema = z.object({
  repository: repositorySchema,
  sender: userSchema,
  installation: z.nullish(z.object({ id: z.number().check(z.int()) })),
});

export type Envelope = z.infer<typeof envelopeSchema>;
export type RepositoryPayload = z.infer<typeof repositorySchema>;
export type UserPayload = z.infer<typeof userSchema>;
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;
export type IssuePayload = z.infer<typeof issueSchema>;

/** Parses a payload, or throws TriggerPayloadError naming the missing fields. */
export function readPayload<T>(schema: z.core.$ZodType<T>, payload: unknown, event: string): T {
  const result = z.safeParse(schema, payload);
  if (!result.success) {
    throw new TriggerPayloadError(
      `The ${event} payload is missing fields we need:\n${z.prettifyError(result.error)}`,
    );
  }
  return result.data;
}

const PERSON_TYPES = ["User", "Bot", "Organization", "Mannequin"] as const;

export function toPerson(user: UserPayload): Person {
  const known = PERSON_TYPES.find((type) => type === user.type);
  // App accounts are always `name[bot]`; trust the suffix even if `type` is missing.
  const type = user.login.endsWith("[bot]") ? "Bot" : (known ?? "User");
  return { login: user.login, id: user.id, type, ...(user.name ? { name: user.name } : {}) };
}

export function toRepo(repository: RepositoryPayload): JobRequest["repo"] {
  return {
    owner: repository.owner.login,
    name: repository.name,
    cloneUrl: repository.clone_url,
    defaultBranch: repository.default_branch,
    ...(repository.size !== undefined ? { sizeKb: repository.size } : {}),
    ...(repository.html_url ? { htmlUrl: repository.html_url } : {}),
  };
}

/** The fields every request from a webhook-shaped payload has. */
export function requestBase(envelope: Envelope, deliveryId: string) {
  return {
    deliveryId,
    ...(envelope.installation ? { installationId: envelope.installation.id } : {}),
    repo: toRepo(envelope.repository),
    requester: toPerson(envelope.sender),
  };
}

export function targetOf(item: IssuePayload | PullRequestPayload, kind: "issue" | "pull_request") {
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

export function pullRequestOf(pr: PullRequestPayload): NonNullable<JobRequest["pullRequest"]> {
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
export function optional(key: string, value: string | number | null | undefined) {
  return value === null || value === undefined ? {} : { [key]: value };
}

/** Validates an assembled request; a failure names the field. */
export function buildRequest(candidate: unknown): JobRequest {
  const result = jobRequestSchema.safeParse(candidate);
  if (!result.success) {
    throw new TriggerPayloadError(
      `Could not build a job request:\n${z.prettifyError(result.error)}`,
    );
  }
  return result.data;
}
