import * as z from "../zod.js";

/**
 * What one job is asked to do, whatever started it (App webhook, Action
 * event, schedule, CLI). Triggers build it from a payload; `runJob` consumes
 * it. It is parsed with zod at the boundary so a malformed payload fails with
 * a field name instead of an undefined deep inside the job.
 */

const repoSchema = z.object({
  owner: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  /** From the payload's repository.clone_url, so GHE and test servers work unchanged. */
  cloneUrl: z.string().check(z.minLength(1)),
  defaultBranch: z.string().check(z.minLength(1)),
  htmlUrl: z.optional(z.string()),
  /** From repository.size: how the mirror is first fetched (see partialFetchFor). */
  sizeKb: z.optional(z.number().check(z.nonnegative())),
});

const personSchema = z.object({
  login: z.string().check(z.minLength(1)),
  id: z.number().check(z.int()),
  /** Display name when the payload or API gave one; falls back to the login. */
  name: z.optional(z.string()),
  type: z._default(z.enum(["User", "Bot", "Organization", "Mannequin"]), "User"),
});

const pullRequestSchema = z.object({
  headRef: z.string().check(z.minLength(1)),
  headSha: z.string().check(z.minLength(1)),
  /** owner/name of the head repository; differs from the base repository for forks. */
  headRepoFullName: z.string().check(z.minLength(1)),
  /** Clone URL of the head repository (a fork's own URL), when known. */
  headCloneUrl: z.optional(z.string()),
  baseRef: z.string().check(z.minLength(1)),
  isFork: z.boolean(),
});

export const jobTriggerSchema = z.enum([
  "issue_comment",
  "pull_request_review_comment",
  "pull_request_review",
  "issue_labeled",
  "issue_opened",
  "pull_request",
  "workflow_dispatch",
  "schedule",
  // CI failed, or the base moved, on a pull request the bot tends (see upkeep-triggers.ts).
  "workflow_run",
  "check_suite",
  "push",
]);

/**
 * What a job does on its target. "agent": the instruction, as written.
 * "review", "fix_ci", "update_branch" keep a pull request mergeable; a
 * comment asks for them in so many words (thread/kinds/upkeep-task.ts), an
 * event sets them. "plan": a read-only run answers with a plan; "go": the
 * thread's latest plan is carried out (a 👍 on it sets this task).
 */
export const jobTaskSchema = z.enum(["agent", "review", "fix_ci", "update_branch", "plan", "go"]);

export const jobRequestSchema = z.object({
  trigger: jobTriggerSchema,
  /** X-GitHub-Delivery (or a run id for schedules): a repeated delivery never starts a second job. */
  deliveryId: z.string().check(z.minLength(1)),
  installationId: z.optional(z.number().check(z.int())),
  repo: repoSchema,
  /** The issue or pull request the request was made on. */
  target: z.object({
    kind: z.enum(["issue", "pull_request"]),
    number: z.number().check(z.int(), z.positive()),
    title: z.string(),
    body: z._default(z.string(), ""),
    htmlUrl: z.optional(z.string()),
    state: z._default(z.enum(["open", "closed"]), "open"),
    locked: z._default(z.boolean(), false),
  }),
  /** Present when the target is a pull request. */
  pullRequest: z.optional(pullRequestSchema),
  /** The triggering text: the only instruction the agent takes. */
  instruction: z.string(),
  /** Where the instruction came from, for replies and for "only comments before the trigger". */
  source: z.object({
    /** "issue": the words are a new issue's description (issues.opened). */
    kind: z.enum(["issue_comment", "review_comment", "review", "issue", "label", "event"]),
    id: z.optional(z.number().check(z.int())),
    createdAt: z.optional(z.string()),
    htmlUrl: z.optional(z.string()),
    /** For review comments: the diff hunk the comment is attached to, and its file. */
    diffHunk: z.optional(z.string()),
    path: z.optional(z.string()),
    /** For label triggers: the label that was added, checked against the configured one. */
    label: z.optional(z.string()),
  }),
  requester: personSchema,
  /** Set by the events that start an upkeep job; a comment's task comes from its words. */
  task: z.optional(jobTaskSchema),
  /** For a CI failure event: the commit whose checks failed. */
  ci: z.optional(z.object({ headSha: z.string().check(z.minLength(1)) })),
});

export type JobRequest = z.infer<typeof jobRequestSchema>;
export type JobTrigger = z.infer<typeof jobTriggerSchema>;
export type JobTask = z.infer<typeof jobTaskSchema>;
export type Person = z.infer<typeof personSchema>;

/** Key for "one job at a time per issue/PR". */
/**
 * The object that asked for the job: a comment, a review, a label added at a
 * given time. A delivery replayed under a fresh X-GitHub-Delivery id carries
 * the same one, so it never starts a second job.
 */
export function triggerKey(request: Pick<JobRequest, "repo" | "target" | "source">): string {
  const { source } = request;
  const where = jobKey(request);
  if (source.id !== undefined) return `${where}:${source.kind}:${source.id}`;
  return `${where}:${source.kind}:${source.label ?? ""}:${source.createdAt ?? ""}`;
}

export function jobKey(request: Pick<JobRequest, "repo" | "target">): string {
  return `${request.repo.owner}/${request.repo.name}#${request.target.number}`.toLowerCase();
}
